//! Streaming conversion of interleaved audio at any rate to planar audio at another, through
//! rubato's FFT resampler, fed in fixed chunks as packets arrive.

use rubato::{FftFixedIn, Resampler as _};

const CHUNK: usize = 1024;

/// Resamples interleaved input, a packet at a time, into planar output that can be taken as it
/// comes ([`Resampler::take_output`]), so that a long call never has to be held whole.
pub struct Resampler {
    inner: Option<FftFixedIn<f32>>,
    channels: usize,
    from: u32,
    to: u32,
    pending: Vec<Vec<f32>>,
    /// Output not taken yet, the filter's delay already dropped.
    output: Vec<Vec<f32>>,
    /// Output frames still to drop at the start: the filter's delay.
    skip: usize,
    frames_in: u64,
    /// Frames put into `output` so far, taken or not.
    frames_out: u64,
}

impl Resampler {
    /// A resampler from `from` Hz to `to` Hz for `channels` channels.
    ///
    /// # Panics
    /// When a rate or the channel count is zero.
    pub fn new(from: u32, to: u32, channels: usize) -> Self {
        assert!(from > 0 && to > 0 && channels > 0, "rates and channels must be positive");
        let inner = (from != to).then(|| FftFixedIn::new(from as usize, to as usize, CHUNK, 2, channels).expect("valid resampler parameters"));
        let skip = inner.as_ref().map_or(0, FftFixedIn::output_delay);
        Self {
            inner,
            channels,
            from,
            to,
            pending: vec![Vec::with_capacity(2 * CHUNK); channels],
            output: vec![Vec::new(); channels],
            skip,
            frames_in: 0,
            frames_out: 0,
        }
    }

    /// Number of channels.
    pub fn channels(&self) -> usize {
        self.channels
    }

    /// Adds interleaved frames. A sample that is not a number (a float file can hold NaN and
    /// infinities) is silence, and one past full scale is full scale: what follows (the filter,
    /// the mel spectrum, the VAD) assumes finite samples in [-1, 1].
    pub fn push_interleaved(&mut self, samples: &[f32]) {
        for frame in samples.chunks_exact(self.channels) {
            for (channel, sample) in frame.iter().enumerate() {
                self.pending[channel].push(if sample.is_finite() { sample.clamp(-1.0, 1.0) } else { 0.0 });
            }
        }
        self.frames_in += (samples.len() / self.channels) as u64;
        self.drain(false);
    }

    /// Frames of output ready to be taken.
    pub fn ready(&self) -> usize {
        self.output[0].len()
    }

    /// Takes the output ready so far, one vector per channel.
    pub fn take_output(&mut self) -> Vec<Vec<f32>> {
        std::mem::replace(&mut self.output, vec![Vec::new(); self.channels])
    }

    /// Keeps a block the filter produced, less what is left of its delay.
    fn emit(output: &mut [Vec<f32>], skip: &mut usize, frames_out: &mut u64, block: Vec<Vec<f32>>) {
        let n = block.first().map_or(0, Vec::len);
        let dropped = (*skip).min(n);
        *skip -= dropped;
        for (dst, src) in output.iter_mut().zip(&block) {
            dst.extend_from_slice(&src[dropped..]);
        }
        *frames_out += (n - dropped) as u64;
    }

    fn drain(&mut self, last: bool) {
        let Some(inner) = self.inner.as_mut() else {
            self.frames_out += self.pending[0].len() as u64;
            for (out, pending) in self.output.iter_mut().zip(&mut self.pending) {
                out.append(pending);
            }
            return;
        };
        while self.pending[0].len() >= CHUNK {
            let block: Vec<&[f32]> = self.pending.iter().map(|c| &c[..CHUNK]).collect();
            let out = inner.process(&block, None).expect("chunk of the agreed size");
            Self::emit(&mut self.output, &mut self.skip, &mut self.frames_out, out);
            for channel in &mut self.pending {
                channel.drain(..CHUNK);
            }
        }
        if last {
            let expected = (self.frames_in * u64::from(self.to)).div_ceil(u64::from(self.from));
            if !self.pending[0].is_empty() {
                let out = inner.process_partial(Some(&self.pending), None).expect("partial chunk");
                Self::emit(&mut self.output, &mut self.skip, &mut self.frames_out, out);
            }
            // Flush the filter's delay with silence until every input frame has come out.
            while self.frames_out < expected {
                let out = inner.process_partial::<Vec<f32>>(None, None).expect("flush");
                if out[0].is_empty() {
                    break;
                }
                Self::emit(&mut self.output, &mut self.skip, &mut self.frames_out, out);
            }
            // Exactly `expected` frames in all: what the flush overshot goes, a shortfall is
            // silence.
            let excess = usize::try_from(self.frames_out.saturating_sub(expected)).unwrap_or(usize::MAX);
            let short = usize::try_from(expected.saturating_sub(self.frames_out)).unwrap_or(0);
            for channel in &mut self.output {
                let keep = channel.len().saturating_sub(excess);
                channel.truncate(keep);
                channel.resize(keep + short, 0.0);
            }
            self.frames_out = expected;
        }
    }

