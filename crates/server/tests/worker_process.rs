//! Worker processes sharing one database and store: one is killed in the middle of a job, and
//! another takes the job over once its lease has run out and finishes it exactly once; one is
//! killed between two attempts of a webhook delivery, and the next one sends it once.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use callscope_domain::{JobId, JobStatus, Language, NewJob, NewProject, Project, SystemClock};
use callscope_store::testing::TestDatabase;
use callscope_store::{both_backends, connect, Backend, Store, StoreOptions};

both_backends!(
    a_worker_killed_mid_job_is_taken_over_and_the_job_finishes_once,
    a_worker_killed_between_delivery_attempts_loses_no_event_and_sends_none_twice,
);

/// A valid 16-bit PCM WAV header over `seconds` of sparse silence: real work for the decoder,
/// no disk for the test.
fn write_long_wav(path: &Path, seconds: u32, rate: u32, channels: u16) -> u64 {
    use std::io::Write;
    let data = u64::from(seconds) * u64::from(rate) * u64::from(channels) * 2;
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let mut file = std::fs::File::create(path).unwrap();
    let block = channels * 2;
    let mut header = Vec::new();
    header.extend_from_slice(b"RIFF");
    header.extend_from_slice(&u32::try_from(36 + data).unwrap().to_le_bytes());
    header.extend_from_slice(b"WAVEfmt ");
    header.extend_from_slice(&16u32.to_le_bytes());
    header.extend_from_slice(&1u16.to_le_bytes());
    header.extend_from_slice(&channels.to_le_bytes());
    header.extend_from_slice(&rate.to_le_bytes());
    header.extend_from_slice(&(rate * u32::from(block)).to_le_bytes());
    header.extend_from_slice(&block.to_le_bytes());
    header.extend_from_slice(&16u16.to_le_bytes());
    header.extend_from_slice(b"data");
    header.extend_from_slice(&u32::try_from(data).unwrap().to_le_bytes());
    file.write_all(&header).unwrap();
    file.set_len(44 + data).unwrap();
    44 + data
}

/// An artifact of `callscope models install --profile test`.
fn test_artifact(name: &str) -> std::path::PathBuf {
    std::env::var_os("CALLSCOPE_TEST_MODELS_DIR").map_or_else(callscope_models::default_dir, std::path::PathBuf::from).join(name)
}

fn spawn_worker(db: &TestDatabase, data_dir: &Path, log: &Path) -> Child {
    spawn_worker_with(db, data_dir, log, &[])
}

fn spawn_worker_with(db: &TestDatabase, data_dir: &Path, log: &Path, settings: &[(&str, String)]) -> Child {
    Command::new(env!("CARGO_BIN_EXE_callscope"))
        .envs(settings.iter().map(|(k, v)| (*k, v.as_str())))
        .args(["worker", "--count", "1"])
        .env("CALLSCOPE_DATABASE_URL", db.url())
        .env("CALLSCOPE_DATA_DIR", data_dir)
        .env("CALLSCOPE_JOB_LEASE_SECONDS", "2")
        .env("CALLSCOPE_JOB_HEARTBEAT_SECONDS", "1")
        .env("CALLSCOPE_WORKER_POLL_INTERVAL_MS", "50")
        .env("CALLSCOPE_LOG_FORMAT", "json")
        .env("CALLSCOPE_SPEECH_MODEL", test_artifact("whisper-tiny.en"))
        .env("CALLSCOPE_VAD_MODEL", test_artifact("silero-vad"))
        .env("CALLSCOPE_SPEECH_THREADS", "1")
        .env("CALLSCOPE_ANALYSIS_ENGINE", "rules")
        .env_remove("CALLSCOPE_CONFIG")
        .env_remove("CALLSCOPE_STORAGE_URL")
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(log).unwrap())
        .spawn()
        .unwrap()
}

