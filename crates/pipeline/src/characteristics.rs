//! A call's characteristics: what the words' timing tells ([`CallCharacteristics::from_words`]),
//! with what only the audio can add, heard while the signals are still here: each speaker's
//! loudness over the call and per quarter, and what fills each long pause.

use callscope_audio::acoustics::{sample_at, LevelMeter, PauseListener};
use callscope_audio::SampleSource;
use callscope_domain::{quarter_of, talk_spans, CallCharacteristics, PauseSound, TimedWord};

/// A pause frame is sound when it is within this many decibels of the call's speech …
const PAUSE_SOUND_BELOW_SPEECH_DB: f64 = 25.0;
/// … and never quieter than this, nor need it be louder than the other bound (a call whose
/// speech could not be measured is taken to talk at −20 dBFS).
const PAUSE_SOUND_DB: std::ops::RangeInclusive<f64> = -60.0..=-40.0;
const UNMEASURED_SPEECH_DB: f64 = -20.0;

/// The characteristics of a call of `duration_ms` from its `words` and its signals: one per
/// speaker when `per_channel` (speaker *n* on signal *n*), otherwise one that holds everyone.
///
/// # Errors
/// A signal's scratch file cannot be read.
pub fn measure<S: SampleSource>(words: &[TimedWord], signals: &[S], per_channel: bool, duration_ms: i64) -> std::io::Result<CallCharacteristics> {
    // Two channels that carry the same recording are one signal.
    let signals = if per_channel { signals } else { &signals[..signals.len().min(1)] };
    let mut characteristics = CallCharacteristics::from_words(words, duration_ms);
    let duration_ms = characteristics.duration_ms;
    let signal_of = |speaker: usize| if per_channel { signals.get(speaker) } else { signals.first() };

    // Loudness: each speaker's stretches of talk, on their signal, over the call and cut at
    // the quarters.
    let spans = talk_spans(words, duration_ms);
    let speaker_count = spans.iter().map(|s| s.0 + 1).max().unwrap_or(0);
    let mut overall = vec![LevelMeter::default(); speaker_count];
    let mut quarters = vec![[LevelMeter::default(); 4]; speaker_count];
    for &(speaker, start, end) in &spans {
        let Some(signal) = signal_of(speaker) else { continue };
        overall[speaker].add(signal, sample_at(start)..sample_at(end))?;
        let mut at = start;
        while at < end {
            let quarter = quarter_of(at, duration_ms);
            let quarter_end = (duration_ms * (quarter as i64 + 1) / 4).clamp(at + 1, end);
            quarters[speaker][quarter].add(signal, sample_at(at)..sample_at(quarter_end))?;
            at = quarter_end;
        }
    }
    let mut speech_levels = Vec::new();
    for speaker in 0..speaker_count {
        let level = overall[speaker].level_db();
        speech_levels.extend(level);
        characteristics.set_loudness(speaker, level, quarters[speaker].map(|q| q.level_db()));
    }

    // The pauses, against the quietest speaker: what is well under everyone's talk is silence.
    let speech_db = speech_levels.iter().copied().reduce(f64::min).unwrap_or(UNMEASURED_SPEECH_DB);
    let sound_above = (speech_db - PAUSE_SOUND_BELOW_SPEECH_DB).clamp(*PAUSE_SOUND_DB.start(), *PAUSE_SOUND_DB.end());
    let mut listener = PauseListener::default();
    let mut sounds = Vec::with_capacity(characteristics.non_talk_stretches.len());
    for stretch in &characteristics.non_talk_stretches {
        let range = sample_at(stretch.start_ms)..sample_at(stretch.end_ms);
        // On a stereo call the music may be on either side: what any channel holds.
        let mut sound = PauseSound::Silence;
        for signal in signals {
            let profile = listener.profile(signal, range.clone(), sound_above)?;
            if profile.is_music() {
                sound = PauseSound::Music;
                break;
            }
            if !profile.is_silence() {
                sound = PauseSound::Other;
            }
        }
        sounds.push(sound);
    }
    characteristics.set_pause_sounds(&sounds);
    Ok(characteristics)
}

#[cfg(test)]
mod tests {
    use super::*;
    use callscope_audio::Signal;
    use std::f64::consts::TAU;

    const RATE: f64 = 16_000.0;

    /// A voice-like sound (a moving pitch with harmonics, in syllables) at RMS `level_db`.
    fn voice_into(signal: &mut [f32], from_s: f64, to_s: f64, level_db: f64, pitch: f64) {
        let mut raw = Vec::new();
        let mut phase = 0.0;
        for i in (from_s * RATE) as usize..(to_s * RATE) as usize {
            let t = i as f64 / RATE;
            phase += TAU * (pitch + 30.0 * (TAU * 3.0 * t).sin()) / RATE;
            let harmonics: f64 = (1..=15).map(|k| (k as f64 * phase).sin() / k as f64).sum();
            raw.push(harmonics * (0.6 + 0.4 * (TAU * 4.0 * t).sin()));
        }
        let rms = (raw.iter().map(|x| x * x).sum::<f64>() / raw.len() as f64).sqrt();
        let gain = 10f64.powf(level_db / 20.0) / rms;
        for (slot, x) in signal[(from_s * RATE) as usize..].iter_mut().zip(raw) {
            *slot = (x * gain) as f32;
        }
    }

