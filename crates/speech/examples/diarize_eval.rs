//! Tuning aid: diarizes recordings and prints each one's diarization error rate against its RTTM
//! reference (10 ms frames, no collar, best one-to-one speaker mapping; missed speech, false
//! alarm and confusion), then the mean over all of them.
//!
//! `cargo run --release -p callscope-speech --example diarize_eval -- [--bic W] [--max N] [--min N]
//! [--no-pitch-start] [--show] [--vad energy|MODEL] [--threshold P] [--pad MS] [--min-silence MS] [--min-speech MS]
//! [--segment F] [--smooth F] [--rounds N] [--components N] [--change L] [--relevance R]
//! [--supervector F] FILE.wav=REF.rttm …`
//!
//! The options after `--min-speech` set the fields of `DiarizeSettings` of the same meaning
//! (`--rounds 0`: clustering alone, no resegmentation).
//!
//! `--vad` takes `energy` (the default) or the Silero model (`silero_vad_16k.safetensors` or its
//! folder); the other options shape the detector's speech before diarization, from the
//! pipeline's shaping for diarization (`VadSettings::SPEECH_ONLY`). `--show`
//! prints each file's reference and hypothesis as timelines.
//!
//! An RTTM file may describe several recordings: the rows whose recording name is the WAV file's
//! stem are used (all rows when none is).
use std::collections::BTreeSet;

use callscope_speech::{diarize, vad, DiarizeSettings, SileroVad, Vad, VadSettings};

