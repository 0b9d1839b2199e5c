//! Every format callscope accepts, decoded from files made here: WAV variants with `hound`, the
//! rest converted from those with Debian's `sox` and `ffmpeg` (installed by `scripts/test`).

use std::path::{Path, PathBuf};
use std::process::Command;

use callscope_audio::{decode_file, sniff, AudioError, Container, SampleSource, Signal, TARGET_RATE};

/// A two-tone stereo call: 300 Hz on the left, 1 kHz on the right, `seconds` long.
fn write_wav(path: &Path, rate: u32, channels: u16, bits: u16, float: bool, seconds: f32) {
    let spec = hound::WavSpec {
        channels,
        sample_rate: rate,
        bits_per_sample: bits,
        sample_format: if float { hound::SampleFormat::Float } else { hound::SampleFormat::Int },
    };
    let mut writer = hound::WavWriter::create(path, spec).unwrap();
    let frames = (rate as f32 * seconds) as usize;
    for i in 0..frames {
        for channel in 0..channels {
            let hz = if channel == 0 { 300.0 } else { 1_000.0 };
            let value = (2.0 * std::f32::consts::PI * hz * i as f32 / rate as f32).sin() * 0.5;
            if float {
                writer.write_sample(value).unwrap();
            } else {
                let max = ((1i64 << (bits - 1)) - 1) as f32;
                writer.write_sample((value * max) as i32).unwrap();
            }
        }
    }
    writer.finalize().unwrap();
}

fn frequency(signal: &[f32]) -> f32 {
    let crossings = signal.windows(2).filter(|w| w[0] <= 0.0 && w[1] > 0.0).count();
    crossings as f32 * TARGET_RATE as f32 / signal.len() as f32
}

fn tool(name: &str, args: &[&str]) {
    let status =
        Command::new(name).args(args).output().unwrap_or_else(|e| panic!("{name} is needed to make test audio ({e}); scripts/test installs it"));
    assert!(status.status.success(), "{name} {args:?}: {}", String::from_utf8_lossy(&status.stderr));
}

struct Case {
    file: PathBuf,
    container: Container,
    codec: &'static str,
    rate: u32,
    channels: usize,
}

fn check(case: &Case, lossy: bool) {
    let head = std::fs::read(&case.file).unwrap();
    assert_eq!(sniff(&head[..16]), Some(case.container), "{}", case.file.display());
    let audio = decode_file(&case.file, None).unwrap_or_else(|e| panic!("{}: {e}", case.file.display()));
    assert_eq!(audio.info.container, case.container);
    assert_eq!(audio.info.codec, case.codec, "{}", case.file.display());
    assert_eq!(audio.info.source_rate, case.rate);
    assert_eq!(audio.info.channels, case.channels);
    assert_eq!(audio.channels.len(), case.channels);
    // PCM is exact. Lossy encoders pad the start and end (MP3 without gapless data by up to a
    // few frames, 72 ms each at 8 kHz).
    let tolerance = if lossy { 0.2 } else { 0.001 };
    assert!((audio.info.duration_s - 2.0).abs() <= tolerance, "{}: {} s", case.file.display(), audio.info.duration_s);
    let expected = (audio.info.duration_s * f64::from(TARGET_RATE)).ceil() as usize;
    assert!(audio.channels.iter().all(|c| c.len().abs_diff(expected) <= 1));
    let middle = |c: &Signal| c.window(4_000..28_000).unwrap();
    let left = frequency(&middle(&audio.channels[0]));
    assert!((left - 300.0).abs() < 6.0, "{}: left {left} Hz", case.file.display());
    if case.channels == 2 {
        let right = frequency(&middle(&audio.channels[1]));
        assert!((right - 1_000.0).abs() < 12.0, "{}: right {right} Hz", case.file.display());
        assert!(!audio.channels_identical().unwrap());
    }
}

#[test]
fn wav_pcm_and_float_at_every_rate() {
    let dir = tempfile::tempdir().unwrap();
    let mut n = 0;
    for rate in [8_000, 16_000, 22_050, 44_100, 48_000] {
        for (bits, float, codec) in
            [(16, false, "pcm_s16le"), (24, false, "pcm_s24le"), (32, false, "pcm_s32le"), (32, true, "pcm_f32le"), (8, false, "pcm_u8")]
        {
            for channels in [1u16, 2] {
                n += 1;
                let file = dir.path().join(format!("{n}.wav"));
                write_wav(&file, rate, channels, bits, float, 2.0);
                check(&Case { file, container: Container::Wav, codec, rate, channels: channels.into() }, false);
            }
        }
    }
}

