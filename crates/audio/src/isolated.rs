//! Decoding in a process of its own, and the few lines that process and its parent exchange.
//!
//! Uploads are whatever people send, and a decoder has paths (a malformed FLAC or ALAC frame, a
//! header that asks for gigabytes) where it panics, aborts or runs out of memory. In the service's
//! process that would take the API down with it. So `callscope decode-audio` decodes one file in
//! a child process under memory and file-size limits, writes each 16 kHz signal to a scratch file
//! as it goes (so neither process holds the call whole while decoding), and reports on its
//! standard output, one line at a time:
//!
//! - `progress FRACTION`
//! - `done CONTAINER CODEC SOURCE_RATE CHANNELS DURATION_S SIGNALS FRAMES`
//! - `failed permanent|io MESSAGE`
//!
//! Whatever else happens to the child (a signal, an abort, an exit without `done`), the parent
//! knows the file did not decode.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use crate::{AudioError, AudioInfo, Container, DecodedAudio, Signal};

/// The exit code of a child that decoded its file.
pub const EXIT_DONE: u8 = 0;
/// The exit code of a child that found its file undecodable (it said why).
pub const EXIT_FAILED: u8 = 3;

/// What the child reports on one line.
#[derive(Debug, Clone, PartialEq)]
pub enum ChildReport {
    /// The fraction of the file decoded so far.
    Progress(f64),
    /// Decoding finished: what the file was, and the signals written.
    Done(Spilled),
    /// The file could not be decoded; `permanent` when retrying cannot help.
    Failed {
        /// Whether retrying cannot help.
        permanent: bool,
        /// Why, for a person.
        message: String,
    },
}

/// What a finished child wrote.
#[derive(Debug, Clone, PartialEq)]
pub struct Spilled {
    /// What the file was.
    pub info: AudioInfo,
    /// Signals written (one file each).
    pub signals: usize,
    /// 16 kHz frames in each signal.
    pub frames: u64,
}

/// The scratch file of signal `index`, beside `base`.
pub fn signal_path(base: &Path, index: usize) -> PathBuf {
    let mut name = base.file_name().map(std::ffi::OsStr::to_os_string).unwrap_or_default();
    name.push(format!(".{index}.f32"));
    base.with_file_name(name)
}

/// The child's side: decodes `input`, writing each signal beside `base` and reporting on `out`.
/// Returns the process's exit code.
pub fn run_child(input: &Path, base: &Path, max_duration_s: Option<f64>, out: &mut dyn Write) -> u8 {
    let mut writers: Vec<BufWriter<File>> = Vec::new();
    let mut frames = 0u64;
    let mut sink = |block: Vec<Vec<f32>>| -> std::io::Result<()> {
        if writers.is_empty() {
            for index in 0..block.len() {
                writers.push(BufWriter::with_capacity(1 << 20, File::create(signal_path(base, index))?));
            }
        }
        frames += block.first().map_or(0, Vec::len) as u64;
        for (writer, signal) in writers.iter_mut().zip(&block) {
            for sample in signal {
                writer.write_all(&sample.to_le_bytes())?;
            }
        }
        Ok(())
    };
    let mut report = |fraction: f64| {
        let _ = writeln!(out, "progress {fraction:.6}");
        let _ = out.flush();
    };
    let decoded =
        File::open(input).map_err(AudioError::from).and_then(|file| crate::decode_streaming(Box::new(file), max_duration_s, &mut report, &mut sink));
    let finished = decoded.and_then(|info| {
        for writer in &mut writers {
            writer.flush()?;
        }
        Ok(info)
    });
    let line = match finished {
        Ok(info) => {
            let codec: String = info.codec.chars().map(|c| if c.is_whitespace() { '_' } else { c }).collect();
            format!(
                "done {} {codec} {} {} {} {} {frames}",
                info.container.extension(),
                info.source_rate,
                info.channels,
                info.duration_s,
                writers.len()
            )
        }
        Err(error) => {
            let kind = if error.is_permanent() { "permanent" } else { "io" };
            let message: String = error.to_string().chars().map(|c| if c.is_control() { ' ' } else { c }).collect();
            format!("failed {kind} {message}")
        }
    };
    let done = line.starts_with("done ");
    let _ = writeln!(out, "{line}");
    let _ = out.flush();
    if done {
        EXIT_DONE
    } else {
        EXIT_FAILED
    }
}