    /// Ends the stream and returns the output not taken yet; with what was taken before, it is
    /// exactly `ceil(frames × to / from)` long.
    pub fn finish(mut self) -> Vec<Vec<f32>> {
        self.drain(true);
        self.output
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tone(rate: u32, hz: f32, seconds: f32) -> Vec<f32> {
        (0..(rate as f32 * seconds) as usize).map(|i| (2.0 * std::f32::consts::PI * hz * i as f32 / rate as f32).sin() * 0.5).collect()
    }

    /// Frequency of the strongest zero-crossing rate estimate.
    fn frequency(signal: &[f32], rate: u32) -> f32 {
        let crossings = signal.windows(2).filter(|w| w[0] <= 0.0 && w[1] > 0.0).count();
        crossings as f32 * rate as f32 / signal.len() as f32
    }

    #[test]
    fn a_tone_keeps_its_pitch_and_timing_across_rates() {
        for from in [8_000, 11_025, 22_050, 44_100, 48_000, 16_000] {
            let input = tone(from, 440.0, 1.5);
            let mut resampler = Resampler::new(from, 16_000, 1);
            for packet in input.chunks(777) {
                resampler.push_interleaved(packet);
            }
            let out = resampler.finish().remove(0);
            assert_eq!(out.len(), 24_000, "1.5 s at 16 kHz from {from} Hz");
            let measured = frequency(&out[1000..23_000], 16_000);
            assert!((measured - 440.0).abs() < 3.0, "{from} Hz: {measured} Hz");
            // The tone starts at the start: no delay left in the output.
            let first_loud = out.iter().position(|s| s.abs() > 0.2).unwrap();
            assert!(first_loud < 40, "{from} Hz: first loud sample at {first_loud}");
        }
    }

    #[test]
    fn output_taken_as_it_comes_is_the_output_taken_at_the_end() {
        for from in [8_000, 44_100, 16_000] {
            let input = tone(from, 300.0, 2.3);
            let mut whole = Resampler::new(from, 16_000, 1);
            let mut streamed = Resampler::new(from, 16_000, 1);
            let mut taken: Vec<f32> = Vec::new();
            for packet in input.chunks(1_111) {
                whole.push_interleaved(packet);
                streamed.push_interleaved(packet);
                taken.extend(streamed.take_output().remove(0));
            }
            taken.extend(streamed.finish().remove(0));
            assert_eq!(taken, whole.finish().remove(0), "{from} Hz");
            assert_eq!(taken.len(), 36_800, "{from} Hz");
        }
    }

    #[test]
    fn samples_that_are_not_numbers_are_silence() {
        let mut resampler = Resampler::new(16_000, 16_000, 1);
        resampler.push_interleaved(&[f32::NAN, f32::INFINITY, -3.0, 0.5]);
        assert_eq!(resampler.finish().remove(0), [0.0, 0.0, -1.0, 0.5]);
    }

    #[test]
    fn interleaved_channels_stay_apart() {
        let left = tone(8_000, 300.0, 1.0);
        let right = tone(8_000, 1_000.0, 1.0);
        let interleaved: Vec<f32> = left.iter().zip(&right).flat_map(|(l, r)| [*l, *r]).collect();
        let mut resampler = Resampler::new(8_000, 16_000, 2);
        resampler.push_interleaved(&interleaved);
        let out = resampler.finish();
        assert!((frequency(&out[0][500..15_500], 16_000) - 300.0).abs() < 3.0);
        assert!((frequency(&out[1][500..15_500], 16_000) - 1_000.0).abs() < 3.0);
    }
}
