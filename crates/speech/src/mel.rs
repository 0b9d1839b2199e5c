//! Whisper's input features: an 80- (or 128-) band log-mel spectrogram of 16 kHz audio, 25 ms
//! Hann windows every 10 ms, computed the way the model was trained on (power spectrum, Slaney
//! mel filters, log10, clamped to 8 below the maximum, scaled to about -1..1).

use std::ops::Range;
use std::sync::Arc;

use rustfft::num_complex::Complex32;
use rustfft::{Fft, FftPlanner};

/// 10 ms frames computed from one read of a signal (about a minute) where a whole call's frames
/// are computed (voice detection's energies, diarization's features): what is held while
/// reading stays the same for any length of call.
pub const FRAMES_PER_READ: usize = 6_000;

/// Samples per second Whisper expects.
pub const SAMPLE_RATE: usize = 16_000;
/// FFT size (25 ms).
pub const N_FFT: usize = 400;
/// Hop between frames (10 ms).
pub const HOP: usize = 160;
/// Samples in one 30-second window.
pub const WINDOW_SAMPLES: usize = 30 * SAMPLE_RATE;
/// Frames in one 30-second window.
pub const WINDOW_FRAMES: usize = WINDOW_SAMPLES / HOP;

/// A mel filter bank: `n_mels` rows of `N_FFT / 2 + 1` weights.
#[derive(Debug, Clone, PartialEq)]
pub struct MelFilters {
    n_mels: usize,
    weights: Vec<f32>,
}

impl MelFilters {
    /// Filters given as rows (as in a `preprocessor_config.json`'s `mel_filters`).
    ///
    /// # Errors
    /// When a row does not have `N_FFT / 2 + 1` weights.
    pub fn from_rows(rows: &[Vec<f64>]) -> Result<Self, String> {
        let bins = N_FFT / 2 + 1;
        if rows.is_empty() || rows.iter().any(|r| r.len() != bins) {
            return Err(format!("mel filters must be rows of {bins} weights"));
        }
        Ok(Self { n_mels: rows.len(), weights: rows.iter().flatten().map(|&w| w as f32).collect() })
    }

    /// The Slaney-style filter bank (librosa's default, which Whisper's `mel_filters.npz` holds),
    /// from 0 Hz to the Nyquist frequency.
    pub fn slaney(n_mels: usize) -> Self {
        let bins = N_FFT / 2 + 1;
        let nyquist = SAMPLE_RATE as f64 / 2.0;
        let fft_freqs: Vec<f64> = (0..bins).map(|i| nyquist * i as f64 / (bins - 1) as f64).collect();
        let (lo, hi) = (hz_to_mel(0.0), hz_to_mel(nyquist));
        let mel_freqs: Vec<f64> = (0..n_mels + 2).map(|i| mel_to_hz(lo + (hi - lo) * i as f64 / (n_mels + 1) as f64)).collect();
        let mut weights = vec![0f32; n_mels * bins];
        for m in 0..n_mels {
            let (left, centre, right) = (mel_freqs[m], mel_freqs[m + 1], mel_freqs[m + 2]);
            let norm = 2.0 / (right - left);
            for (b, &f) in fft_freqs.iter().enumerate() {
                let rising = (f - left) / (centre - left);
                let falling = (right - f) / (right - centre);
                weights[m * bins + b] = (rising.min(falling).max(0.0) * norm) as f32;
            }
        }
        Self { n_mels, weights }
    }

    /// Number of mel bands.
    pub fn n_mels(&self) -> usize {
        self.n_mels
    }
}

// The Slaney mel scale: linear below 1 kHz, logarithmic above.
const F_SP: f64 = 200.0 / 3.0;
const MIN_LOG_HZ: f64 = 1000.0;
const MIN_LOG_MEL: f64 = MIN_LOG_HZ / F_SP;

fn log_step() -> f64 {
    6.4f64.ln() / 27.0
}

fn hz_to_mel(hz: f64) -> f64 {
    if hz >= MIN_LOG_HZ {
        MIN_LOG_MEL + (hz / MIN_LOG_HZ).ln() / log_step()
    } else {
        hz / F_SP
    }
}

