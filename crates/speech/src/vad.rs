//! Voice activity detection: which stretches of a 16 kHz signal hold speech.
//!
//! An energy detector with a floor that adapts to the recording: frame energies (after a
//! pre-emphasis that removes hum and rumble) are compared with the recording's own noise floor
//! and speech level, with hysteresis, a minimum speech length, gap bridging and padding. Silence
//! never reaches Whisper, which is where its hallucinations ("Thank you for watching") come
//! from, and skipping it is most of the speed-up on phone calls, which are often half silence.

use callscope_audio::SampleSource;

use crate::mel::{FRAMES_PER_READ, SAMPLE_RATE};
use crate::SpeechError;

/// A stretch of speech, in samples from the start of the signal.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Region {
    /// First sample.
    pub start: usize,
    /// One past the last sample.
    pub end: usize,
}

impl Region {
    /// Length in samples.
    pub fn len(&self) -> usize {
        self.end - self.start
    }

    /// Whether it is empty.
    pub fn is_empty(&self) -> bool {
        self.end <= self.start
    }
}

/// Settings of the detector.
#[derive(Debug, Clone, Copy)]
pub struct VadSettings {
    /// Frames quieter than this (dB relative to full scale) are never speech.
    pub absolute_floor_db: f32,
    /// A frame must be at least this far above the noise floor to start speech.
    pub min_rise_db: f32,
    /// Speech shorter than this is dropped (ms).
    pub min_speech_ms: usize,
    /// Pauses shorter than this are bridged (ms).
    pub min_silence_ms: usize,
    /// Padding added on both sides of each region (ms).
    pub pad_ms: usize,
    /// Speech probability at which the Silero network's speech starts (it ends 0.15 lower).
    pub speech_threshold: f32,
}

impl Default for VadSettings {
    fn default() -> Self {
        Self::FOR_WHISPER
    }
}

impl VadSettings {
    /// Speech with room around it and short pauses bridged, for Whisper's windows (the default).
    pub const FOR_WHISPER: VadSettings =
        VadSettings { absolute_floor_db: -55.0, min_rise_db: 9.0, min_speech_ms: 200, min_silence_ms: 350, pad_ms: 200, speech_threshold: 0.5 };

    /// The speech alone, for speaker diarization: no padding, pauses of a quarter second
    /// kept apart.
    pub const SPEECH_ONLY: VadSettings = VadSettings { min_silence_ms: 250, pad_ms: 0, ..Self::FOR_WHISPER };
}

/// Frame length and hop of the detector.
const FRAME: usize = SAMPLE_RATE / 50; // 20 ms
const HOP: usize = SAMPLE_RATE / 100; // 10 ms

/// Energy per 10 ms hop (20 ms frames), in dB relative to full scale, after pre-emphasis. The
/// signal is read a minute at a time.
///
/// # Errors
/// The signal's file cannot be read.
pub fn frame_energies_db<S: SampleSource + ?Sized>(samples: &S) -> std::io::Result<Vec<f32>> {
    let len = samples.sample_count();
    if len < FRAME {
        return Ok(Vec::new());
    }
    let frames = (len - FRAME) / HOP + 1;
    let mut energies = Vec::with_capacity(frames);
    for first in (0..frames).step_by(FRAMES_PER_READ) {
        let last = (first + FRAMES_PER_READ).min(frames);
        let block = samples.window(first * HOP..(last - 1) * HOP + FRAME)?;
        energies.extend((0..last - first).map(|f| {
            let s = &block[f * HOP..f * HOP + FRAME];
            let mut prev = s[0];
            let mut sum = 0f64;
            for &x in &s[1..] {
                let y = x - 0.97 * prev;
                prev = x;
                sum += f64::from(y * y);
            }
            (10.0 * (sum / (FRAME - 1) as f64 + 1e-12).log10()) as f32
        }));
    }
    Ok(energies)
}

fn percentile(sorted: &[f32], p: f32) -> f32 {
    let i = ((sorted.len() - 1) as f32 * p).round() as usize;
    sorted[i]
}

/// The speech regions of `samples` (16 kHz mono) by frame energy, in order, not overlapping.
///
/// # Errors
/// The signal's file cannot be read.
pub fn detect<S: SampleSource + ?Sized>(samples: &S, settings: &VadSettings) -> std::io::Result<Vec<Region>> {
    Ok(shape(&energy_speech(samples, settings)?, samples.sample_count(), settings))
}