fn main() {
    let mut settings = DiarizeSettings::default();
    let mut detector = Vad::Energy;
    let mut shape = VadSettings::SPEECH_ONLY;
    let mut show = false;
    let mut pairs = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = || args.next().expect("a value after the option");
        match arg.as_str() {
            "--bic" => settings.bic_penalty = value().parse().expect("a number"),
            "--max" => settings.max_speakers = value().parse().expect("a count"),
            "--min" => settings.min_speakers = value().parse().expect("a count"),
            "--no-pitch-start" => settings.pitch_start = false,
            "--vad" => {
                detector = match value().as_str() {
                    "energy" => Vad::Energy,
                    path => Vad::Silero(std::sync::Arc::new(SileroVad::load(path.as_ref()).expect("the Silero model"))),
                }
            }
            "--show" => show = true,
            "--segment" => settings.segment_frames = value().parse().expect("frames"),
            "--smooth" => settings.smooth_frames = value().parse().expect("frames"),
            "--rounds" => settings.resegment_rounds = value().parse().expect("a count"),
            "--components" => settings.components = value().parse().expect("a count"),
            "--change" => settings.change_penalty = value().parse().expect("a number"),
            "--relevance" => settings.relevance = value().parse().expect("a number"),
            "--supervector" => settings.supervector_frames = value().parse().expect("frames"),
            "--threshold" => shape.speech_threshold = value().parse().expect("a probability"),
            "--pad" => shape.pad_ms = value().parse().expect("milliseconds"),
            "--min-silence" => shape.min_silence_ms = value().parse().expect("milliseconds"),
            "--min-speech" => shape.min_speech_ms = value().parse().expect("milliseconds"),
            pair => {
                let (wav, rttm) = pair.split_once('=').expect("FILE.wav=REF.rttm");
                pairs.push((wav.to_string(), rttm.to_string()));
            }
        }
    }
    let mut sum = [0.0f64; 4];
    for (wav, rttm) in &pairs {
        let mut reader = hound::WavReader::open(wav).expect("a WAV file");
        assert_eq!(reader.spec().sample_rate, 16_000, "{wav}: 16 kHz expected");
        let samples: Vec<f32> = match reader.spec().sample_format {
            hound::SampleFormat::Float => reader.samples::<f32>().map(|s| s.expect("a sample")).collect(),
            hound::SampleFormat::Int => reader.samples::<i16>().map(|s| f32::from(s.expect("a sample")) / 32768.0).collect(),
        };
        let stem = std::path::Path::new(wav).file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
        let rows: Vec<(String, f32, f32, String)> = std::fs::read_to_string(rttm)
            .expect("an RTTM file")
            .lines()
            .filter_map(|l| {
                let p: Vec<&str> = l.split_whitespace().collect();
                let start: f32 = p.get(3)?.parse().ok()?;
                Some((p[1].to_string(), start, start + p.get(4)?.parse::<f32>().ok()?, p.get(7)?.to_string()))
            })
            .collect();
        let mine: Vec<_> = rows.iter().filter(|r| r.0 == stem).cloned().collect();
        let refs = if mine.is_empty() { rows } else { mine };
        let regions = vad::shape(&detector.speech(&samples, &shape).expect("samples in memory"), samples.len(), &shape);
        let d = diarize(&samples, &regions, &settings).expect("samples in memory");
        let names: Vec<String> = refs.iter().map(|r| r.3.clone()).collect::<BTreeSet<_>>().into_iter().collect();
        let frames = samples.len() / 160;
        // Reference speaker sets and the hypothesis' label per frame.
        let reference: Vec<Vec<usize>> = (0..frames)
            .map(|f| {
                let t = f as f32 / 100.0 + 0.005;
                (0..names.len()).filter(|&i| refs.iter().any(|r| r.3 == names[i] && r.1 <= t && t < r.2)).collect()
            })
            .collect();
        let mut speech = vec![false; frames];
        for r in &regions {
            for slot in speech.iter_mut().take((r.end / 160).min(frames)).skip(r.start / 160) {
                *slot = true;
            }
        }
        let hypothesis: Vec<Option<usize>> = (0..frames).map(|f| speech[f].then(|| d.speaker_at(f as f32 / 100.0, f as f32 / 100.0))).collect();
        let mut overlap = vec![vec![0usize; names.len()]; d.speakers().max(1)];
        for (r, h) in reference.iter().zip(&hypothesis) {
            if let Some(h) = h {
                for &who in r {
                    overlap[*h][who] += 1;
                }
            }
        }
        let mapping = best_mapping(&overlap, names.len());
        if show {
            // One character per 100 ms: reference speakers (a letter each, `+` for overlap), then
            // the hypothesis mapped onto them (`?` for a speaker mapped to nobody).
            let letter = |i: usize| char::from(b'A' + i as u8);
            let (mut said, mut found) = (String::new(), String::new());
            for f in (0..frames).step_by(10) {
                said.push(match reference[f].as_slice() {
                    [] => '.',
                    [one] => letter(*one),
                    _ => '+',
                });
                found.push(hypothesis[f].map_or('.', |h| mapping[h].map_or('?', letter)));
            }
            for (a, b) in said.as_bytes().chunks(100).zip(found.as_bytes().chunks(100)) {
                println!("  ref {}\n  hyp {}", String::from_utf8_lossy(a), String::from_utf8_lossy(b));
            }
        }
        let (mut total, mut missed, mut false_alarm, mut confusion) = (0usize, 0usize, 0usize, 0usize);
        for (r, h) in reference.iter().zip(&hypothesis) {
            total += r.len();
            let said = usize::from(h.is_some());
            missed += r.len().saturating_sub(said);
            false_alarm += said.saturating_sub(r.len());
            if let Some(h) = h {
                if !r.is_empty() && !mapping[*h].is_some_and(|m| r.contains(&m)) {
                    confusion += 1;
                }
            }
        }
        let rate = |n: usize| 100.0 * n as f64 / total.max(1) as f64;
        let der = rate(missed + false_alarm + confusion);
        println!(
            "{stem}: DER {der:.1} % (missed {:.1}, false alarm {:.1}, confusion {:.1}), speakers {} of {}",
            rate(missed),
            rate(false_alarm),
            rate(confusion),
            d.speakers(),
            names.len()
        );
        for (slot, value) in sum.iter_mut().zip([der, rate(missed), rate(false_alarm), rate(confusion)]) {
            *slot += value;
        }
    }
    let n = pairs.len().max(1) as f64;
    println!(
        "mean of {}: DER {:.1} % (missed {:.1}, false alarm {:.1}, confusion {:.1})",
        pairs.len(),
        sum[0] / n,
        sum[1] / n,
        sum[2] / n,
        sum[3] / n
    );
}

/// The one-to-one mapping of hypothesis speakers to reference speakers with the most shared
/// frames (exhaustive: a few speakers each).
fn best_mapping(overlap: &[Vec<usize>], references: usize) -> Vec<Option<usize>> {
    fn search(h: usize, overlap: &[Vec<usize>], used: &mut Vec<bool>, current: &mut Vec<Option<usize>>, best: &mut (usize, Vec<Option<usize>>)) {
        if h == overlap.len() {
            let score = current.iter().enumerate().filter_map(|(h, r)| r.map(|r| overlap[h][r])).sum();
            if score > best.0 || best.1.is_empty() {
                *best = (score, current.clone());
            }
            return;
        }
        search(h + 1, overlap, used, current, best);
        for r in 0..used.len() {
            if !used[r] {
                used[r] = true;
                current[h] = Some(r);
                search(h + 1, overlap, used, current, best);
                used[r] = false;
                current[h] = None;
            }
        }
    }
    let mut best = (0, Vec::new());
    search(0, overlap, &mut vec![false; references], &mut vec![None; overlap.len()], &mut best);
    best.1
}
