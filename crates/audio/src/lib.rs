//! Call audio: recognising uploaded bytes as audio, decoding every format callscope accepts
//! (WAV PCM/float/µ-law/A-law, MP3, FLAC, OGG/Vorbis, M4A/AAC at any rate from 8 kHz up), and
//! turning it into what speech recognition wants: one 16 kHz `f32` signal per channel.
//!
//! Decoding streams packet by packet into a resampler, so memory follows the 16 kHz output, not
//! the source (a 48 kHz stereo hour is never held at 48 kHz), and a file over the duration
//! limit is refused as soon as the limit is passed.
//!
//! A call has one or two channels (a phone system's stereo keeps agent and customer apart). A
//! file with more (a conference bridge, a 5.1 export) is mixed down to one signal as it is
//! decoded, so memory does not grow with its channel count; its speakers are then told apart
//! acoustically.

use std::fs::File;
use std::path::Path;

use symphonia::core::codecs::audio::AudioDecoderOptions;
use symphonia::core::errors::Error as SymphoniaError;
use symphonia::core::formats::probe::Hint;
use symphonia::core::formats::{FormatOptions, TrackType};
use symphonia::core::io::{MediaSource, MediaSourceStream};
use symphonia::core::meta::MetadataOptions;

pub mod acoustics;
pub mod isolated;
mod resample;
mod signal;

pub use resample::Resampler;
pub use signal::{SampleSource, Signal};

/// Sample rate of decoded audio, the rate Whisper and the VAD expect.
pub const TARGET_RATE: u32 = 16_000;

/// Most channels decoded as separate signals; a file with more is mixed down to one.
pub const MAX_SEPARATE_CHANNELS: usize = 2;

/// Containers callscope recognises.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Container {
    /// RIFF/WAVE.
    Wav,
    /// MPEG audio (layer III), with or without an ID3 tag.
    Mp3,
    /// FLAC.
    Flac,
    /// Ogg (Vorbis).
    Ogg,
    /// ISO base media (M4A/MP4, AAC).
    Mp4,
}

impl Container {
    /// The file extension that names it.
    pub fn extension(self) -> &'static str {
        match self {
            Container::Wav => "wav",
            Container::Mp3 => "mp3",
            Container::Flac => "flac",
            Container::Ogg => "ogg",
            Container::Mp4 => "m4a",
        }
    }

    /// The container an extension of [`Container::extension`] names.
    pub fn from_extension(extension: &str) -> Option<Self> {
        [Container::Wav, Container::Mp3, Container::Flac, Container::Ogg, Container::Mp4].into_iter().find(|c| c.extension() == extension)
    }

    /// Its media type.
    pub fn media_type(self) -> &'static str {
        match self {
            Container::Wav => "audio/wav",
            Container::Mp3 => "audio/mpeg",
            Container::Flac => "audio/flac",
            Container::Ogg => "audio/ogg",
            Container::Mp4 => "audio/mp4",
        }
    }
}

/// Recognises a container from a file's first bytes (at least 12 are needed); headers and file
/// names are not trusted.
pub fn sniff(head: &[u8]) -> Option<Container> {
    let at = |offset: usize, magic: &[u8]| head.get(offset..offset + magic.len()) == Some(magic);
    if (at(0, b"RIFF") || at(0, b"RF64")) && at(8, b"WAVE") {
        Some(Container::Wav)
    } else if at(0, b"fLaC") {
        Some(Container::Flac)
    } else if at(0, b"OggS") {
        Some(Container::Ogg)
    } else if at(4, b"ftyp") {
        Some(Container::Mp4)
    } else if at(0, b"ID3") || (head.len() >= 4 && is_mpeg_audio_frame(&head[..4])) {
        Some(Container::Mp3)
    } else {
        None
    }
}

/// An MPEG-1/2/2.5 layer III frame header with a valid bitrate and sample rate index.
fn is_mpeg_audio_frame(h: &[u8]) -> bool {
    let sync = h[0] == 0xFF && h[1] & 0xE0 == 0xE0;
    let version = (h[1] >> 3) & 0b11; // 01 is reserved
    let layer = (h[1] >> 1) & 0b11; // 01 is layer III
    let bitrate = h[2] >> 4;
    let rate = (h[2] >> 2) & 0b11;
    sync && version != 0b01 && layer == 0b01 && bitrate != 0 && bitrate != 0b1111 && rate != 0b11
}