async fn wait_for(
    store: &Arc<dyn Store>,
    project: callscope_domain::ProjectId,
    job: JobId,
    status: JobStatus,
    within: Duration,
) -> callscope_domain::Job {
    let deadline = Instant::now() + within;
    loop {
        let current = store.get_job(project, job).await.unwrap();
        if current.status == status {
            return current;
        }
        assert!(Instant::now() < deadline, "job still {:?} (wanted {status:?}): {current:?}", current.status);
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
}

/// A migrated test database with one project, and the data directory the workers use.
async fn open(backend: Backend) -> (TestDatabase, PathBuf, Arc<dyn Store>, Project) {
    let db = TestDatabase::new(backend).await;
    let data_dir = db.dir().join("data");
    let store = connect(&StoreOptions { url: db.url().to_owned(), max_connections: 4 }, Arc::new(SystemClock)).await.unwrap();
    store.migrate().await.unwrap();
    let org = store.create_organization("acme").await.unwrap();
    let project = store.create_project(org.id, &NewProject::parse("calls", None, None, None).unwrap()).await.unwrap();
    (db, data_dir, store, project)
}

async fn a_worker_killed_mid_job_is_taken_over_and_the_job_finishes_once(backend: Backend) {
    let (db, data_dir, store, project) = open(backend).await;

    // 30 minutes of 48 kHz stereo: seconds of decoding, long enough to be killed in the middle.
    let job_id = JobId::new();
    let key = format!("projects/{}/{job_id}.wav", project.id);
    let size = write_long_wav(&data_dir.join("audio").join(&key), 1800, 48_000, 2);
    let new = NewJob {
        id: job_id,
        original_filename: "long.wav".into(),
        content_type: "audio/wav".into(),
        size_bytes: i64::try_from(size).unwrap(),
        sha256: "0".repeat(64),
        storage_path: key,
        language: Language::En,
        channel_roles: None,
        recorded_at: None,
    };
    store.create_job(project.id, &new).await.unwrap();

    let mut first = spawn_worker(&db, &data_dir, &db.dir().join("first.log"));
    let taken = wait_for(&store, project.id, job_id, JobStatus::Processing, Duration::from_secs(30)).await;
    assert_eq!(taken.attempts, 1);
    // The heartbeat writes how far decoding got while it runs.
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let running = store.get_job(project.id, job_id).await.unwrap();
        if running.progress > 0.0 {
            assert_eq!(running.stage, callscope_domain::JobStage::Decoding);
            assert!(running.progress < 0.1, "decoding is the first tenth of the job: {}", running.progress);
            break;
        }
        assert!(Instant::now() < deadline, "progress did not move: {running:?}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    first.kill().unwrap(); // SIGKILL: no chance to clean up
    first.wait().unwrap();
    let orphaned = store.get_job(project.id, job_id).await.unwrap();
    assert_eq!(orphaned.status, JobStatus::Processing, "the job was in the middle when its worker died");

    let log = db.dir().join("second.log");
    let mut second = spawn_worker(&db, &data_dir, &log);
    let done = wait_for(&store, project.id, job_id, JobStatus::Completed, Duration::from_secs(120)).await;
    assert_eq!(done.attempts, 2, "taken over once");
    let call = done.transcript_id.expect("the call");
    let events = store.list_events(project.id).await.unwrap();
    assert_eq!(events.len(), 1, "one call.completed: {events:?}");
    assert_eq!(events[0].1["id"], call.to_string());
    assert_eq!(events[0].1["durationS"], 1800.0);

    // SIGTERM stops the worker cleanly.
    assert!(Command::new("kill").args(["-TERM", &second.id().to_string()]).status().unwrap().success());
    let status = second.wait().unwrap();
    assert!(status.success(), "{status:?}: {}", std::fs::read_to_string(&log).unwrap());
}

async fn a_worker_killed_between_delivery_attempts_loses_no_event_and_sends_none_twice(backend: Backend) {
    use callscope_webhooks::testing::{raise_event, verify_independently, Receiver, Reply};

    let (db, data_dir, store, project) = open(backend).await;
    let receiver = Receiver::start().await;
    receiver.reply_with([Reply::Status(500)]);
    let ca = db.dir().join("receiver-ca.pem");
    std::fs::write(&ca, receiver.ca_pem()).unwrap();
    let secret = callscope_domain::generate_secret();
    let hook = store.create_webhook(project.id, &receiver.url("localhost"), &["call.failed".into()], &secret).await.unwrap();
    let settings = [
        ("CALLSCOPE_WEBHOOKS_ALLOW_PRIVATE", "true".to_owned()),
        ("CALLSCOPE_WEBHOOKS_EXTRA_CA_FILE", ca.display().to_string()),
        ("CALLSCOPE_WEBHOOK_RETRY_DELAYS", "2s".to_owned()),
        ("CALLSCOPE_WEBHOOK_POLL_INTERVAL_MS", "50".to_owned()),
    ];

    // Events written with the change that raises them (a job that fails), before any process
    // runs; the worker processes below have no jobs to take.
    let raise = |n: u32| raise_event(store.as_ref(), project.id, n);
    raise(1).await;

    let mut first = spawn_worker_with(&db, &data_dir, &db.dir().join("first.log"), &settings);
    receiver.wait_for(1, Duration::from_secs(60)).await;
    let deadline = Instant::now() + Duration::from_secs(10);
    while store.list_deliveries(project.id, hook.id, 10).await.unwrap()[0].status.as_str() != "RETRYING" {
        assert!(Instant::now() < deadline, "the failed attempt was not recorded");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    first.kill().unwrap(); // SIGKILL between the attempts
    first.wait().unwrap();
    raise(2).await;

    let log = db.dir().join("second.log");
    let mut second = spawn_worker_with(&db, &data_dir, &log, &settings);
    let got = receiver.wait_for(3, Duration::from_secs(60)).await;
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let log = store.list_deliveries(project.id, hook.id, 10).await.unwrap();
        if log.iter().all(|d| d.status.as_str() == "SUCCEEDED") {
            let attempts: Vec<i32> = log.iter().map(|d| d.attempts).collect();
            assert_eq!(attempts, [1, 2], "newest first: the second event once, the first after its retry");
            break;
        }
        assert!(Instant::now() < deadline, "not delivered: {log:?}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    tokio::time::sleep(Duration::from_millis(300)).await;
    let got_now = receiver.received();
    assert_eq!(got_now.len(), 3, "a failed attempt and two deliveries, nothing twice");
    let files: Vec<String> = got.iter().map(|r| r.json()["data"]["originalFilename"].as_str().unwrap().to_owned()).collect();
    assert_eq!(files.iter().filter(|f| *f == "call-1.wav").count(), 2, "the first event: the 500 and its retry");
    assert_eq!(files.iter().filter(|f| *f == "call-2.wav").count(), 1);
    verify_independently(&secret, &got).expect("signed");

    assert!(Command::new("kill").args(["-TERM", &second.id().to_string()]).status().unwrap().success());
    let status = second.wait().unwrap();
    assert!(status.success(), "{status:?}: {}", std::fs::read_to_string(&log).unwrap());
}