/// Where the frame energy says speech, before bridging, dropping and padding.
///
/// # Errors
/// The signal's file cannot be read.
pub fn energy_speech<S: SampleSource + ?Sized>(samples: &S, settings: &VadSettings) -> std::io::Result<Vec<Region>> {
    let energies = frame_energies_db(samples)?;
    if energies.is_empty() {
        return Ok(Vec::new());
    }
    let mut sorted = energies.clone();
    sorted.sort_by(f32::total_cmp);
    let floor = percentile(&sorted, 0.10);
    let loud = percentile(&sorted, 0.95);
    // Where the recording is speech throughout, its 10th percentile is speech too; the absolute
    // floor keeps the threshold from rising above real speech then.
    let on = (floor + settings.min_rise_db.max(0.3 * (loud - floor))).min(loud - 3.0).max(settings.absolute_floor_db);
    let off = (on - 4.0).max(settings.absolute_floor_db);
    let len = samples.sample_count();
    Ok(hysteresis(&energies, on, off).into_iter().map(|(s, e)| Region { start: s * HOP, end: (e * HOP + FRAME).min(len) }).collect())
}

/// Runs of frames that rise to `on` and last until they fall below `off`, as frame ranges.
pub(crate) fn hysteresis(scores: &[f32], on: f32, off: f32) -> Vec<(usize, usize)> {
    let mut runs = Vec::new();
    let mut start: Option<usize> = None;
    for (f, &x) in scores.iter().enumerate() {
        match start {
            None if x >= on => start = Some(f),
            Some(s) if x < off => {
                runs.push((s, f));
                start = None;
            }
            _ => {}
        }
    }
    if let Some(s) = start {
        runs.push((s, scores.len()));
    }
    runs
}

/// Turns a detector's raw speech into regions: pauses shorter than `min_silence_ms` bridged,
/// speech shorter than `min_speech_ms` dropped, `pad_ms` added on both sides (within the
/// signal's `len` samples), overlaps merged.
pub fn shape(raw: &[Region], len: usize, settings: &VadSettings) -> Vec<Region> {
    let ms = |ms: usize| ms * SAMPLE_RATE / 1000;
    let mut merged: Vec<Region> = Vec::new();
    for r in raw {
        match merged.last_mut() {
            Some(last) if r.start.saturating_sub(last.end) < ms(settings.min_silence_ms) => last.end = last.end.max(r.end),
            _ => merged.push(*r),
        }
    }
    merged.retain(|r| r.len() >= ms(settings.min_speech_ms));
    let pad = ms(settings.pad_ms);
    let mut out: Vec<Region> = Vec::new();
    for r in merged {
        let start = r.start.saturating_sub(pad);
        let end = (r.end + pad).min(len);
        match out.last_mut() {
            Some(last) if start <= last.end => last.end = end,
            _ => out.push(Region { start, end }),
        }
    }
    out
}

/// A voice activity detector.
#[derive(Debug, Clone)]
pub enum Vad {
    /// Frame energy against the recording's own noise floor: no model, fooled by loud noise and
    /// deaf to quiet speakers.
    Energy,
    /// The Silero network: speech probability per 32 ms, robust to noise and level.
    Silero(std::sync::Arc<crate::silero::SileroVad>),
}

impl Vad {
    /// Raw speech of `samples` (16 kHz mono), to be given its final form by [`shape`].
    ///
    /// # Errors
    /// The signal's file cannot be read.
    pub fn speech<S: SampleSource + ?Sized>(&self, samples: &S, settings: &VadSettings) -> Result<Vec<Region>, SpeechError> {
        Ok(match self {
            Vad::Energy => energy_speech(samples, settings)?,
            Vad::Silero(model) => {
                let probabilities = model.probabilities(samples)?;
                let on = settings.speech_threshold;
                let len = samples.sample_count();
                hysteresis(&probabilities, on, (on - 0.15).max(0.01))
                    .into_iter()
                    .map(|(s, e)| Region { start: s * crate::silero::CHUNK, end: (e * crate::silero::CHUNK).min(len) })
                    .collect()
            }
        })
    }

