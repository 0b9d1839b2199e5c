//! What a stretch of a decoded signal sounds like, without words: how loud it is, and whether
//! a pause nobody talks in holds silence, music or tones, or some other sound.
//!
//! A pause is read in frames of 32 ms. A frame is *active* when it is louder than a level the
//! caller gives (some way under the call's speech, so that line hiss stays silence). Of the
//! active frames, a *tonal* one has a peaky spectrum (a low spectral flatness: tones, notes,
//! voiced sound; noise is flat), and a *steady* one has much the same spectrum as the active
//! frame before it (its log power spectrum correlates with that one's at 0.9 or more). Music and tones are tonal and steady; speech is tonal but its pitch and
//! vowels keep moving, so few of its frames are steady; noise is neither. Everything is read a
//! second at a time, so a pause of an hour on hold costs no more memory than one of a minute.

use std::io;
use std::ops::Range;
use std::sync::Arc;

use rustfft::num_complex::Complex32;
use rustfft::{Fft, FftPlanner};

use crate::{SampleSource, TARGET_RATE};

/// Samples per analysed frame: 32 ms at 16 kHz.
const FRAME: usize = 512;
/// Frames read at once.
const FRAMES_PER_READ: usize = 32;
/// The band the spectrum is judged in, as FFT bins of 31.25 Hz: 125 Hz to 4 kHz, what a phone
/// line carries.
const BAND: Range<usize> = 4..129;
/// A frame whose spectral flatness is under this is tonal (white noise is about 0.56).
const TONAL_FLATNESS: f64 = 0.2;
/// A frame whose log power spectrum correlates at least this well with the active frame's
/// before it is steady. Measured on speech (a recorded meeting, 3 s windows): 3–20 % of its
/// frames are steady; synthetic chords and ringing: 99–100 %.
const STEADY_CORRELATION: f64 = 0.9;
/// Under this share of active frames, a pause is silence.
const SILENT_ACTIVE_SHARE: f64 = 0.1;
/// A pause is music or tones when at least these shares of its active frames are tonal and
/// steady.
const MUSIC_TONAL_SHARE: f64 = 0.6;
const MUSIC_STEADY_SHARE: f64 = 0.5;
/// The level reported for digital silence, which has none.
const FLOOR_DB: f64 = -100.0;

/// A mean square as a level in dBFS (a full-scale square wave is 0 dB, a full-scale sine −3 dB).
pub fn level_db(mean_square: f64) -> f64 {
    if mean_square <= 0.0 {
        FLOOR_DB
    } else {
        (10.0 * mean_square.log10()).max(FLOOR_DB)
    }
}

/// Sums the energy of stretches of a signal, for their level together.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct LevelMeter {
    energy: f64,
    samples: u64,
}

impl LevelMeter {
    /// Adds the samples in `range` of `source` (a range past its end is cut short).
    ///
    /// # Errors
    /// The file behind the source cannot be read.
    pub fn add(&mut self, source: &(impl SampleSource + ?Sized), range: Range<usize>) -> io::Result<()> {
        let mut at = range.start;
        while at < range.end.min(source.sample_count()) {
            let samples = source.window(at..range.end.min(at + FRAME * FRAMES_PER_READ))?;
            if samples.is_empty() {
                break;
            }
            self.energy += samples.iter().map(|&s| f64::from(s) * f64::from(s)).sum::<f64>();
            self.samples += samples.len() as u64;
            at += samples.len();
        }
        Ok(())
    }

    /// The level of everything added, in dBFS; `None` when nothing was.
    pub fn level_db(&self) -> Option<f64> {
        (self.samples > 0).then(|| level_db(self.energy / self.samples as f64))
    }
}

/// The sample index of a moment in milliseconds, at the decoded rate.
pub fn sample_at(ms: i64) -> usize {
    usize::try_from(ms.max(0)).unwrap_or(0) * (TARGET_RATE as usize / 1000)
}

/// What the frames of a pause were like.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PauseProfile {
    /// Share of the frames louder than the level asked for.
    pub active_share: f64,
    /// Share of the active frames with a peaky spectrum.
    pub tonal_share: f64,
    /// Share of the active frames whose spectrum is much the same as the one before.
    pub steady_share: f64,
}

impl PauseProfile {
    /// Too little sound to be anything but silence (or a click in it).
    pub fn is_silence(&self) -> bool {
        self.active_share < SILENT_ACTIVE_SHARE
    }

    /// Sound that holds its notes: music, ringing, tones.
    pub fn is_music(&self) -> bool {
        !self.is_silence() && self.tonal_share >= MUSIC_TONAL_SHARE && self.steady_share >= MUSIC_STEADY_SHARE
    }
}

