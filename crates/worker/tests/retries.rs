//! The worker's handling of failures, with a decoder that fails on purpose in front of the real
//! one (the store, the storage and the decoding underneath are real). Speech recognition is not
//! what these tests are about: a transcriber that hears nothing stands in for Whisper.

use std::path::Path;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use callscope_audio::DecodedAudio;
use callscope_domain::{JobId, JobStatus, Language, NewJob, NewProject, ProjectId, SystemClock};
use callscope_pipeline::{
    AcousticDiarizer, AudioDecoder, Decoder, Gazetteer, Pipeline, PipelineSettings, Progress, RulePii, RulesEngine, StageError, Transcriber, Transcript,
};
use callscope_storage::Storage;
use callscope_store::testing::TestDatabase;
use callscope_store::{connect, Backend, Store, StoreOptions};
use callscope_worker::{JobEnd, RunOutcome, Worker, WorkerSettings};

/// Fails the first `failures` calls with `error`, then decodes for real.
struct Flaky {
    failures: AtomicU32,
    error: StageError,
}

#[async_trait]
impl Decoder for Flaky {
    async fn decode(&self, path: &Path, max: f64, progress: Arc<dyn Progress>) -> Result<DecodedAudio, StageError> {
        if self.failures.fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| n.checked_sub(1)).is_ok() {
            return Err(self.error.clone());
        }
        AudioDecoder.decode(path, max, progress).await
    }
}

/// Hears no speech.
struct Deaf;

#[async_trait]
impl Transcriber for Deaf {
    fn model_name(&self) -> String {
        "none".into()
    }

    async fn transcribe(&self, _: Arc<Vec<f32>>, _: Language, _: Box<dyn FnMut(f64) + Send>) -> Result<Transcript, StageError> {
        Ok(Transcript::default())
    }
}

struct Setup {
    _db: TestDatabase,
    store: Arc<dyn Store>,
    project: ProjectId,
    job: JobId,
    dir: tempfile::TempDir,
}

async fn setup() -> Setup {
    let db = TestDatabase::new(Backend::Sqlite).await;
    let store = connect(&StoreOptions { url: db.url().to_owned(), max_connections: 2 }, Arc::new(SystemClock)).await.unwrap();
    store.migrate().await.unwrap();
    let org = store.create_organization("acme").await.unwrap();
    let project = store.create_project(org.id, &NewProject::parse("p", None, None, None).unwrap()).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let job = JobId::new();
    let key = format!("projects/{}/{job}.wav", project.id);
    let path = dir.path().join("audio").join(&key);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let spec = hound::WavSpec { channels: 1, sample_rate: 8_000, bits_per_sample: 16, sample_format: hound::SampleFormat::Int };
    let mut writer = hound::WavWriter::create(&path, spec).unwrap();
    for i in 0..8_000 {
        writer.write_sample(((i as f32 * 0.2).sin() * 8_000.0) as i16).unwrap();
    }
    writer.finalize().unwrap();
    let new = NewJob {
        id: job,
        original_filename: "a.wav".into(),
        content_type: "audio/wav".into(),
        size_bytes: 16_044,
        sha256: "0".repeat(64),
        storage_path: key,
        language: Language::En,
        channel_roles: None,
        recorded_at: None,
    };
    store.create_job(project.id, &new).await.unwrap();
    Setup { _db: db, store, project: project.id, job, dir }
}

fn worker(setup: &Setup, decoder: Flaky, retry_base: Duration) -> Worker {
    let storage = Storage::local(&setup.dir.path().join("audio")).unwrap();
    let pipeline = Pipeline::new(
        Arc::new(decoder),
        Arc::new(Deaf),
        Arc::new(AcousticDiarizer::new(2)),
        Arc::new(RulePii::new(Arc::new(Gazetteer::default()))),
        Arc::new(RulesEngine::new(Arc::default(), Arc::default())),
        PipelineSettings { max_duration_s: 60.0 },
    );
    let settings = WorkerSettings {
        lease: Duration::from_secs(30),
        heartbeat: Duration::from_secs(5),
        max_attempts: 3,
        retry_base,
        poll_interval: Duration::from_millis(10),
        scratch_dir: setup.dir.path().to_owned(),
        redact_audio: false,
    };
    Worker::new(setup.store.clone(), storage, pipeline, Arc::new(SystemClock), settings)
}

fn flaky(failures: u32, error: StageError) -> Flaky {
    Flaky { failures: AtomicU32::new(failures), error }
}

#[tokio::test]
async fn passing_failures_are_retried_until_the_job_completes() {
    let setup = setup().await;
    let worker = worker(&setup, flaky(2, StageError::Retryable("storage timed out".into())), Duration::ZERO);
    let ends: Vec<RunOutcome> = [worker.run_once().await, worker.run_once().await, worker.run_once().await]
        .into_iter()
        .map(Result::unwrap)
        .collect();
    assert_eq!(
        ends,
        [RunOutcome::Ran(setup.job, JobEnd::Retrying), RunOutcome::Ran(setup.job, JobEnd::Retrying), RunOutcome::Ran(setup.job, JobEnd::Completed)]
    );
    let job = setup.store.get_job(setup.project, setup.job).await.unwrap();
    assert_eq!((job.status, job.attempts), (JobStatus::Completed, 3));
    assert_eq!(job.error_message, None, "a completed job carries no error");
    assert_eq!(worker.run_once().await.unwrap(), RunOutcome::Idle);
}

#[tokio::test]
async fn retries_wait_for_their_backoff() {
    let setup = setup().await;
    let worker = worker(&setup, flaky(1, StageError::Retryable("engine busy".into())), Duration::from_secs(30));
    assert_eq!(worker.run_once().await.unwrap(), RunOutcome::Ran(setup.job, JobEnd::Retrying));
    let job = setup.store.get_job(setup.project, setup.job).await.unwrap();
    assert_eq!(job.status, JobStatus::Pending);
    assert_eq!(job.error_message.as_deref(), Some("attempt 1 failed: engine busy; retrying"));
    assert_eq!(worker.run_once().await.unwrap(), RunOutcome::Idle, "not before its backoff");
}

#[tokio::test]
async fn a_job_that_keeps_failing_is_given_up_after_the_last_attempt() {
    let setup = setup().await;
    let worker = worker(&setup, flaky(u32::MAX, StageError::Retryable("engine busy".into())), Duration::ZERO);
    for _ in 0..2 {
        assert_eq!(worker.run_once().await.unwrap(), RunOutcome::Ran(setup.job, JobEnd::Retrying));
    }
    assert_eq!(worker.run_once().await.unwrap(), RunOutcome::Ran(setup.job, JobEnd::Failed));
    let job = setup.store.get_job(setup.project, setup.job).await.unwrap();
    assert_eq!(job.status, JobStatus::Failed);
    assert_eq!(job.error_message.as_deref(), Some("gave up after 3 attempts: engine busy"));
    let events = setup.store.list_events(setup.project).await.unwrap();
    assert_eq!(events.len(), 1);
    assert_eq!(events[0].0, "call.failed");
}

#[tokio::test]
async fn bad_input_fails_on_the_first_attempt() {
    let setup = setup().await;
    let worker = worker(&setup, flaky(1, StageError::Fatal("the file is not audio".into())), Duration::ZERO);
    assert_eq!(worker.run_once().await.unwrap(), RunOutcome::Ran(setup.job, JobEnd::Failed));
    let job = setup.store.get_job(setup.project, setup.job).await.unwrap();
    assert_eq!((job.status, job.attempts), (JobStatus::Failed, 1));
    assert_eq!(job.error_message.as_deref(), Some("the file is not audio"));
}
