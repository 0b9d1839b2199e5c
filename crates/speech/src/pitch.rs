//! The pitch (fundamental frequency) of each 10 ms frame, for the diarizer.
//!
//! MFCCs describe the vocal tract and throw the pitch away, so two voices with similar formants
//! (two people of the same sex and accent, or one synthetic voice at two pitches) look alike to
//! them, while their pitch differs by several semitones. The estimate is the classic normalised
//! cross-correlation: at 8 kHz (what a telephone carries), over a 30 ms window, the lag between
//! 2.5 ms (400 Hz) and 16.7 ms (60 Hz) at which the signal best matches itself. The shortest lag
//! within 15 % of the best match wins, so that two periods (an octave down) are not taken for
//! one. A frame whose best match is weak is unvoiced.

use callscope_audio::SampleSource;

use crate::mel::{FRAMES_PER_READ, HOP, SAMPLE_RATE};

/// The estimate works on every second sample (8 kHz).
const DECIMATION: usize = 2;
const RATE: f32 = (SAMPLE_RATE / DECIMATION) as f32;
/// Samples of the 8 kHz signal compared (30 ms).
const WINDOW: usize = 240;
/// Shortest lag (400 Hz) and longest (60 Hz), in 8 kHz samples.
const MIN_LAG: usize = 20;
const MAX_LAG: usize = 133;
/// Normalised correlation a frame needs to count as voiced.
const VOICED: f32 = 0.6;
/// A shorter lag within this share of the best correlation is taken instead of it.
const OCTAVE_TOLERANCE: f32 = 0.85;
/// Mean square (of samples in -1..1) under which a window is silence, not an unvoiced sound.
const SILENCE: f32 = 1e-7;

/// Pitch in semitones above 100 Hz (`None`: unvoiced or silent) of each 10 ms frame of
/// `samples` (16 kHz) listed in `frames`, in ascending order; other frames are `None`. The signal
/// is read a minute at a time.
///
/// # Errors
/// The signal's file cannot be read.
pub(crate) fn semitones<S: SampleSource + ?Sized>(samples: &S, frames: &[usize]) -> std::io::Result<Vec<Option<f32>>> {
    let len = samples.sample_count();
    let n_frames = len / HOP;
    let mut out = vec![None; n_frames];
    let span = (WINDOW + MAX_LAG) * DECIMATION;
    let mut rest = frames;
    while let Some(&first) = rest.first() {
        let last_in_read = first + FRAMES_PER_READ;
        let take = rest.partition_point(|&f| f < last_in_read);
        let (now, later) = rest.split_at(take);
        rest = later;
        let from = window_start(first);
        let to = (window_start(*now.last().expect("at least one frame")) + span).min(len);
        let heard = samples.window(from..to)?;
        let narrow: Vec<f32> = heard.chunks_exact(DECIMATION).map(|pair| pair.iter().sum::<f32>() / DECIMATION as f32).collect();
        for &frame in now.iter().filter(|&&f| f < n_frames) {
            let at = (window_start(frame) - from) / DECIMATION;
            out[frame] = narrow.get(at..at + WINDOW + MAX_LAG).and_then(pitch_of_window);
        }
    }
    Ok(out)
}

/// First 16 kHz sample of the window of `frame`, centred (as the MFCCs' are) on its hop.
fn window_start(frame: usize) -> usize {
    (frame * HOP).saturating_sub(WINDOW * DECIMATION / 2)
}

