//! Streaming conversion of interleaved audio at any rate to planar audio at another, through
//! rubato's FFT resampler, fed in fixed chunks as packets arrive.

use rubato::{FftFixedIn, Resampler as _};

const CHUNK: usize = 1024;

/// Resamples interleaved input, a packet at a time, into planar output.
pub struct Resampler {
    inner: Option<FftFixedIn<f32>>,
    channels: usize,
    from: u32,
    to: u32,
    pending: Vec<Vec<f32>>,
    output: Vec<Vec<f32>>,
    frames_in: u64,
}

impl Resampler {
    /// A resampler from `from` Hz to `to` Hz for `channels` channels.
    ///
    /// # Panics
    /// When a rate or the channel count is zero.
    pub fn new(from: u32, to: u32, channels: usize) -> Self {
        assert!(from > 0 && to > 0 && channels > 0, "rates and channels must be positive");
        let inner = (from != to).then(|| FftFixedIn::new(from as usize, to as usize, CHUNK, 2, channels).expect("valid resampler parameters"));
        Self { inner, channels, from, to, pending: vec![Vec::with_capacity(2 * CHUNK); channels], output: vec![Vec::new(); channels], frames_in: 0 }
    }

    /// Number of channels.
    pub fn channels(&self) -> usize {
        self.channels
    }

    /// Adds interleaved frames.
    pub fn push_interleaved(&mut self, samples: &[f32]) {
        for frame in samples.chunks_exact(self.channels) {
            for (channel, sample) in frame.iter().enumerate() {
                self.pending[channel].push(*sample);
            }
        }
        self.frames_in += (samples.len() / self.channels) as u64;
        self.drain(false);
    }

    fn drain(&mut self, last: bool) {
        let Some(inner) = self.inner.as_mut() else {
            for (out, pending) in self.output.iter_mut().zip(&mut self.pending) {
                out.append(pending);
            }
            return;
        };
        while self.pending[0].len() >= CHUNK {
            let block: Vec<&[f32]> = self.pending.iter().map(|c| &c[..CHUNK]).collect();
            let out = inner.process(&block, None).expect("chunk of the agreed size");
            for (dst, src) in self.output.iter_mut().zip(out) {
                dst.extend(src);
            }
            for channel in &mut self.pending {
                channel.drain(..CHUNK);
            }
        }
        if last {
            let delay = inner.output_delay();
            let expected = (self.frames_in * u64::from(self.to)).div_ceil(u64::from(self.from)) as usize;
            if !self.pending[0].is_empty() {
                let out = inner.process_partial(Some(&self.pending), None).expect("partial chunk");
                for (dst, src) in self.output.iter_mut().zip(out) {
                    dst.extend(src);
                }
            }
            // Flush the filter's delay with silence until every input frame has come out.
            while self.output[0].len() < delay + expected {
                let out = inner.process_partial::<Vec<f32>>(None, None).expect("flush");
                if out[0].is_empty() {
                    break;
                }
                for (dst, src) in self.output.iter_mut().zip(out) {
                    dst.extend(src);
                }
            }
            for channel in &mut self.output {
                let end = (delay + expected).min(channel.len());
                channel.truncate(end);
                channel.drain(..delay.min(channel.len()));
                channel.resize(expected, 0.0);
            }
        }
    }

    /// Ends the stream and returns the planar output, exactly `ceil(frames × to / from)` long.
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
