//! Tuning aid: diarizes a recording with several BIC penalty weights and prints the speaker
//! count and the confusion against an RTTM reference (frames with exactly one reference speaker).
//! `cargo run -p callscope-speech --example diarize_sweep -- sample.wav sample.rttm`
use callscope_speech::{diarize, vad, DiarizeSettings, VadSettings};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let mut reader = hound::WavReader::open(&args[1]).unwrap();
    let samples: Vec<f32> = reader.samples::<i16>().map(|s| f32::from(s.unwrap()) / 32768.0).collect();
    let rttm = std::fs::read_to_string(&args[2]).unwrap();
    let refs: Vec<(f32, f32, String)> = rttm
        .lines()
        .map(|l| {
            let p: Vec<&str> = l.split_whitespace().collect();
            let s: f32 = p[3].parse().unwrap();
            (s, s + p[4].parse::<f32>().unwrap(), p[7].to_string())
        })
        .collect();
    let regions = vad::detect(&samples, &VadSettings::default());
    for penalty in [2.0, 4.0, 6.0, 8.0, 12.0] {
        let d = diarize(&samples, &regions, &DiarizeSettings { max_speakers: 4, bic_penalty: penalty });
        // Confusion only, over reference single-speaker frames, best of two mappings.
        let mut agree = [0usize; 2];
        let mut total = 0;
        for f in 0..(samples.len() / 160) {
            let t = f as f32 / 100.0;
            let who: Vec<&String> = refs.iter().filter(|r| r.0 <= t && t < r.1).map(|r| &r.2).collect();
            if who.len() != 1 {
                continue;
            }
            total += 1;
            let h = d.speaker_at(t, t);
            let r = if who[0] == "speaker90" { 0 } else { 1 };
            if h == r { agree[0] += 1 } else if h == 1 - r { agree[1] += 1 }
        }
        println!("penalty {penalty}: speakers {}, confusion {:.1}%", d.speakers(), 100.0 * (1.0 - *agree.iter().max().unwrap() as f64 / total as f64));
    }
}