fn mel_to_hz(mel: f64) -> f64 {
    if mel >= MIN_LOG_MEL {
        MIN_LOG_HZ * (log_step() * (mel - MIN_LOG_MEL)).exp()
    } else {
        F_SP * mel
    }
}

/// Computes log-mel spectrograms; holds the FFT plan and window so that repeated calls are cheap.
pub struct MelExtractor {
    filters: MelFilters,
    fft: Arc<dyn Fft<f32>>,
    window: Vec<f32>,
}

impl MelExtractor {
    /// An extractor with these filters.
    pub fn new(filters: MelFilters) -> Self {
        let fft = FftPlanner::new().plan_fft_forward(N_FFT);
        let window = (0..N_FFT).map(|n| 0.5 - 0.5 * (2.0 * std::f32::consts::PI * n as f32 / N_FFT as f32).cos()).collect();
        Self { filters, fft, window }
    }

    /// Number of mel bands.
    pub fn n_mels(&self) -> usize {
        self.filters.n_mels
    }

    /// Mel power (before the log) of `samples`, frame-major: `frames × n_mels`, one frame per
    /// `HOP` samples, frames centred on their hop (reflect-padded at the edges).
    pub fn mel_power(&self, samples: &[f32]) -> Vec<f32> {
        self.mel_power_of_frames(samples, 0, samples.len(), 0..samples.len() / HOP)
    }

    /// Samples to read for `frames` of a signal of `len` samples: the frames' own and the half
    /// FFT around them (within the signal).
    pub fn samples_for_frames(frames: &Range<usize>, len: usize) -> Range<usize> {
        let half = N_FFT / 2;
        let start = (frames.start * HOP).saturating_sub(half).min(len);
        let end = (frames.end.saturating_sub(1) * HOP + half + 1).min(len);
        start..end.max(start)
    }

    /// [`MelExtractor::mel_power`] of the `frames` of a signal of `len` samples, of which
    /// `heard` holds those from `heard_from` on (at least [`MelExtractor::samples_for_frames`]):
    /// a long signal's power is computed a stretch at a time, and comes out as if computed whole.
    pub fn mel_power_of_frames(&self, heard: &[f32], heard_from: usize, len: usize, frames: Range<usize>) -> Vec<f32> {
        let bins = N_FFT / 2 + 1;
        let n_mels = self.filters.n_mels;
        let mut out = vec![0f32; frames.len() * n_mels];
        let mut buf = vec![Complex32::default(); N_FFT];
        let mut scratch = vec![Complex32::default(); self.fft.get_inplace_scratch_len()];
        let mut power = vec![0f32; bins];
        let half = (N_FFT / 2) as isize;
        let len = len as isize;
        for (row, t) in out.chunks_exact_mut(n_mels).zip(frames) {
            let centre = (t * HOP) as isize;
            for (k, slot) in buf.iter_mut().enumerate() {
                let mut i = centre - half + k as isize;
                // Reflect padding, as torch.stft(center=True) does.
                if i < 0 {
                    i = -i;
                }
                if i >= len {
                    i = 2 * (len - 1) - i;
                }
                let x = usize::try_from(i)
                    .ok()
                    .filter(|&i| (i as isize) < len)
                    .and_then(|i| i.checked_sub(heard_from))
                    .and_then(|i| heard.get(i))
                    .copied()
                    .unwrap_or(0.0);
                *slot = Complex32::new(x * self.window[k], 0.0);
            }
            self.fft.process_with_scratch(&mut buf, &mut scratch);
            for (p, c) in power.iter_mut().zip(&buf[..bins]) {
                *p = c.norm_sqr();
            }
            for (m, value) in row.iter_mut().enumerate() {
                let w = &self.filters.weights[m * bins..(m + 1) * bins];
                *value = w.iter().zip(&power).map(|(a, b)| a * b).sum();
            }
        }
        out
    }

