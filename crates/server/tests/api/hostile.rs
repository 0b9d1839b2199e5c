//! Files made to hurt the decoder, uploaded as a new user (or an attacker) would: each ends in a
//! clear 4xx or a finished job, the server stays up, and the next good upload completes. The
//! decoder runs in a child process of the real binary; one test makes that child abort.

use callscope_store::Backend;
use serde_json::Value;

use crate::helpers::{spawn_app_with, wav_bytes, TestApp};

both_backends!(hostile_files_end_in_a_4xx_or_a_job_that_ends_and_the_service_goes_on, a_decoder_that_aborts_fails_its_job_and_nothing_else,);

/// What an upload must come to.
#[derive(Debug)]
enum Expect {
    /// Refused at the door with this status.
    Refused(u16),
    /// A FAILED job whose message holds this.
    Failed(&'static str),
    /// A COMPLETED job.
    Completes,
    /// A job that ends, either way.
    Ends,
}

/// A WAV file by hand: `format` 1 (PCM) or 3 (float), the data chunk declaring `declared` bytes.
fn wav(rate: u32, channels: u16, bits: u16, format: u16, data: &[u8], declared: Option<u32>) -> Vec<u8> {
    let block = channels * (bits / 8);
    let data_len = declared.unwrap_or(data.len() as u32);
    let mut out = b"RIFF".to_vec();
    out.extend(36u32.saturating_add(data_len).to_le_bytes());
    out.extend(b"WAVEfmt ");
    out.extend(16u32.to_le_bytes());
    out.extend(format.to_le_bytes());
    out.extend(channels.to_le_bytes());
    out.extend(rate.to_le_bytes());
    out.extend((rate * u32::from(block)).to_le_bytes());
    out.extend(block.to_le_bytes());
    out.extend(bits.to_le_bytes());
    out.extend(b"data");
    out.extend(data_len.to_le_bytes());
    out.extend(data);
    out
}

/// `seconds` of a quiet 16-bit tone on each of `channels`.
fn pcm(rate: u32, channels: u16, seconds: f32) -> Vec<u8> {
    let frames = (rate as f32 * seconds) as usize;
    (0..frames).flat_map(|i| (0..channels).flat_map(move |_| (((i as f32 * 0.05).sin() * 3_000.0) as i16).to_le_bytes())).collect()
}

/// Bytes that look random but are the same every run.
fn noise(n: usize, seed: u32) -> Vec<u8> {
    (0..n as u32).map(|i| (i.wrapping_add(seed).wrapping_mul(2_654_435_761) >> 13) as u8).collect()
}

/// Two hours of digital silence as FLAC: a file far smaller than what it decodes to (a
/// quarter of the PCM), over this test's duration limit.
fn hours_of_silence_as_flac() -> Vec<u8> {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("silence.flac");
    let made = std::process::Command::new("sox")
        .args(["-n", "-r", "8000", "-c", "2", "-b", "16"])
        .arg(&path)
        .args(["trim", "0", "7200"])
        .output()
        .expect("sox makes the test's audio (scripts/test installs it)");
    assert!(made.status.success(), "{}", String::from_utf8_lossy(&made.stderr));
    std::fs::read(path).unwrap()
}

async fn upload_to_its_end(app: &TestApp, project: &str, name: &str, bytes: Vec<u8>) -> (u16, Option<Value>) {
    let response = app.upload(project, "", name, bytes).await;
    let status = response.status().as_u16();
    if status != 202 {
        return (status, None);
    }
    let accepted: Value = response.json().await.unwrap();
    (status, Some(app.wait_for_job(project, accepted["jobId"].as_str().unwrap()).await))
}

async fn assert_up(app: &TestApp) {
    assert_eq!(app.get("/healthz").await.status(), 200, "the service is up");
}

async fn hostile_files_end_in_a_4xx_or_a_job_that_ends_and_the_service_goes_on(backend: Backend) {
    let app = spawn_app_with(backend, |c| c.max_audio_duration_seconds = 60.0).await;
    let project = app.create_project("p").await;
    let id = project["id"].as_str().unwrap();
    let nan: Vec<u8> = std::iter::repeat_n(f32::NAN.to_le_bytes(), 4_000).flatten().collect();
    let mut mp3 = Vec::new();
    for frame in 0..60 {
        mp3.extend([0xFF, 0xFB, 0x90, 0x64]);
        mp3.extend(noise(413, frame));
    }
    let mut ogg = b"OggS\x00\x02".to_vec();
    ogg.extend(noise(4_096, 7));
    let mut wrong_magic = wav(8_000, 1, 16, 1, &pcm(8_000, 1, 0.5), None);
    wrong_magic[..4].copy_from_slice(b"RIFX");
    let cases: Vec<(&str, Vec<u8>, Expect)> = vec![
        ("zero bytes", Vec::new(), Expect::Refused(415)),
        ("a truncated header", b"RIFF\x24\x00\x00\x00WAVEfm".to_vec(), Expect::Failed("not audio")),
        ("wrong magic", wrong_magic, Expect::Refused(415)),
        ("a header declaring 4 GB", wav(8_000, 1, 16, 1, &pcm(8_000, 1, 1.0), Some(0xFFFF_FFF0)), Expect::Ends),
        ("1 Hz", wav(1, 1, 16, 1, &pcm(8_000, 1, 0.5), None), Expect::Failed("sample rate")),
        ("384 kHz", wav(384_000, 1, 16, 1, &pcm(384_000, 1, 0.3), None), Expect::Completes),
        ("NaN floats", wav(8_000, 1, 32, 3, &nan, None), Expect::Completes),
        ("8 channels", wav(8_000, 8, 16, 1, &pcm(8_000, 8, 0.5), None), Expect::Completes),
        ("32 channels", wav(8_000, 32, 16, 1, &pcm(8_000, 32, 0.3), None), Expect::Ends),
        ("hours of compressed silence", hours_of_silence_as_flac(), Expect::Failed("over the limit of 60 s")),
        ("garbage MP3 frames", mp3, Expect::Failed("")),
        ("a broken OGG page", ogg, Expect::Failed("")),
    ];
    for (what, bytes, expect) in cases {
        let (status, job) = upload_to_its_end(&app, id, "hostile.wav", bytes).await;
        match (&expect, status, &job) {
            (Expect::Refused(wanted), status, None) => assert_eq!(status, *wanted, "{what}"),
            (Expect::Failed(part), 202, Some(job)) => {
                assert_eq!(job["status"], "FAILED", "{what}: {job}");
                let message = job["errorMessage"].as_str().unwrap();
                assert!(message.contains(part), "{what}: {message}");
                assert!(!message.contains("panicked"), "{what}: {message}");
            }
            (Expect::Completes, 202, Some(job)) => assert_eq!(job["status"], "COMPLETED", "{what}: {job}"),
            (Expect::Ends, 202, Some(job)) => assert!(job["status"] == "COMPLETED" || job["status"] == "FAILED", "{what}: {job}"),
            _ => panic!("{what}: expected {expect:?}, got {status} {job:?}"),
        }
        assert_up(&app).await;
    }
    let good = app.upload_and_wait(id, "", "good.wav", wav_bytes(8_000, 1, 1.0)).await;
    assert_eq!(good["status"], "COMPLETED", "the next good upload: {good}");
    // The decoded signals were read from scratch files, which went with their jobs, however
    // each ended.
    let scratch: Vec<_> = std::fs::read_dir(app.config.data_dir.join("tmp")).unwrap().flatten().map(|e| e.path()).collect();
    assert!(scratch.is_empty(), "scratch files left behind: {scratch:?}");
}

async fn a_decoder_that_aborts_fails_its_job_and_nothing_else(backend: Backend) {
    // A decoder that aborts on files carrying a marker and decodes every other one for real.
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("decoder");
    let real = env!("CARGO_BIN_EXE_callscope");
    std::fs::write(&script, format!("#!/bin/sh\nif grep -q ABORT-HERE \"$4\"; then kill -ABRT $$; fi\nexec '{real}' \"$@\"\n")).unwrap();
    std::fs::set_permissions(&script, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let app = spawn_app_with(backend, |c| c.decoder_program = script.display().to_string()).await;
    let project = app.create_project("p").await;
    let id = project["id"].as_str().unwrap();

    let mut marked = wav_bytes(8_000, 1, 0.5);
    marked.extend(b"ABORT-HERE");
    let job = app.upload_and_wait(id, "", "marked.wav", marked).await;
    assert_eq!(job["status"], "FAILED", "{job}");
    assert_eq!(job["attempts"], 1, "a file that crashes the decoder is not tried again");
    let message = job["errorMessage"].as_str().unwrap();
    assert!(message.contains("the decoder stopped on this file") && message.contains("aborted"), "{message}");
    assert_up(&app).await;
    let good = app.upload_and_wait(id, "", "good.wav", wav_bytes(8_000, 1, 1.0)).await;
    assert_eq!(good["status"], "COMPLETED", "the next good upload: {good}");
}

/// Nothing to report to.
struct Quiet;

impl callscope_pipeline::Progress for Quiet {
    fn report(&self, _: callscope_domain::JobStage, _: f64) {}
}

#[tokio::test]
async fn the_service_reads_decoded_signals_from_files_that_go_with_them() {
    use callscope_audio::SampleSource;
    use callscope_pipeline::{Decoder, IsolatedDecoder};

    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("call.wav");
    std::fs::write(&input, wav(8_000, 2, 16, 1, &pcm(8_000, 2, 1.5), None)).unwrap();
    let scratch = dir.path().join("tmp");
    let decoder = IsolatedDecoder::new(env!("CARGO_BIN_EXE_callscope").into(), scratch.clone(), 1 << 30);
    let audio = decoder.decode(&input, 60.0, std::sync::Arc::new(Quiet)).await.unwrap();
    assert_eq!(audio.channels.len(), 2);
    // Not held in memory: a four-hour call would be close to a gigabyte a channel.
    assert!(audio.channels.iter().all(|c| !c.in_memory()), "{:?}", audio.channels);
    assert_eq!(std::fs::read_dir(&scratch).unwrap().count(), 0, "no name is left to leak, even while the signals live");
    let direct = callscope_audio::decode_file(&input, None).unwrap();
    for (kept, expected) in audio.channels.iter().zip(&direct.channels) {
        assert_eq!(kept.window(0..kept.len()).unwrap(), expected.to_vec().unwrap());
    }
}