/// The pitch of a stretch of `WINDOW + MAX_LAG` samples at 8 kHz, in semitones above 100 Hz.
fn pitch_of_window(x: &[f32]) -> Option<f32> {
    let head = &x[..WINDOW];
    let energy: f32 = head.iter().map(|v| v * v).sum();
    if energy / (WINDOW as f32) < SILENCE {
        return None;
    }
    // The energy of the lagged window, kept up to date as the lag grows.
    let mut lagged: f32 = x[MIN_LAG..MIN_LAG + WINDOW].iter().map(|v| v * v).sum();
    let mut correlations = [0f32; MAX_LAG + 1];
    for lag in MIN_LAG..=MAX_LAG {
        if lag > MIN_LAG {
            lagged += x[lag + WINDOW - 1].powi(2) - x[lag - 1].powi(2);
        }
        let product: f32 = head.iter().zip(&x[lag..lag + WINDOW]).map(|(a, b)| a * b).sum();
        correlations[lag] = product / (energy * lagged.max(f32::MIN_POSITIVE)).sqrt();
    }
    let best = correlations[MIN_LAG..=MAX_LAG].iter().copied().fold(f32::MIN, f32::max);
    if best < VOICED {
        return None;
    }
    // The first peak close enough to the best: a period, not a multiple of it.
    let lag = (MIN_LAG..=MAX_LAG).find(|&lag| {
        let c = correlations[lag];
        let peak = c >= correlations[lag - 1] && (lag == MAX_LAG || c >= correlations[lag + 1]);
        peak && c >= OCTAVE_TOLERANCE * best
    })?;
    // A parabola through the peak and its neighbours places it between samples.
    let offset = if lag > MIN_LAG && lag < MAX_LAG {
        let (a, b, c) = (correlations[lag - 1], correlations[lag], correlations[lag + 1]);
        let curvature = a - 2.0 * b + c;
        if curvature < 0.0 {
            (0.5 * (a - c) / curvature).clamp(-0.5, 0.5)
        } else {
            0.0
        }
    } else {
        0.0
    };
    let hz = RATE / (lag as f32 + offset);
    Some(12.0 * (hz / 100.0).log2())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A voiced sound: harmonics of `hz` with falling amplitudes, a little noise.
    fn buzz(seconds: f32, hz: f32) -> Vec<f32> {
        let n = (seconds * SAMPLE_RATE as f32) as usize;
        let mut seed = 7u32;
        (0..n)
            .map(|i| {
                seed = seed.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
                let t = i as f32 / SAMPLE_RATE as f32;
                let voiced: f32 = (1..12).map(|h| (2.0 * std::f32::consts::PI * hz * h as f32 * t).sin() / h as f32).sum();
                0.1 * voiced + 0.002 * ((seed >> 8) as f32 / (1u32 << 24) as f32 - 0.5)
            })
            .collect()
    }

    fn hz(semitones: f32) -> f32 {
        100.0 * 2f32.powf(semitones / 12.0)
    }

    #[test]
    fn a_voice_s_pitch_is_found_within_a_few_percent() {
        for target in [85.0, 120.0, 210.0, 330.0] {
            let signal = buzz(1.0, target);
            let frames: Vec<usize> = (10..90).collect();
            let found = semitones(&signal, &frames).unwrap();
            let voiced: Vec<f32> = found.iter().flatten().map(|&s| hz(s)).collect();
            assert!(voiced.len() >= 75, "{target} Hz: {} of 80 frames voiced", voiced.len());
            assert!(voiced.iter().all(|f| (f / target - 1.0).abs() < 0.03), "{target} Hz: {voiced:?}");
        }
    }

    #[test]
    fn a_telephone_voice_without_its_fundamental_keeps_its_pitch() {
        // Harmonics 3 and up only (a telephone passes nothing under 300 Hz): the period is
        // still the fundamental's, not a harmonic's.
        let n = SAMPLE_RATE / 2;
        let signal: Vec<f32> = (0..n)
            .map(|i| {
                let t = i as f32 / SAMPLE_RATE as f32;
                (3..15).map(|h| (2.0 * std::f32::consts::PI * 110.0 * h as f32 * t).sin() / h as f32).sum::<f32>() * 0.1
            })
            .collect();
        let found = semitones(&signal, &(5..45).collect::<Vec<_>>()).unwrap();
        let voiced: Vec<f32> = found.iter().flatten().map(|&s| hz(s)).collect();
        assert!(voiced.len() >= 35 && voiced.iter().all(|f| (f / 110.0 - 1.0).abs() < 0.03), "{voiced:?}");
    }

    #[test]
    fn silence_and_noise_have_no_pitch_and_unlisted_frames_none() {
        let mut seed = 1u32;
        let noise: Vec<f32> = (0..SAMPLE_RATE)
            .map(|_| {
                seed = seed.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
                (seed >> 8) as f32 / (1u32 << 24) as f32 - 0.5
            })
            .collect();
        let mut signal = vec![0.0; SAMPLE_RATE];
        signal.extend(&noise);
        signal.extend(buzz(1.0, 150.0));
        let found = semitones(&signal, &[20, 50, 120, 150, 250]).unwrap();
        assert_eq!(found.len(), 300);
        assert_eq!(found[20], None, "silence");
        assert_eq!(found[50], None, "silence");
        assert_eq!(found[120], None, "white noise");
        assert_eq!(found[150], None, "white noise");
        assert!(found[250].is_some_and(|s| (hz(s) / 150.0 - 1.0).abs() < 0.03), "{:?}", found[250]);
        assert!(found.iter().enumerate().all(|(i, s)| s.is_none() || i == 250), "only listed frames are estimated");
    }

    #[test]
    fn frames_across_many_reads_are_estimated_as_one() {
        // Over a minute and a half: three reads; the estimate must not depend on where one ends.
        let signal = buzz(90.0, 140.0);
        let frames: Vec<usize> = (0..signal.len() / HOP).step_by(7).collect();
        let found = semitones(&signal, &frames).unwrap();
        let voiced = frames.iter().filter(|&&f| found[f].is_some_and(|s| (hz(s) / 140.0 - 1.0).abs() < 0.03)).count();
        assert!(voiced + 2 >= frames.len(), "{voiced} of {}", frames.len());
    }
}
