//! One decoded channel, read a window at a time.
//!
//! A four-hour call is 230 million samples a channel at 16 kHz: close to a gigabyte of `f32`
//! each. The service never holds that: the decoding child writes each signal to a scratch file,
//! and the stages read the stretch they work on (a VAD block, a Whisper window, a second of
//! audio to redact) from it. What a stage holds is then the same for ten minutes and for four
//! hours. Tools and tests that decode in process keep the samples in memory behind the same type.

use std::fs::File;
use std::io;
use std::ops::Range;
use std::path::Path;
use std::sync::Arc;

/// Where samples can be read from, a stretch at a time: a slice in memory or a [`Signal`].
/// Speech functions take any of them, so that tests pass plain slices and the service files.
pub trait SampleSource: Sync {
    /// Number of samples.
    fn sample_count(&self) -> usize;

    /// Fills `out` with the samples from `start` on.
    ///
    /// # Errors
    /// The stretch reaches past the end, or the file behind it cannot be read.
    fn read_into(&self, start: usize, out: &mut [f32]) -> io::Result<()>;

    /// The samples in `range`, as far as the source reaches (a range past the end is cut short).
    ///
    /// # Errors
    /// The file behind it cannot be read.
    fn window(&self, range: Range<usize>) -> io::Result<Vec<f32>> {
        let end = range.end.min(self.sample_count());
        let start = range.start.min(end);
        let mut out = vec![0.0; end - start];
        self.read_into(start, &mut out)?;
        Ok(out)
    }
}

fn past_the_end(start: usize, wanted: usize, len: usize) -> io::Error {
    io::Error::new(io::ErrorKind::UnexpectedEof, format!("samples {start}..{} asked of a signal of {len}", start.saturating_add(wanted)))
}

impl SampleSource for [f32] {
    fn sample_count(&self) -> usize {
        self.len()
    }

    fn read_into(&self, start: usize, out: &mut [f32]) -> io::Result<()> {
        let end = start.checked_add(out.len()).filter(|&end| end <= self.len()).ok_or_else(|| past_the_end(start, out.len(), self.len()))?;
        out.copy_from_slice(&self[start..end]);
        Ok(())
    }
}

impl SampleSource for Vec<f32> {
    fn sample_count(&self) -> usize {
        self.len()
    }

    fn read_into(&self, start: usize, out: &mut [f32]) -> io::Result<()> {
        self.as_slice().read_into(start, out)
    }
}

/// One 16 kHz channel of a call: shared, never copied (clones share the samples).
#[derive(Clone)]
pub struct Signal(Arc<Stored>);

enum Stored {
    Memory(Vec<f32>),
    /// Little-endian `f32`s in a file nobody else can reach (its name is removed once opened):
    /// it goes when the last clone does, and a crash leaves nothing behind.
    File {
        file: File,
        len: usize,
    },
}

impl std::fmt::Debug for Signal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let place = match &*self.0 {
            Stored::Memory(_) => "memory",
            Stored::File { .. } => "file",
        };
        f.debug_struct("Signal").field("samples", &self.len()).field("in", &place).finish()
    }
}

impl Signal {
    /// A signal held in memory.
    pub fn from_samples(samples: Vec<f32>) -> Self {
        Self(Arc::new(Stored::Memory(samples)))
    }

    /// Takes over the scratch file at `path`, which holds `len` little-endian `f32`s: the file
    /// is opened and its name removed, so that it lives exactly as long as the signal.
    ///
    /// # Errors
    /// The file is missing, unreadable, or not `len` samples long.
    pub fn adopt_file(path: &Path, len: usize) -> io::Result<Self> {
        let file = File::open(path)?;
        let expected = len.checked_mul(4).ok_or_else(|| io::Error::other("a signal too long to read"))?;
        let actual = file.metadata()?.len();
        if actual != expected as u64 {
            return Err(io::Error::other(format!("{} holds {actual} bytes, not the {expected} of {len} samples", path.display())));
        }
        std::fs::remove_file(path)?;
        Ok(Self(Arc::new(Stored::File { file, len })))
    }