    /// Whisper's input for one window: `samples` (at most 30 s) zero-padded to 30 s, as a
    /// band-major `n_mels × 3000` array.
    pub fn whisper_features(&self, samples: &[f32]) -> Vec<f32> {
        let mut padded = vec![0f32; WINDOW_SAMPLES];
        let n = samples.len().min(WINDOW_SAMPLES);
        padded[..n].copy_from_slice(&samples[..n]);
        let power = self.mel_power(&padded);
        let n_mels = self.filters.n_mels;
        let mut logs: Vec<f32> = power.iter().map(|p| p.max(1e-10).log10()).collect();
        let max = logs.iter().copied().fold(f32::MIN, f32::max);
        for v in &mut logs {
            *v = (v.max(max - 8.0) + 4.0) / 4.0;
        }
        // Frame-major to band-major.
        let mut features = vec![0f32; n_mels * WINDOW_FRAMES];
        for t in 0..WINDOW_FRAMES {
            for m in 0..n_mels {
                features[m * WINDOW_FRAMES + t] = logs[t * n_mels + m];
            }
        }
        features
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slaney_filters_are_triangles_with_unit_area_scaling() {
        let filters = MelFilters::slaney(80);
        assert_eq!(filters.n_mels(), 80);
        let bins = N_FFT / 2 + 1;
        // Every band has some weight, and the first band starts at DC.
        for m in 0..80 {
            let row = &filters.weights[m * bins..(m + 1) * bins];
            assert!(row.iter().any(|&w| w > 0.0), "band {m} is empty");
        }
        assert_eq!(filters.weights[0], 0.0);
        // Values from Whisper's mel_filters.npz (mel_80[0][1], mel_80[1][1], mel_80[1][2]).
        for (at, expected) in [(1, 0.024_862_595), (bins + 1, 0.001_990_822), (bins + 2, 0.022_871_772)] {
            assert!((filters.weights[at] - expected).abs() < 1e-6, "{at}: {} vs {expected}", filters.weights[at]);
        }
    }

    #[test]
    fn power_computed_a_stretch_at_a_time_is_that_of_the_whole() {
        let extractor = MelExtractor::new(MelFilters::slaney(40));
        let signal: Vec<f32> = (0..SAMPLE_RATE * 3 + 123).map(|i| ((i as f32 * 0.013).sin() + (i as f32 * 0.31).cos()) * 0.3).collect();
        let whole = extractor.mel_power(&signal);
        let frames = signal.len() / HOP;
        let mut pieces = Vec::new();
        for first in (0..frames).step_by(97) {
            let range = first..(first + 97).min(frames);
            let heard = MelExtractor::samples_for_frames(&range, signal.len());
            pieces.extend(extractor.mel_power_of_frames(&signal[heard.clone()], heard.start, signal.len(), range));
        }
        assert_eq!(pieces, whole, "the reflected edges and every stretch between them");
    }

    #[test]
    fn a_tone_lights_up_the_band_that_holds_its_frequency() {
        let extractor = MelExtractor::new(MelFilters::slaney(80));
        let tone: Vec<f32> = (0..SAMPLE_RATE).map(|i| (2.0 * std::f32::consts::PI * 1000.0 * i as f32 / SAMPLE_RATE as f32).sin()).collect();
        let features = extractor.whisper_features(&tone);
        assert_eq!(features.len(), 80 * WINDOW_FRAMES);
        // Frame 50 (0.5 s): the loudest band is the one centred near 1 kHz.
        let column: Vec<f32> = (0..80).map(|m| features[m * WINDOW_FRAMES + 50]).collect();
        let loudest = column.iter().enumerate().max_by(|a, b| a.1.total_cmp(b.1)).map(|(m, _)| m).unwrap();
        let centre_hz = mel_to_hz(hz_to_mel(0.0) + (hz_to_mel(8000.0) - hz_to_mel(0.0)) * (loudest + 1) as f64 / 81.0);
        assert!((800.0..1250.0).contains(&centre_hz), "band {loudest} centred at {centre_hz} Hz");
        // The padded silence after the tone sits at the floor: 8 below the maximum.
        let floor = features[50 * WINDOW_FRAMES + 2000];
        assert!(floor < column[loudest] - 1.5);
    }
}