#[test]
fn telephone_codecs_and_compressed_formats() {
    let dir = tempfile::tempdir().unwrap();
    let source = dir.path().join("source.wav");
    write_wav(&source, 8_000, 2, 16, false, 2.0);
    let src = source.to_str().unwrap();
    let path = |name: &str| dir.path().join(name);
    let s = |p: &PathBuf| p.to_str().unwrap().to_owned();

    let ulaw = path("ulaw.wav");
    tool("sox", &[src, "-e", "u-law", &s(&ulaw)]);
    check(&Case { file: ulaw, container: Container::Wav, codec: "pcm_mulaw", rate: 8_000, channels: 2 }, false);
    let alaw = path("alaw.wav");
    tool("sox", &[src, "-e", "a-law", &s(&alaw)]);
    check(&Case { file: alaw, container: Container::Wav, codec: "pcm_alaw", rate: 8_000, channels: 2 }, false);
    let flac = path("call.flac");
    tool("sox", &[src, &s(&flac)]);
    check(&Case { file: flac, container: Container::Flac, codec: "flac", rate: 8_000, channels: 2 }, false);

    // Lossy codecs at rates they support.
    let wide = path("wide.wav");
    write_wav(&wide, 44_100, 2, 16, false, 2.0);
    let wide = s(&wide);
    let mp3 = path("call.mp3");
    tool("ffmpeg", &["-loglevel", "error", "-i", &wide, "-c:a", "libmp3lame", "-b:a", "128k", &s(&mp3)]);
    check(&Case { file: mp3, container: Container::Mp3, codec: "mp3", rate: 44_100, channels: 2 }, true);
    let ogg = path("call.ogg");
    tool("ffmpeg", &["-loglevel", "error", "-i", &wide, "-c:a", "libvorbis", "-q:a", "5", &s(&ogg)]);
    check(&Case { file: ogg, container: Container::Ogg, codec: "vorbis", rate: 44_100, channels: 2 }, true);
    let m4a = path("call.m4a");
    tool("ffmpeg", &["-loglevel", "error", "-i", &wide, "-c:a", "aac", "-b:a", "128k", &s(&m4a)]);
    check(&Case { file: m4a, container: Container::Mp4, codec: "aac", rate: 44_100, channels: 2 }, true);
    let mono = path("mono.wav");
    write_wav(&mono, 8_000, 1, 16, false, 2.0);
    let mono_mp3 = path("mono.mp3");
    tool("ffmpeg", &["-loglevel", "error", "-i", &s(&mono), "-c:a", "libmp3lame", &s(&mono_mp3)]);
    check(&Case { file: mono_mp3, container: Container::Mp3, codec: "mp3", rate: 8_000, channels: 1 }, true);
}

#[test]
fn a_mono_call_saved_as_stereo_is_recognised() {
    let dir = tempfile::tempdir().unwrap();
    let mono = dir.path().join("mono.wav");
    write_wav(&mono, 8_000, 1, 16, false, 2.0);
    let dual = dir.path().join("dual.wav");
    tool("sox", &[mono.to_str().unwrap(), "-c", "2", dual.to_str().unwrap()]);
    let audio = decode_file(&dual, None).unwrap();
    assert_eq!(audio.channels.len(), 2);
    assert!(audio.channels_identical().unwrap());
    let ulaw = dir.path().join("dual-ulaw.wav");
    tool("sox", &[dual.to_str().unwrap(), "-e", "u-law", ulaw.to_str().unwrap()]);
    assert!(decode_file(&ulaw, None).unwrap().channels_identical().unwrap());
}

#[test]
fn bad_input_is_refused_with_a_reason() {
    let dir = tempfile::tempdir().unwrap();
    let text = dir.path().join("notes.wav");
    std::fs::write(&text, "this is not audio at all, whatever its name says").unwrap();
    assert!(matches!(decode_file(&text, None), Err(AudioError::NotAudio(_))));

    // A WAV header with the data cut off.
    let full = dir.path().join("full.wav");
    write_wav(&full, 16_000, 1, 16, false, 1.0);
    let bytes = std::fs::read(&full).unwrap();
    let header_only = dir.path().join("header.wav");
    std::fs::write(&header_only, &bytes[..44]).unwrap();
    let err = decode_file(&header_only, None).unwrap_err();
    assert!(err.is_permanent(), "{err}");

    // Over the duration limit: refused, and said how long.
    let long = dir.path().join("long.wav");
    write_wav(&long, 8_000, 1, 16, false, 5.0);
    match decode_file(&long, Some(3.0)) {
        Err(AudioError::TooLong { actual_s, limit_s }) => assert!(actual_s > 3.0 && limit_s == 3.0),
        other => panic!("expected TooLong, got {other:?}"),
    }
    // An MP3 has no declared length: the limit is enforced while decoding.
    let mp3 = dir.path().join("long.mp3");
    tool("ffmpeg", &["-loglevel", "error", "-i", long.to_str().unwrap(), "-c:a", "libmp3lame", mp3.to_str().unwrap()]);
    assert!(matches!(decode_file(&mp3, Some(3.0)), Err(AudioError::TooLong { .. })));
    assert!(decode_file(&mp3, Some(10.0)).is_ok());
    assert!(matches!(decode_file(&dir.path().join("missing.wav"), None), Err(AudioError::Io(_))));
}

#[test]
fn a_file_of_more_than_two_channels_is_decoded_as_one_mixed_signal() {
    let dir = tempfile::tempdir().unwrap();
    let six = dir.path().join("six.wav");
    // Channel 0 carries 300 Hz and the other five 1 kHz: the mix is their average.
    write_wav(&six, 8_000, 6, 16, false, 2.0);
    let audio = decode_file(&six, None).unwrap();
    assert_eq!(audio.info.channels, 6, "the file's own count is reported");
    assert_eq!(audio.channels.len(), 1, "one signal is kept, whatever the count");
    assert!(audio.channels[0].len().abs_diff(2 * TARGET_RATE as usize) <= 1);
    // Mostly 1 kHz: the five channels outweigh the one.
    let mix = &audio.channels[0].window(4_000..28_000).unwrap();
    let peak = mix.iter().fold(0.0f32, |m, x| m.max(x.abs()));
    assert!((0.4..=0.55).contains(&peak), "an average of the channels, not a sum: peak {peak}");
    assert!((frequency(mix) - 1_000.0).abs() < 100.0, "{}", frequency(mix));
}