    /// Number of samples.
    pub fn len(&self) -> usize {
        match &*self.0 {
            Stored::Memory(samples) => samples.len(),
            Stored::File { len, .. } => *len,
        }
    }

    /// Whether it holds no samples.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Whether the samples are held in memory (rather than read from a file).
    pub fn in_memory(&self) -> bool {
        matches!(&*self.0, Stored::Memory(_))
    }

    /// Every sample at once: for tools and tests of short signals.
    ///
    /// # Errors
    /// The file behind it cannot be read.
    pub fn to_vec(&self) -> io::Result<Vec<f32>> {
        self.window(0..self.len())
    }
}

impl SampleSource for Signal {
    fn sample_count(&self) -> usize {
        self.len()
    }

    fn read_into(&self, start: usize, out: &mut [f32]) -> io::Result<()> {
        match &*self.0 {
            Stored::Memory(samples) => samples.as_slice().read_into(start, out),
            Stored::File { file, len } => {
                if start.checked_add(out.len()).is_none_or(|end| end > *len) {
                    return Err(past_the_end(start, out.len(), *len));
                }
                read_floats_at(file, start as u64 * 4, out)
            }
        }
    }
}

/// Reads `out.len()` little-endian `f32`s at byte `offset`, through a bounded byte buffer.
fn read_floats_at(file: &File, offset: u64, out: &mut [f32]) -> io::Result<()> {
    use std::os::unix::fs::FileExt;
    const PER_READ: usize = 1 << 16;
    let mut bytes = vec![0u8; PER_READ.min(out.len()) * 4];
    let mut at = offset;
    for piece in out.chunks_mut(PER_READ) {
        let raw = &mut bytes[..piece.len() * 4];
        file.read_exact_at(raw, at)?;
        for (sample, b) in piece.iter_mut().zip(raw.chunks_exact(4)) {
            *sample = f32::from_le_bytes([b[0], b[1], b[2], b[3]]);
        }
        at += raw.len() as u64;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ramp(n: usize) -> Vec<f32> {
        (0..n).map(|i| i as f32 * 0.25 - 3.0).collect()
    }

    fn scratch(dir: &Path, samples: &[f32]) -> std::path::PathBuf {
        let path = dir.join("signal.f32");
        std::fs::write(&path, samples.iter().flat_map(|s| s.to_le_bytes()).collect::<Vec<u8>>()).unwrap();
        path
    }

    #[test]
    fn a_file_signal_reads_what_was_written_and_takes_the_file_with_it() {
        let dir = tempfile::tempdir().unwrap();
        let samples = ramp(200_001);
        let path = scratch(dir.path(), &samples);
        let signal = Signal::adopt_file(&path, samples.len()).unwrap();
        assert!(!path.exists(), "the name goes at once: a crash leaves no file behind");
        assert!(!signal.in_memory());
        assert_eq!(signal.len(), samples.len());
        assert_eq!(signal.to_vec().unwrap(), samples);
        assert_eq!(signal.window(70_000..140_100).unwrap(), &samples[70_000..140_100], "across several reads");
        assert_eq!(signal.window(199_990..300_000).unwrap(), &samples[199_990..], "cut at the end");
        let mut out = [0.0; 2];
        assert!(signal.read_into(200_000, &mut out).is_err(), "past the end is an error, not zeros");
    }

    #[test]
    fn a_scratch_file_of_the_wrong_length_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = scratch(dir.path(), &ramp(10));
        assert!(Signal::adopt_file(&path, 11).is_err());
        assert!(path.exists(), "a refused file is left for whoever made it");
        assert!(Signal::adopt_file(&dir.path().join("missing"), 1).is_err());
    }

    #[test]
    fn memory_and_slices_read_alike() {
        let samples = ramp(1_000);
        let signal = Signal::from_samples(samples.clone());
        assert!(signal.in_memory());
        assert_eq!(signal.window(10..20).unwrap(), samples.as_slice().window(10..20).unwrap());
        let mut out = [0.0; 5];
        assert!(samples.as_slice().read_into(996, &mut out).is_err());
        assert!(samples.read_into(usize::MAX, &mut out).is_err(), "no overflow");
    }
}