/// What the decoder found out about a file.
#[derive(Debug, Clone, PartialEq)]
pub struct AudioInfo {
    /// Container.
    pub container: Container,
    /// Codec short name (`pcm_s16le`, `pcm_mulaw`, `mp3`, `aac`, …).
    pub codec: String,
    /// Sample rate of the file.
    pub source_rate: u32,
    /// Number of channels in the file (the decoded signals are one, not these, when it has more
    /// than [`MAX_SEPARATE_CHANNELS`]).
    pub channels: usize,
    /// Length in seconds.
    pub duration_s: f64,
}

/// Decoded audio: one 16 kHz signal per channel of the file.
#[derive(Debug, Clone)]
pub struct DecodedAudio {
    /// What the file was.
    pub info: AudioInfo,
    /// Samples in [-1, 1] at [`TARGET_RATE`], one signal per channel, all of equal length.
    pub channels: Vec<Signal>,
}

/// Samples compared at a time when channels are compared: a few hundred kilobytes each.
const COMPARED_BLOCK: usize = 1 << 16;

impl DecodedAudio {
    /// Whether a two-channel file carries the same signal on both channels (a mono call saved
    /// as stereo), in which case it must be diarized acoustically rather than split.
    ///
    /// # Errors
    /// A signal's file cannot be read.
    pub fn channels_identical(&self) -> std::io::Result<bool> {
        match self.channels.as_slice() {
            [a, b] => signals_identical(a, b),
            _ => Ok(false),
        }
    }
}

/// Whether two signals are the same up to rounding (e.g. one lossy encode of a mono source),
/// read a block at a time.
///
/// # Errors
/// A signal's file cannot be read.
pub fn signals_identical(a: &dyn SampleSource, b: &dyn SampleSource) -> std::io::Result<bool> {
    let len = a.sample_count();
    if len != b.sample_count() {
        return Ok(false);
    }
    let (mut difference, mut energy) = (0.0f64, 0.0f64);
    for start in (0..len).step_by(COMPARED_BLOCK) {
        let range = start..(start + COMPARED_BLOCK).min(len);
        for (x, y) in a.window(range.clone())?.iter().zip(&b.window(range)?) {
            difference += f64::from((x - y).abs());
            energy += f64::from(x.abs() + y.abs());
        }
    }
    // Silence on both sides counts as identical; otherwise the difference must be tiny
    // relative to the signal.
    Ok(difference <= 1e-3 * energy.max(1e-9) || difference / (len.max(1) as f64) < 1e-6)
}