/// Reads pauses, reusing its FFT and buffers.
pub struct PauseListener {
    fft: Arc<dyn Fft<f32>>,
    window: Vec<f32>,
    buffer: Vec<Complex32>,
}

impl Default for PauseListener {
    fn default() -> Self {
        let window = (0..FRAME).map(|i| (0.5 - 0.5 * (2.0 * std::f64::consts::PI * i as f64 / FRAME as f64).cos()) as f32).collect();
        Self { fft: FftPlanner::new().plan_fft_forward(FRAME), window, buffer: vec![Complex32::default(); FRAME] }
    }
}

impl PauseListener {
    /// The profile of `range` of `source`, a frame counting as active above `active_above_db`.
    ///
    /// # Errors
    /// The file behind the source cannot be read.
    pub fn profile(&mut self, source: &(impl SampleSource + ?Sized), range: Range<usize>, active_above_db: f64) -> io::Result<PauseProfile> {
        let end = range.end.min(source.sample_count());
        let (mut frames, mut active, mut tonal, mut steady) = (0usize, 0usize, 0usize, 0usize);
        let mut previous: Option<Vec<f64>> = None;
        let mut at = range.start;
        while at + FRAME <= end {
            let chunk = source.window(at..end.min(at + FRAME * FRAMES_PER_READ))?;
            for frame in chunk.chunks_exact(FRAME) {
                frames += 1;
                let mean_square = frame.iter().map(|&s| f64::from(s) * f64::from(s)).sum::<f64>() / FRAME as f64;
                if level_db(mean_square) <= active_above_db {
                    continue;
                }
                active += 1;
                let magnitudes = self.magnitudes(frame);
                if flatness(&magnitudes) < TONAL_FLATNESS {
                    tonal += 1;
                }
                let log_power: Vec<f64> = magnitudes.iter().map(|m| (m * m + 1e-12).ln()).collect();
                if previous.as_deref().is_some_and(|p| correlation(p, &log_power) >= STEADY_CORRELATION) {
                    steady += 1;
                }
                previous = Some(log_power);
            }
            // A chunk shorter than a frame is the end of the range.
            at += (chunk.len() / FRAME).max(1) * FRAME;
        }
        let of = |part: usize, whole: usize| if whole == 0 { 0.0 } else { part as f64 / whole as f64 };
        Ok(PauseProfile { active_share: of(active, frames), tonal_share: of(tonal, active), steady_share: of(steady, active) })
    }

    /// The magnitude spectrum of a windowed frame over [`BAND`].
    fn magnitudes(&mut self, frame: &[f32]) -> Vec<f64> {
        for ((slot, &sample), &weight) in self.buffer.iter_mut().zip(frame).zip(&self.window) {
            *slot = Complex32::new(sample * weight, 0.0);
        }
        self.fft.process(&mut self.buffer);
        self.buffer[BAND].iter().map(|c| f64::from(c.norm())).collect()
    }
}

/// Geometric over arithmetic mean of the power spectrum: near 0 for a few peaks, about 0.56 for
/// white noise.
fn flatness(magnitudes: &[f64]) -> f64 {
    let powers = magnitudes.iter().map(|m| m * m + 1e-12);
    let n = magnitudes.len() as f64;
    let (log_sum, sum) = powers.fold((0.0, 0.0), |(l, s), p| (l + p.ln(), s + p));
    (log_sum / n).exp() / (sum / n)
}