    /// Which detector this is, for logs and results.
    pub fn name(&self) -> &'static str {
        match self {
            Vad::Energy => "energy",
            Vad::Silero(_) => "silero",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn noise(n: usize, amplitude: f32, seed: &mut u32) -> Vec<f32> {
        (0..n)
            .map(|_| {
                *seed = seed.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
                (*seed >> 8) as f32 / (1u32 << 24) as f32 * 2.0 - 1.0
            })
            .map(|x| x * amplitude)
            .collect()
    }

    /// Bursts of a voiced-like signal (harmonics of 150 Hz, amplitude-modulated at syllable rate).
    fn voice(n: usize) -> Vec<f32> {
        (0..n)
            .map(|i| {
                let t = i as f32 / SAMPLE_RATE as f32;
                let envelope = 0.5 + 0.5 * (2.0 * std::f32::consts::PI * 4.0 * t).sin().abs();
                let tone: f32 = (1..8).map(|h| (2.0 * std::f32::consts::PI * 150.0 * h as f32 * t).sin() / h as f32).sum();
                0.2 * envelope * tone
            })
            .collect()
    }

    #[test]
    fn finds_speech_between_stretches_of_line_noise() {
        let mut seed = 7;
        let mut signal = noise(SAMPLE_RATE * 2, 0.003, &mut seed);
        let speech_at = signal.len();
        let mut v = voice(SAMPLE_RATE * 3);
        for (x, n) in v.iter_mut().zip(noise(SAMPLE_RATE * 3, 0.003, &mut seed)) {
            *x += n;
        }
        signal.extend(v);
        signal.extend(noise(SAMPLE_RATE * 2, 0.003, &mut seed));
        let regions = detect(&signal, &VadSettings::default()).unwrap();
        assert_eq!(regions.len(), 1, "{regions:?}");
        let r = regions[0];
        let tolerance = SAMPLE_RATE / 3;
        assert!(r.start.abs_diff(speech_at) < tolerance, "{r:?}");
        assert!(r.end.abs_diff(speech_at + SAMPLE_RATE * 3) < tolerance, "{r:?}");
    }

    #[test]
    fn digital_silence_and_quiet_hiss_hold_no_speech() {
        assert!(detect(&vec![0.0; SAMPLE_RATE * 5], &VadSettings::default()).unwrap().is_empty());
        let mut seed = 1;
        assert!(detect(&noise(SAMPLE_RATE * 5, 0.0005, &mut seed), &VadSettings::default()).unwrap().is_empty());
    }

    #[test]
    fn speech_from_start_to_end_is_one_region() {
        let regions = detect(&voice(SAMPLE_RATE * 4), &VadSettings::default()).unwrap();
        assert_eq!(regions, vec![Region { start: 0, end: SAMPLE_RATE * 4 }]);
    }

    #[test]
    fn energies_read_a_block_at_a_time_are_those_of_the_whole() {
        let mut seed = 3;
        let signal = noise(SAMPLE_RATE * 150 + 77, 0.2, &mut seed);
        let whole: Vec<f32> = (0..(signal.len() - FRAME) / HOP + 1)
            .map(|f| {
                let s = &signal[f * HOP..f * HOP + FRAME];
                let sum: f64 = s.windows(2).map(|w| f64::from((w[1] - 0.97 * w[0]).powi(2))).sum();
                (10.0 * (sum / (FRAME - 1) as f64 + 1e-12).log10()) as f32
            })
            .collect();
        let blocked = frame_energies_db(&signal).unwrap();
        assert!(whole.len() > 2 * FRAMES_PER_READ, "several reads");
        assert_eq!(blocked.len(), whole.len());
        assert!(blocked.iter().zip(&whole).all(|(a, b)| (a - b).abs() < 1e-4));
    }

    #[test]
    fn hysteresis_starts_at_on_and_holds_until_below_off() {
        let scores = [0.1, 0.6, 0.4, 0.36, 0.2, 0.5, 0.9, 0.9];
        assert_eq!(hysteresis(&scores, 0.5, 0.35), vec![(1, 4), (5, 8)]);
        assert!(hysteresis(&[0.49; 10], 0.5, 0.35).is_empty());
    }

    #[test]
    fn shaping_bridges_short_pauses_drops_blips_and_pads_within_the_signal() {
        let ms = |ms: usize| ms * SAMPLE_RATE / 1000;
        let settings = VadSettings { min_speech_ms: 200, min_silence_ms: 300, pad_ms: 100, ..VadSettings::default() };
        let raw = [
            Region { start: ms(50), end: ms(500) },
            // A 200 ms pause: bridged.
            Region { start: ms(700), end: ms(1000) },
            // A 100 ms blip after a long pause: dropped.
            Region { start: ms(2000), end: ms(2100) },
            Region { start: ms(3000), end: ms(3950) },
        ];
        let shaped = shape(&raw, ms(4000), &settings);
        assert_eq!(shaped, vec![Region { start: 0, end: ms(1100) }, Region { start: ms(2900), end: ms(4000) }]);
        // Padding that makes two regions touch merges them.
        let wide = VadSettings { pad_ms: 1000, ..settings };
        assert_eq!(shape(&raw, ms(4000), &wide), vec![Region { start: 0, end: ms(4000) }]);
    }
}