/// Why audio could not be decoded.
#[derive(Debug, thiserror::Error)]
pub enum AudioError {
    /// The bytes are not audio in a format callscope decodes: permanent.
    #[error("the file is not audio in a format callscope decodes ({0})")]
    NotAudio(String),
    /// The audio is longer than allowed: permanent.
    #[error("the audio is {actual_s:.0} s long, over the limit of {limit_s:.0} s")]
    TooLong {
        /// Seconds decoded when the limit was passed (at least).
        actual_s: f64,
        /// The limit.
        limit_s: f64,
    },
    /// The file could not be read: may be worth retrying.
    #[error("the audio file could not be read: {0}")]
    Io(#[from] std::io::Error),
}

impl AudioError {
    /// Whether retrying cannot help.
    pub fn is_permanent(&self) -> bool {
        !matches!(self, AudioError::Io(_))
    }
}

/// Decodes a file.
///
/// # Errors
/// See [`AudioError`].
pub fn decode_file(path: &Path, max_duration_s: Option<f64>) -> Result<DecodedAudio, AudioError> {
    decode(Box::new(File::open(path)?), max_duration_s, &mut |_| {})
}

/// Decodes audio from any seekable source into memory; `max_duration_s` stops early on
/// over-long input. For tools and tests: the service decodes to scratch files
/// ([`isolated`]).
/// `on_progress` hears the fraction decoded (0.0–1.0) about once per minute of audio, when the
/// container declares its length.
///
/// # Errors
/// See [`AudioError`].
pub fn decode(source: Box<dyn MediaSource>, max_duration_s: Option<f64>, on_progress: &mut dyn FnMut(f64)) -> Result<DecodedAudio, AudioError> {
    let mut channels: Vec<Vec<f32>> = Vec::new();
    let info = decode_streaming(source, max_duration_s, on_progress, &mut |block| {
        if channels.is_empty() {
            channels = block;
        } else {
            for (all, more) in channels.iter_mut().zip(block) {
                all.extend(more);
            }
        }
        Ok(())
    })?;
    Ok(DecodedAudio { info, channels: channels.into_iter().map(Signal::from_samples).collect() })
}

/// Output frames the decoder gathers before it hands them on: four seconds at 16 kHz.
const BLOCK_FRAMES: usize = 65_536;

/// Decodes like [`decode`], but hands the 16 kHz signals to `sink` a block at a time (one vector
/// per signal, all of one length) instead of holding them: what decoding holds stays the same
/// for a minute and for four hours.
///
/// # Errors
/// See [`AudioError`]; a sink's error is [`AudioError::Io`].
pub fn decode_streaming(
    source: Box<dyn MediaSource>,
    max_duration_s: Option<f64>,
    on_progress: &mut dyn FnMut(f64),
    sink: &mut dyn FnMut(Vec<Vec<f32>>) -> std::io::Result<()>,
) -> Result<AudioInfo, AudioError> {
    let mut stream = MediaSourceStream::new(source, Default::default());
    let mut head = [0u8; 16];
    let container = {
        use std::io::{Read, Seek, SeekFrom};
        let read = stream.read(&mut head)?;
        stream.seek(SeekFrom::Start(0))?;
        sniff(&head[..read]).ok_or_else(|| AudioError::NotAudio("unrecognised file header".into()))?
    };
    let mut hint = Hint::new();
    hint.with_extension(container.extension());
    let mut format = symphonia::default::get_probe()
        .probe(&hint, stream, FormatOptions::default(), MetadataOptions::default())
        .map_err(|e| AudioError::NotAudio(describe(&e)))?;
    let track = format.default_track(TrackType::Audio).ok_or_else(|| AudioError::NotAudio("no audio track".into()))?;
    let (track_id, declared_frames) = (track.id, track.num_frames);
    let params = track.codec_params.as_ref().and_then(|p| p.audio()).ok_or_else(|| AudioError::NotAudio("no audio track".into()))?.clone();
    let codecs = symphonia::default::get_codecs();
    let codec = codecs.get_audio_decoder(params.codec).map_or_else(|| "unknown".to_owned(), |d| d.codec.info.short_name.to_owned());
    let mut decoder = codecs
        .make_audio_decoder(&params, &AudioDecoderOptions::default())
        .map_err(|e| AudioError::NotAudio(format!("codec {codec}: {}", describe(&e))))?;
    let source_rate = params.sample_rate.ok_or_else(|| AudioError::NotAudio("no sample rate".into()))?;
    if !(4_000..=384_000).contains(&source_rate) {
        return Err(AudioError::NotAudio(format!("sample rate {source_rate} Hz")));
    }
    if let (Some(limit), Some(frames)) = (max_duration_s, declared_frames) {
        let declared = frames as f64 / f64::from(source_rate);
        if declared > limit {
            return Err(AudioError::TooLong { actual_s: declared, limit_s: limit });
        }
    }

    let declared_frames = declared_frames.filter(|&n| n > 0);
    let report_every = u64::from(source_rate) * 60;
    let mut next_report = report_every;
    let mut resampler: Option<Resampler> = None;
    let mut frames_in: u64 = 0;
    let (mut good, mut bad) = (0u64, 0u64);
    let mut samples: Vec<f32> = Vec::new();
    let mut file_channels: Option<usize> = None;
    let mut mixed: Vec<f32> = Vec::new();
    loop {
        let packet = match format.next_packet() {
            Ok(Some(packet)) => packet,
            Ok(None) => break,
            Err(SymphoniaError::IoError(e)) if e.kind() == std::io::ErrorKind::UnexpectedEof => break,
            Err(SymphoniaError::ResetRequired) => break,
            Err(SymphoniaError::IoError(e)) => return Err(AudioError::Io(e)),
            Err(e) => return Err(AudioError::NotAudio(describe(&e))),
        };
        if packet.track_id != track_id {
            continue;
        }
        let decoded = match decoder.decode(&packet) {
            Ok(decoded) => decoded,
            // A damaged packet is skipped, as players do; a file of nothing but is refused below.
            Err(SymphoniaError::DecodeError(_)) => {
                bad += 1;
                continue;
            }
            Err(SymphoniaError::IoError(e)) if e.kind() == std::io::ErrorKind::UnexpectedEof => break,
            Err(e) => return Err(AudioError::NotAudio(describe(&e))),
        };
        good += 1;
        let channels = decoded.spec().channels().count();
        if decoded.frames() == 0 || channels == 0 {
            continue;
        }
        decoded.copy_to_vec_interleaved(&mut samples);
        if *file_channels.get_or_insert(channels) != channels {
            return Err(AudioError::NotAudio("the channel count changes within the file".into()));
        }
        let kept = if channels > MAX_SEPARATE_CHANNELS { 1 } else { channels };
        let resampler = resampler.get_or_insert_with(|| Resampler::new(source_rate, TARGET_RATE, kept));
        if kept == 1 && channels > 1 {
            mixed.clear();
            let scale = 1.0 / channels as f32;
            mixed.extend(samples.chunks_exact(channels).map(|frame| frame.iter().sum::<f32>() * scale));
            resampler.push_interleaved(&mixed);
        } else {
            resampler.push_interleaved(&samples);
        }
        frames_in += (samples.len() / channels) as u64;
        if resampler.ready() >= BLOCK_FRAMES {
            sink(resampler.take_output())?;
        }
        if let (Some(total), true) = (declared_frames, frames_in >= next_report) {
            on_progress((frames_in as f64 / total as f64).min(1.0));
            next_report += report_every;
        }
        if let Some(limit) = max_duration_s {
            let decoded_s = frames_in as f64 / f64::from(source_rate);
            if decoded_s > limit {
                return Err(AudioError::TooLong { actual_s: decoded_s, limit_s: limit });
            }
        }
    }
    if bad > 0 && bad * 2 > good + bad {
        return Err(AudioError::NotAudio(format!("{bad} of {} packets are damaged", good + bad)));
    }
    let resampler = resampler.ok_or_else(|| AudioError::NotAudio("the file contains no audio".into()))?;
    let signals = resampler.channels();
    sink(resampler.finish())?;
    Ok(AudioInfo { container, codec, source_rate, channels: file_channels.unwrap_or(signals), duration_s: frames_in as f64 / f64::from(source_rate) })
}

fn describe(error: &SymphoniaError) -> String {
    match error {
        SymphoniaError::Unsupported(what) => format!("unsupported {what}"),
        SymphoniaError::DecodeError(what) => format!("malformed stream: {what}"),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn containers_are_recognised_by_their_bytes() {
        assert_eq!(sniff(b"RIFF\x24\x00\x00\x00WAVEfmt "), Some(Container::Wav));
        assert_eq!(sniff(b"fLaC\x00\x00\x00\x22\x10\x00\x10\x00"), Some(Container::Flac));
        assert_eq!(sniff(b"OggS\x00\x02\x00\x00\x00\x00\x00\x00"), Some(Container::Ogg));
        assert_eq!(sniff(b"\x00\x00\x00\x20ftypM4A \x00\x00"), Some(Container::Mp4));
        assert_eq!(sniff(b"ID3\x04\x00\x00\x00\x00\x00\x00\x00\x00"), Some(Container::Mp3));
        assert_eq!(sniff(&[0xFF, 0xFB, 0x90, 0x64, 0, 0, 0, 0, 0, 0, 0, 0]), Some(Container::Mp3));
        assert_eq!(sniff(b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n"), None);
        assert_eq!(sniff(b"<html><body>"), None);
        assert_eq!(sniff(&[0xFF, 0xFF, 0xFF, 0xFF]), None, "all ones is not a frame header");
        assert_eq!(sniff(b"RIFF"), None, "too short to tell");
    }

    #[test]
    fn identical_channels_are_told_apart_from_different_ones() {
        let same = |a: &[f32], b: &[f32]| signals_identical(&a.to_vec(), &b.to_vec()).unwrap();
        // Longer than one compared block, so that the sums run across blocks.
        let a: Vec<f32> = (0..160_000).map(|i| (i as f32 * 0.05).sin() * 0.3).collect();
        let mut b = a.clone();
        assert!(same(&a, &b));
        b.iter_mut().for_each(|s| *s += 1e-6);
        assert!(same(&a, &b), "rounding noise");
        let mut late = a.clone();
        late[150_000..].iter_mut().for_each(|s| *s = -*s);
        assert!(!same(&a, &late), "a difference in the last block counts");
        let c: Vec<f32> = (0..160_000).map(|i| (i as f32 * 0.07).sin() * 0.3).collect();
        assert!(!same(&a, &c));
        let silence = vec![0.0; 100];
        assert!(same(&silence, &silence));
        assert!(!same(&a, &a[..100]));
    }
}