/// Pearson's correlation of two spectra: how far they rise and fall together, whatever their
/// levels.
fn correlation(a: &[f64], b: &[f64]) -> f64 {
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len().max(1) as f64;
    let (mean_a, mean_b) = (mean(a), mean(b));
    let (mut covariance, mut spread_a, mut spread_b) = (0.0, 0.0, 0.0);
    for (x, y) in a.iter().zip(b) {
        covariance += (x - mean_a) * (y - mean_b);
        spread_a += (x - mean_a).powi(2);
        spread_b += (y - mean_b).powi(2);
    }
    let denominator = (spread_a * spread_b).sqrt();
    if denominator == 0.0 {
        0.0
    } else {
        covariance / denominator
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::f64::consts::TAU;

    const RATE: f64 = TARGET_RATE as f64;

    /// A deterministic noise in −1..1 (no random crate needed for a test signal).
    fn noise(len: usize, amplitude: f64) -> Vec<f32> {
        let mut state: u32 = 0x9E37_79B9;
        (0..len)
            .map(|_| {
                state ^= state << 13;
                state ^= state >> 17;
                state ^= state << 5;
                (amplitude * (f64::from(state) / f64::from(u32::MAX) * 2.0 - 1.0)) as f32
            })
            .collect()
    }

    /// Hold music: three-note chords, a new one every 0.4 s.
    fn music(seconds: f64, amplitude: f64) -> Vec<f32> {
        let chords = [[261.6, 329.6, 392.0], [293.7, 370.0, 440.0], [329.6, 415.3, 493.9], [220.0, 277.2, 329.6]];
        (0..(seconds * RATE) as usize)
            .map(|i| {
                let t = i as f64 / RATE;
                let chord = chords[(t / 0.4) as usize % chords.len()];
                (amplitude / 3.0 * chord.iter().map(|f| (TAU * f * t).sin()).sum::<f64>()) as f32
            })
            .collect()
    }

    /// A ringing tone: 425 Hz, a second on and four off (the Polish ringback).
    fn ringback(seconds: f64, amplitude: f64) -> Vec<f32> {
        (0..(seconds * RATE) as usize)
            .map(|i| {
                let t = i as f64 / RATE;
                if t % 5.0 < 1.0 {
                    (amplitude * (TAU * 425.0 * t).sin()) as f32
                } else {
                    0.0
                }
            })
            .collect()
    }

    /// Something like a voice: a pitch that keeps moving, with harmonics, in syllables.
    fn voice(seconds: f64, amplitude: f64) -> Vec<f32> {
        let mut phase = 0.0;
        (0..(seconds * RATE) as usize)
            .map(|i| {
                let t = i as f64 / RATE;
                let pitch = 150.0 + 40.0 * (TAU * 3.0 * t).sin() + 20.0 * (TAU * 0.7 * t).sin();
                phase += TAU * pitch / RATE;
                let harmonics: f64 = (1..=20).map(|k| (k as f64 * phase).sin() / k as f64).sum();
                let syllables = (0.5 - 0.5 * (TAU * 4.0 * t).cos()).powi(2);
                (amplitude * 0.4 * harmonics * syllables) as f32
            })
            .collect()
    }

    fn profile(signal: &[f32]) -> PauseProfile {
        PauseListener::default().profile(signal, 0..signal.len(), -45.0).unwrap()
    }

    #[test]
    fn levels_are_in_dbfs() {
        let sine: Vec<f32> = (0..16_000).map(|i| (0.1 * (TAU * 440.0 * i as f64 / RATE).sin()) as f32).collect();
        let mut meter = LevelMeter::default();
        meter.add(sine.as_slice(), 0..sine.len()).unwrap();
        // A sine at 0.1 of full scale: 20·log10(0.1/√2) = −23.0 dB.
        assert!((meter.level_db().unwrap() + 23.01).abs() < 0.05, "{:?}", meter.level_db());
        assert_eq!(LevelMeter::default().level_db(), None);
        let mut quiet = LevelMeter::default();
        quiet.add(vec![0.0f32; 100].as_slice(), 0..100).unwrap();
        assert_eq!(quiet.level_db(), Some(-100.0));
        // A range past the end is cut short, not an error.
        let mut cut = LevelMeter::default();
        cut.add(sine.as_slice(), 15_000..40_000).unwrap();
        assert!(cut.level_db().is_some());
    }

    #[test]
    fn silence_and_line_hiss_are_silence() {
        assert!(profile(&vec![0.0; 48_000]).is_silence());
        // Hiss at −60 dBFS, under the −45 dB the caller counts as sound.
        let hiss = noise(48_000, 0.0017);
        assert!(profile(&hiss).is_silence(), "{:?}", profile(&hiss));
    }

    #[test]
    fn music_and_ringing_are_music() {
        let chords = profile(&music(6.0, 0.1));
        assert!(chords.is_music(), "{chords:?}");
        let ringing = profile(&ringback(10.0, 0.1));
        assert!(!ringing.is_silence() && ringing.is_music(), "{ringing:?}");
    }

    #[test]
    fn noise_and_a_voice_are_other_sound() {
        let hum = profile(&noise(48_000, 0.1));
        assert!(!hum.is_silence() && !hum.is_music(), "{hum:?}");
        let talk = profile(&voice(6.0, 0.1));
        assert!(!talk.is_silence() && !talk.is_music(), "{talk:?}");
    }

    #[test]
    fn a_range_shorter_than_a_frame_or_past_the_end_is_silence() {
        let tone = music(1.0, 0.1);
        assert!(profile(&tone[..100]).is_silence());
        let past = PauseListener::default().profile(tone.as_slice(), 20_000..30_000, -45.0).unwrap();
        assert_eq!(past.active_share, 0.0);
    }
}