    /// Hold music: chords changing every 0.4 s.
    fn music_into(signal: &mut [f32], from_s: f64, to_s: f64) {
        let chords = [[261.6, 329.6, 392.0], [293.7, 370.0, 440.0], [220.0, 277.2, 329.6]];
        let from = (from_s * RATE) as usize;
        for (i, slot) in signal[from..(to_s * RATE) as usize].iter_mut().enumerate() {
            let t = (from + i) as f64 / RATE;
            let chord = chords[(t / 0.4) as usize % chords.len()];
            *slot = (0.03 * chord.iter().map(|f| (TAU * f * t).sin()).sum::<f64>()) as f32;
        }
    }

    /// Words of `speaker` every 0.4 s over `from_s..to_s`.
    fn words(speaker: usize, from_s: f64, to_s: f64) -> Vec<TimedWord> {
        let mut out = Vec::new();
        let mut at = (from_s * 1000.0) as i64;
        while at + 300 <= (to_s * 1000.0) as i64 {
            out.push(TimedWord { text: "word".into(), start_ms: at, end_ms: at + 300, speaker, confidence: Some(0.9) });
            at += 400;
        }
        out
    }

    /// A generated stereo call of 60 s. The agent (left, −18 dBFS, −12 dBFS in the last
    /// quarter) talks 0–10 s; the customer (right, −30 dBFS) 10.2–20 s; 20–35 s hold music on
    /// the agent's side; the agent 35–45 s, the customer cutting in at 42 s and talking to
    /// 50 s; then 10 s of silence.
    #[test]
    fn a_generated_call_with_known_pauses_overlap_and_levels_measures_as_made() {
        let mut agent = vec![0.0f32; 60 * 16_000];
        let mut customer = vec![0.0f32; 60 * 16_000];
        voice_into(&mut agent, 0.0, 10.0, -18.0, 140.0);
        voice_into(&mut customer, 10.2, 20.0, -30.0, 210.0);
        music_into(&mut agent, 20.0, 35.0);
        voice_into(&mut agent, 35.0, 45.0, -18.0, 140.0);
        voice_into(&mut agent, 45.0, 46.0, -12.0, 140.0);
        voice_into(&mut customer, 42.0, 50.0, -30.0, 210.0);
        let mut said = words(0, 0.0, 10.0);
        said.extend(words(1, 10.2, 20.0));
        said.extend(words(0, 35.0, 46.0));
        said.extend(words(1, 42.0, 50.0));
        said.sort_by_key(|w| w.start_ms);
        let signals = [Signal::from_samples(agent), Signal::from_samples(customer)];

        let c = measure(&said, &signals, true, 60_000).unwrap();
        let pauses: Vec<(i64, i64, Option<PauseSound>)> = c.non_talk_stretches.iter().map(|s| (s.start_ms, s.end_ms, s.sound)).collect();
        // Words take 0.3 s of each 0.4 s: the customer's last before 20 s is said 19.4–19.7 s.
        assert_eq!(pauses, vec![(19_700, 35_000, Some(PauseSound::Music)), (49_900, 60_000, Some(PauseSound::Silence))]);
        assert_eq!(c.music_ms, Some(15_300));
        assert_eq!(c.silence_ms, Some(10_100));
        assert_eq!(c.interruption_count, 1);
        let cut = &c.interruptions[0];
        assert_eq!((cut.at_ms, cut.speaker_id.as_str(), cut.interrupted_speaker_id.as_str()), (42_000, "speaker_2", "speaker_1"));
        let [agent, customer] = [&c.speakers[0], &c.speakers[1]];
        let loud = |db: Option<f64>, want: f64| db.is_some_and(|db| (db - want).abs() < 1.5);
        assert!(loud(customer.loudness_db, -30.0), "{customer:?}");
        // The agent's last quarter (45–60 s) holds the louder second.
        assert!(loud(agent.loudness_by_quarter_db[0], -18.0) && loud(agent.loudness_by_quarter_db[3], -12.0), "{agent:?}");
        assert_eq!(agent.loudness_by_quarter_db[1], None, "the agent says nothing from 15 to 30 s");
        assert!(customer.loudness_by_quarter_db.iter().all(|&q| loud(q, -30.0)), "{customer:?}");
        // 150 words a minute: a word every 0.4 s.
        assert!(agent.words_per_minute.is_some_and(|w| (w - 150.0).abs() < 5.0), "{agent:?}");
    }

    /// On a mono call (one signal for both), the same pause sounds are found.
    #[test]
    fn a_mono_call_is_heard_on_its_one_signal() {
        let mut mixed = vec![0.0f32; 30 * 16_000];
        voice_into(&mut mixed, 0.0, 8.0, -20.0, 140.0);
        music_into(&mut mixed, 8.0, 20.0);
        voice_into(&mut mixed, 20.0, 30.0, -24.0, 210.0);
        let mut said = words(0, 0.0, 8.0);
        said.extend(words(1, 20.0, 30.0));
        let c = measure(&said, &[Signal::from_samples(mixed)], false, 30_000).unwrap();
        assert_eq!(c.non_talk_stretches.len(), 1);
        assert_eq!(c.non_talk_stretches[0].sound, Some(PauseSound::Music));
        assert!(c.speakers[1].loudness_db.is_some_and(|db| (db + 24.0).abs() < 1.5), "{:?}", c.speakers[1]);
    }
}