/// Reads one line of the child's report; `None` for a line that is none of them.
pub fn parse_report(line: &str) -> Option<ChildReport> {
    let (kind, rest) = line.trim_end().split_once(' ')?;
    match kind {
        "progress" => rest.parse().ok().filter(|f: &f64| f.is_finite()).map(ChildReport::Progress),
        "failed" => {
            let (how, message) = rest.split_once(' ').unwrap_or((rest, ""));
            Some(ChildReport::Failed { permanent: how != "io", message: message.to_owned() })
        }
        "done" => {
            let fields: Vec<&str> = rest.split(' ').collect();
            let [container, codec, rate, channels, duration, signals, frames] = fields.as_slice() else { return None };
            Some(ChildReport::Done(Spilled {
                info: AudioInfo {
                    container: Container::from_extension(container)?,
                    codec: (*codec).to_owned(),
                    source_rate: rate.parse().ok()?,
                    channels: channels.parse().ok()?,
                    duration_s: duration.parse().ok().filter(|d: &f64| d.is_finite())?,
                },
                signals: signals.parse().ok()?,
                frames: frames.parse().ok()?,
            }))
        }
        _ => None,
    }
}

/// Takes over the signals a finished child wrote beside `base`: each is read from its file a
/// window at a time, and the file goes with the signal (see [`Signal::adopt_file`]).
///
/// # Errors
/// A scratch file missing, unreadable or of another length than the child reported.
pub fn adopt(base: &Path, spilled: &Spilled) -> std::io::Result<DecodedAudio> {
    let frames = usize::try_from(spilled.frames).map_err(std::io::Error::other)?;
    let channels = (0..spilled.signals).map(|index| Signal::adopt_file(&signal_path(base, index), frames)).collect::<std::io::Result<_>>()?;
    Ok(DecodedAudio { info: spilled.info.clone(), channels })
}

/// Removes whatever scratch files a child made beside `base` (at most `signals` of them).
pub fn remove(base: &Path, signals: usize) {
    for index in 0..signals {
        let _ = std::fs::remove_file(signal_path(base, index));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn wav(path: &Path, channels: u16, seconds: f32) {
        let spec = hound::WavSpec { channels, sample_rate: 8_000, bits_per_sample: 16, sample_format: hound::SampleFormat::Int };
        let mut writer = hound::WavWriter::create(path, spec).unwrap();
        for i in 0..(8_000.0 * seconds) as usize {
            for c in 0..channels {
                writer.write_sample(((i as f32 * (0.05 + 0.03 * f32::from(c))).sin() * 9_000.0) as i16).unwrap();
            }
        }
        writer.finalize().unwrap();
    }

    #[test]
    fn a_child_writes_what_decoding_in_process_gives() {
        let dir = tempfile::tempdir().unwrap();
        let input = dir.path().join("call.wav");
        wav(&input, 2, 9.5);
        let base = dir.path().join("job");
        let mut out = Vec::new();
        assert_eq!(run_child(&input, &base, Some(60.0), &mut out), EXIT_DONE);
        let text = String::from_utf8(out).unwrap();
        let Some(ChildReport::Done(spilled)) = text.lines().last().and_then(parse_report) else { panic!("{text}") };
        assert_eq!((spilled.signals, spilled.frames), (2, 152_000));
        let adopted = adopt(&base, &spilled).unwrap();
        assert!(!signal_path(&base, 0).exists() && !signal_path(&base, 1).exists(), "the signals own their files now");
        let direct = crate::decode_file(&input, None).unwrap();
        assert_eq!(adopted.info, direct.info);
        assert!(adopted.channels.iter().all(|c| !c.in_memory()));
        let samples = |audio: &DecodedAudio| audio.channels.iter().map(|c| c.to_vec().unwrap()).collect::<Vec<_>>();
        assert_eq!(samples(&adopted), samples(&direct));
    }

    #[test]
    fn a_child_reports_why_a_file_does_not_decode() {
        let dir = tempfile::tempdir().unwrap();
        let input = dir.path().join("notes.wav");
        std::fs::write(&input, b"these are meeting notes, not a call").unwrap();
        let mut out = Vec::new();
        assert_eq!(run_child(&input, &dir.path().join("job"), None, &mut out), EXIT_FAILED);
        let text = String::from_utf8(out).unwrap();
        match parse_report(text.trim()) {
            Some(ChildReport::Failed { permanent: true, message }) => assert!(message.contains("not audio"), "{message}"),
            other => panic!("{other:?}"),
        }
        let mut out = Vec::new();
        assert_eq!(run_child(&dir.path().join("missing.wav"), &dir.path().join("job"), None, &mut out), EXIT_FAILED);
        assert!(matches!(parse_report(std::str::from_utf8(&out).unwrap()), Some(ChildReport::Failed { permanent: false, .. })));
    }

    #[test]
    fn reports_are_read_back_and_anything_else_is_not_one() {
        assert_eq!(parse_report("progress 0.5\n"), Some(ChildReport::Progress(0.5)));
        assert_eq!(parse_report("progress NaN"), None);
        assert_eq!(parse_report("done wav pcm 8000 2 1.5"), None, "fields missing");
        assert_eq!(parse_report("thread 'main' panicked"), None);
        assert!(matches!(parse_report("done mp3 mp3 44100 1 2.25 1 36000"), Some(ChildReport::Done(s)) if s.info.container == Container::Mp3));
    }
}
