//! The worker's handling of failures, with a decoder that fails on purpose in front of the real
//! one (the store, the storage and the decoding underneath are real). Speech recognition is not
//! what these tests are about: a transcriber that hears nothing (or says a given line) stands in
//! for Whisper.

use std::path::Path;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use callscope_audio::{DecodedAudio, Signal};
use callscope_domain::{JobId, JobStatus, Language, NewJob, NewProject, PiiRedaction, ProjectId, SystemClock};
use callscope_pipeline::{
    AcousticDiarizer, AnalysisError, AnalysisInput, Analyzer, AudioDecoder, CallAnalysis, Decoder, Diarizer, Gazetteer, Pipeline, PipelineSettings,
    Progress, Region, RulePii, RulesEngine, StageError, Stages, Transcriber, Transcript, Word,
};
use callscope_storage::Storage;
use callscope_store::testing::TestDatabase;
use callscope_store::{connect, Backend, Store, StoreOptions};
use callscope_worker::{JobEnd, RunOutcome, StageLimits, Worker, WorkerSettings};
use sha2::Digest;

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

    async fn transcribe(&self, _: Signal, _: Language, _: Option<&str>, _: Box<dyn FnMut(f64) + Send>) -> Result<Transcript, StageError> {
        Ok(Transcript::default())
    }
}

/// Says `line`, a word every 0.08 s, after waiting for `gate` (if any) to open.
struct Speaks {
    line: &'static str,
    gate: Option<Arc<tokio::sync::Semaphore>>,
}

#[async_trait]
impl Transcriber for Speaks {
    fn model_name(&self) -> String {
        "script".into()
    }

    async fn transcribe(&self, _: Signal, _: Language, _: Option<&str>, _: Box<dyn FnMut(f64) + Send>) -> Result<Transcript, StageError> {
        if let Some(gate) = &self.gate {
            let _ = gate.acquire().await.unwrap();
        }
        let words = self
            .line
            .split_whitespace()
            .enumerate()
            .map(|(i, w)| Word { text: w.into(), start_s: i as f32 * 0.08, end_s: i as f32 * 0.08 + 0.07, probability: 0.9, speaker: 0 })
            .collect();
        Ok(Transcript { words, speech: Vec::new() })
    }
}

/// Never returns from its first `hangs` transcriptions; then says "thank you" after reporting
/// its progress `reports` times, `pause` apart.
struct Hangs {
    hangs: AtomicU32,
    reports: u32,
    pause: Duration,
}

#[async_trait]
impl Transcriber for Hangs {
    fn model_name(&self) -> String {
        "hangs".into()
    }

    async fn transcribe(&self, _: Signal, _: Language, _: Option<&str>, mut progress: Box<dyn FnMut(f64) + Send>) -> Result<Transcript, StageError> {
        if self.hangs.fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| n.checked_sub(1)).is_ok() {
            std::future::pending::<()>().await;
        }
        for i in 0..self.reports {
            tokio::time::sleep(self.pause).await;
            progress(f64::from(i) / f64::from(self.reports));
        }
        let words = vec![Word { text: "thank you".into(), start_s: 0.1, end_s: 0.5, probability: 0.9, speaker: 0 }];
        Ok(Transcript { words, speech: Vec::new() })
    }
}

/// Hears no speech, and counts how often it was asked.
#[derive(Default)]
struct Counting(Arc<AtomicU32>);

#[async_trait]
impl Transcriber for Counting {
    fn model_name(&self) -> String {
        "counting".into()
    }

    async fn transcribe(&self, _: Signal, _: Language, _: Option<&str>, _: Box<dyn FnMut(f64) + Send>) -> Result<Transcript, StageError> {
        self.0.fetch_add(1, Ordering::SeqCst);
        Ok(Transcript::default())
    }
}

/// Works on a blocking thread as Whisper does, reporting progress every 10 ms but never getting
/// further, for 10 s; `ended` turns true when that thread stops, however it stops.
struct Spins {
    ended: Arc<std::sync::atomic::AtomicBool>,
}

#[async_trait]
impl Transcriber for Spins {
    fn model_name(&self) -> String {
        "spins".into()
    }

    async fn transcribe(&self, _: Signal, _: Language, _: Option<&str>, mut progress: Box<dyn FnMut(f64) + Send>) -> Result<Transcript, StageError> {
        struct Ended(Arc<std::sync::atomic::AtomicBool>);
        impl Drop for Ended {
            fn drop(&mut self) {
                self.0.store(true, Ordering::SeqCst);
            }
        }
        let ended = Ended(self.ended.clone());
        let _ = tokio::task::spawn_blocking(move || {
            let _ended = ended;
            for _ in 0..1_000 {
                std::thread::sleep(Duration::from_millis(10));
                progress(0.0);
            }
        })
        .await;
        Ok(Transcript::default())
    }
}

/// Hears one speaker.
struct OneSpeaker;

#[async_trait]
impl Diarizer for OneSpeaker {
    async fn diarize(&self, _: Signal, _: Vec<Region>, words: Vec<Word>, _: Box<dyn FnMut(f64) + Send>) -> Result<Vec<Word>, StageError> {
        Ok(words)
    }
}

/// Fails its first call as an engine that is down does, then analyses with the rules.
struct DownOnce(AtomicU32);

#[async_trait]
impl Analyzer for DownOnce {
    fn model_used(&self) -> String {
        "rules".into()
    }

    async fn analyze(&self, input: &AnalysisInput) -> Result<CallAnalysis, AnalysisError> {
        if self.0.fetch_add(1, Ordering::SeqCst) == 0 {
            return Err(AnalysisError::Unavailable("the analysis engine is down".into()));
        }
        RulesEngine::new(Arc::default(), Arc::default()).analyze(input).await
    }
}

/// Panics on its first call, then analyses with the rules.
struct PanicsOnce(AtomicU32);

#[async_trait]
impl Analyzer for PanicsOnce {
    fn model_used(&self) -> String {
        "rules".into()
    }

    async fn analyze(&self, input: &AnalysisInput) -> Result<CallAnalysis, AnalysisError> {
        if self.0.fetch_add(1, Ordering::SeqCst) == 0 {
            panic!("an index out of range, say");
        }
        RulesEngine::new(Arc::default(), Arc::default()).analyze(input).await
    }
}

struct Setup {
    db: TestDatabase,
    store: Arc<dyn Store>,
    project: ProjectId,
    job: JobId,
    dir: tempfile::TempDir,
}

async fn setup() -> Setup {
    setup_with(None).await
}

async fn setup_with(pii_redaction: Option<PiiRedaction>) -> Setup {
    setup_on(Backend::Sqlite, pii_redaction).await
}

async fn setup_on(backend: Backend, pii_redaction: Option<PiiRedaction>) -> Setup {
    let db = TestDatabase::new(backend).await;
    let store = connect(&StoreOptions { url: db.url().to_owned(), max_connections: 2 }, Arc::new(SystemClock)).await.unwrap();
    store.migrate().await.unwrap();
    let org = store.create_organization("acme").await.unwrap();
    let project = store.create_project(org.id, &NewProject::parse("p", None, None, pii_redaction).unwrap()).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let job = queue_job(&store, project.id, dir.path()).await;
    Setup { db, store, project: project.id, job, dir }
}

/// Stores a second of audio as an upload of `project` and queues its job.
async fn queue_job(store: &Arc<dyn Store>, project: ProjectId, dir: &Path) -> JobId {
    let job = JobId::new();
    let key = format!("projects/{project}/{job}.wav");
    let path = dir.join("audio").join(&key);
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
    store.create_job(project, &new).await.unwrap();
    job
}

fn settings(setup: &Setup, retry_base: Duration) -> WorkerSettings {
    WorkerSettings {
        lease: Duration::from_secs(30),
        heartbeat: Duration::from_secs(5),
        stage_limits: StageLimits::default(),
        shutdown_grace: Duration::from_secs(5),
        max_attempts: 3,
        retry_base,
        poll_interval: Duration::from_millis(10),
        scratch_dir: setup.dir.path().to_owned(),
        redact_audio: false,
    }
}

/// The stages a test worker varies; the PII scanner is always the real one.
struct Varied {
    decoder: Arc<dyn Decoder>,
    transcriber: Arc<dyn Transcriber>,
    diarizer: Arc<dyn Diarizer>,
    analyzer: Arc<dyn Analyzer>,
}

fn worker_of(setup: &Setup, stages: Varied, settings: WorkerSettings) -> Worker {
    let storage = Storage::local(&setup.dir.path().join("audio")).unwrap();
    let pii = Arc::new(RulePii::new(Arc::new(Gazetteer::default())));
    let Varied { decoder, transcriber, diarizer, analyzer } = stages;
    let pipeline = Pipeline::new(
        Stages { decoder, transcriber, diarizer, pii, analyzer },
        PipelineSettings { max_duration_s: 60.0, keep_audio_for_redaction: true, speech_hints: false, vocabulary_hints: true },
    );
    Worker::new(setup.store.clone(), storage, pipeline, Arc::new(SystemClock), settings)
}

fn worker(setup: &Setup, decoder: Flaky, retry_base: Duration) -> Worker {
    let stages =
        Varied { decoder: Arc::new(decoder), transcriber: Arc::new(Deaf), diarizer: Arc::new(AcousticDiarizer::new(2)), analyzer: Arc::new(rules()) };
    worker_of(setup, stages, settings(setup, retry_base))
}

fn rules() -> RulesEngine {
    RulesEngine::new(Arc::default(), Arc::default())
}

/// A worker that transcribes `line` (after `gate` opens) and analyses with `analyzer`.
fn speaking_worker(
    setup: &Setup,
    line: &'static str,
    gate: Option<Arc<tokio::sync::Semaphore>>,
    analyzer: Arc<dyn Analyzer>,
    settings: WorkerSettings,
) -> Worker {
    let stages = Varied { decoder: Arc::new(AudioDecoder), transcriber: Arc::new(Speaks { line, gate }), diarizer: Arc::new(OneSpeaker), analyzer };
    worker_of(setup, stages, settings)
}

fn flaky(failures: u32, error: StageError) -> Flaky {
    Flaky { failures: AtomicU32::new(failures), error }
}

#[tokio::test]
async fn passing_failures_are_retried_until_the_job_completes() {
    let setup = setup().await;
    let worker = worker(&setup, flaky(2, StageError::Retryable("storage timed out".into())), Duration::ZERO);
    let ends: Vec<RunOutcome> = [worker.run_once().await, worker.run_once().await, worker.run_once().await].into_iter().map(Result::unwrap).collect();
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

#[tokio::test]
async fn a_panic_in_analysis_fails_the_attempt_and_the_next_job_completes() {
    let setup = setup().await;
    let next = queue_job(&setup.store, setup.project, setup.dir.path()).await;
    let analyzer = Arc::new(PanicsOnce(AtomicU32::new(0)));
    let worker = speaking_worker(
        &setup,
        "I will call you back tomorrow.",
        None,
        analyzer,
        WorkerSettings { max_attempts: 1, ..settings(&setup, Duration::ZERO) },
    );
    assert_eq!(worker.run_once().await.unwrap(), RunOutcome::Ran(setup.job, JobEnd::Failed));
    let failed = setup.store.get_job(setup.project, setup.job).await.unwrap();
    assert_eq!(failed.status, JobStatus::Failed);
    let message = failed.error_message.unwrap();
    // Clients and webhooks see that it was a bug, not what the bug said (that is in the log).
    assert!(message.contains("internal error") && message.contains("service log"), "{message}");
    assert!(!message.contains("index out of range"), "{message}");
    assert_eq!(worker.run_once().await.unwrap(), RunOutcome::Ran(next, JobEnd::Completed), "the queue goes on");
    assert_eq!(worker.run_once().await.unwrap(), RunOutcome::Idle);
}

#[tokio::test]
async fn a_worker_that_lost_its_lease_leaves_the_winners_redacted_audio_alone() {
    let setup = setup_with(Some(PiiRedaction::Mask)).await;
    let line = "Please write to jan.kowalski@example.com about it.";
    let redacting = |lease_s: u64| WorkerSettings {
        lease: Duration::from_secs(lease_s),
        heartbeat: Duration::from_secs(60),
        redact_audio: true,
        ..settings(&setup, Duration::ZERO)
    };
    // The first worker takes the job and stalls in transcription past its one-second lease.
    let gate = Arc::new(tokio::sync::Semaphore::new(0));
    let slow = Arc::new(speaking_worker(&setup, line, Some(gate.clone()), Arc::new(rules()), redacting(1)));
    let fast = speaking_worker(&setup, line, None, Arc::new(rules()), redacting(30));
    assert_ne!(slow.id(), fast.id());
    let stalled = tokio::spawn({
        let slow = slow.clone();
        async move { slow.run_once().await.unwrap() }
    });
    tokio::time::sleep(Duration::from_millis(1_300)).await;
    assert_eq!(fast.run_once().await.unwrap(), RunOutcome::Ran(setup.job, JobEnd::Completed), "taken over and finished");
    gate.add_permits(1);
    assert_eq!(stalled.await.unwrap(), RunOutcome::Ran(setup.job, JobEnd::LeaseLost));

    let job = setup.store.get_job(setup.project, setup.job).await.unwrap();
    let call = setup.store.get_call_audio(setup.project, job.transcript_id.unwrap()).await.unwrap();
    let audio_dir = setup.dir.path().join("audio");
    let stored = audio_dir.join(&call.storage_path);
    assert!(call.storage_path.ends_with(".redacted.wav"), "{}", call.storage_path);
    let bytes = std::fs::read(&stored).expect("the winner's redacted copy is still there");
    assert_eq!(hex::encode(sha2::Sha256::digest(&bytes)), call.sha256, "and it is the winner's");
    let mut left: Vec<_> = std::fs::read_dir(stored.parent().unwrap()).unwrap().map(|e| e.unwrap().file_name()).collect();
    left.sort();
    assert_eq!(left, [stored.file_name().unwrap().to_owned()], "the loser removed its own copy, and the upload is gone");
}

/// A worker whose transcriber is `hangs`, under `limits`, checked every 50 ms, one attempt a job.
fn limited_worker(setup: &Setup, hangs: Hangs, limits: StageLimits) -> Worker {
    let stages =
        Varied { decoder: Arc::new(AudioDecoder), transcriber: Arc::new(hangs), diarizer: Arc::new(OneSpeaker), analyzer: Arc::new(rules()) };
    let settings = WorkerSettings { heartbeat: Duration::from_millis(50), stage_limits: limits, max_attempts: 1, ..settings(setup, Duration::ZERO) };
    worker_of(setup, stages, settings)
}

/// Runs one job, or fails the test if the attempt outlives `limit` (instead of hanging it).
async fn run_within(worker: &Worker, limit: Duration) -> RunOutcome {
    tokio::time::timeout(limit, worker.run_once()).await.expect("the attempt ended within its limit").unwrap()
}

#[tokio::test]
async fn a_stage_that_never_returns_fails_at_its_limit_and_the_next_job_completes() {
    let setup = setup().await;
    let next = queue_job(&setup.store, setup.project, setup.dir.path()).await;
    // A second of audio: the stage's limit is 1 s + 2 s per second of audio.
    let limits = StageLimits { base: Duration::from_secs(1), per_audio_second: 2.0, stall: Duration::from_secs(60) };
    let worker = limited_worker(&setup, Hangs { hangs: AtomicU32::new(1), reports: 0, pause: Duration::ZERO }, limits);

    assert_eq!(run_within(&worker, Duration::from_secs(10)).await, RunOutcome::Ran(setup.job, JobEnd::Failed));
    let failed = setup.store.get_job(setup.project, setup.job).await.unwrap();
    assert_eq!(failed.status, JobStatus::Failed);
    let message = failed.error_message.unwrap();
    assert!(message.contains("the transcription stage did not finish within its limit of 3 s for 1 s of audio"), "{message}");
    assert!(message.contains("CALLSCOPE_STAGE_TIMEOUT_SECONDS"), "says what to raise: {message}");
    assert_eq!(run_within(&worker, Duration::from_secs(10)).await, RunOutcome::Ran(next, JobEnd::Completed), "the queue goes on");
}

#[tokio::test]
async fn a_stage_that_stops_reporting_progress_ends_and_one_that_reports_does_not() {
    let setup = setup().await;
    let next = queue_job(&setup.store, setup.project, setup.dir.path()).await;
    let limits = StageLimits { base: Duration::from_secs(60), per_audio_second: 0.0, stall: Duration::from_millis(600) };
    // The second job's transcription takes 2 s, four times the stall limit, reporting as it goes.
    let hangs = Hangs { hangs: AtomicU32::new(1), reports: 8, pause: Duration::from_millis(250) };
    let worker = limited_worker(&setup, hangs, limits);

    assert_eq!(run_within(&worker, Duration::from_secs(10)).await, RunOutcome::Ran(setup.job, JobEnd::Failed));
    let message = setup.store.get_job(setup.project, setup.job).await.unwrap().error_message.unwrap();
    assert!(message.contains("the transcription stage reported no progress for 1 s"), "{message}");
    assert_eq!(run_within(&worker, Duration::from_secs(10)).await, RunOutcome::Ran(next, JobEnd::Completed), "progress keeps it going");
}

#[tokio::test]
async fn a_job_running_when_the_process_stops_goes_back_uncounted_and_the_stop_is_bounded() {
    let setup = setup().await;
    // The first transcription never ends; the next one does.
    let hangs = Hangs { hangs: AtomicU32::new(1), reports: 0, pause: Duration::ZERO };
    let limits = StageLimits { base: Duration::from_secs(600), per_audio_second: 0.0, stall: Duration::from_secs(600) };
    let stages =
        Varied { decoder: Arc::new(AudioDecoder), transcriber: Arc::new(hangs), diarizer: Arc::new(OneSpeaker), analyzer: Arc::new(rules()) };
    let grace = Duration::from_millis(300);
    let settings = WorkerSettings { stage_limits: limits, shutdown_grace: grace, ..settings(&setup, Duration::ZERO) };
    let worker = Arc::new(worker_of(&setup, stages, settings));
    let (stop, stopped) = tokio::sync::watch::channel(false);
    let running = tokio::spawn({
        let worker = worker.clone();
        async move { worker.run(stopped).await }
    });
    while setup.store.get_job(setup.project, setup.job).await.unwrap().status != JobStatus::Processing {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let asked = std::time::Instant::now();
    stop.send(true).unwrap();
    tokio::time::timeout(Duration::from_secs(5), running).await.expect("the worker stops after its grace").unwrap();
    assert!(asked.elapsed() >= grace, "the job had its grace");
    let released = setup.store.get_job(setup.project, setup.job).await.unwrap();
    assert_eq!((released.status, released.attempts), (JobStatus::Pending, 0), "back in the queue, the attempt not counted");

    assert_eq!(worker.run_once().await.unwrap(), RunOutcome::Ran(setup.job, JobEnd::Completed), "the next worker finishes it");
    assert_eq!(setup.store.get_job(setup.project, setup.job).await.unwrap().attempts, 1);
}

#[tokio::test]
async fn a_finished_call_survives_a_database_that_fails_once_when_it_is_stored() {
    use sqlx::Connection;
    // PostgreSQL, whose sequences live outside transactions: a trigger that fails only the first
    // insert of a call, as a database restart would.
    let setup = setup_on(Backend::Postgres, None).await;
    let mut admin = sqlx::PgConnection::connect(setup.db.url()).await.unwrap();
    for statement in [
        "create sequence outage",
        "create function outage_once() returns trigger language plpgsql as $$ begin \
           if nextval('outage') = 1 then raise exception 'the database restarted' using errcode = '57P01'; end if; \
           return new; end $$",
        "create trigger outage before insert on calls for each row execute function outage_once()",
    ] {
        sqlx::query(statement).execute(&mut admin).await.unwrap();
    }
    let heard = Arc::new(AtomicU32::new(0));
    let stages = Varied {
        decoder: Arc::new(AudioDecoder),
        transcriber: Arc::new(Counting(heard.clone())),
        diarizer: Arc::new(OneSpeaker),
        analyzer: Arc::new(rules()),
    };
    let worker = worker_of(&setup, stages, settings(&setup, Duration::ZERO));

    assert_eq!(worker.run_once().await.unwrap(), RunOutcome::Ran(setup.job, JobEnd::Completed));
    let job = setup.store.get_job(setup.project, setup.job).await.unwrap();
    assert_eq!((job.status, job.attempts), (JobStatus::Completed, 1), "stored on the attempt that did the work");
    assert_eq!(heard.load(Ordering::SeqCst), 1, "transcribed once");
    let failed_inserts: i64 = sqlx::query_scalar("select last_value from outage").fetch_one(&mut admin).await.unwrap();
    assert!(failed_inserts >= 2, "the first insert did fail");
}

#[tokio::test]
async fn a_stage_thread_past_its_limit_stops_at_its_next_report_instead_of_running_on() {
    let setup = setup().await;
    let ended = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let stages = Varied {
        decoder: Arc::new(AudioDecoder),
        transcriber: Arc::new(Spins { ended: ended.clone() }),
        diarizer: Arc::new(OneSpeaker),
        analyzer: Arc::new(rules()),
    };
    let limits = StageLimits { base: Duration::from_secs(1), per_audio_second: 0.0, stall: Duration::from_secs(60) };
    let settings = WorkerSettings { heartbeat: Duration::from_millis(50), stage_limits: limits, max_attempts: 1, ..settings(&setup, Duration::ZERO) };
    let worker = worker_of(&setup, stages, settings);
    assert_eq!(run_within(&worker, Duration::from_secs(10)).await, RunOutcome::Ran(setup.job, JobEnd::Failed));
    let waited = std::time::Instant::now();
    while !ended.load(Ordering::SeqCst) && waited.elapsed() < Duration::from_secs(2) {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert!(ended.load(Ordering::SeqCst), "the abandoned thread stopped, not ran on for its ten seconds");
}

async fn a_retry_after_analysis_failed_starts_from_what_was_heard(backend: Backend) {
    let setup = setup_on(backend, None).await;
    let heard = Arc::new(AtomicU32::new(0));
    let stages = Varied {
        decoder: Arc::new(AudioDecoder),
        transcriber: Arc::new(Counting(heard.clone())),
        diarizer: Arc::new(OneSpeaker),
        analyzer: Arc::new(DownOnce(AtomicU32::new(0))),
    };
    let worker = worker_of(&setup, stages, settings(&setup, Duration::ZERO));
    assert_eq!(worker.run_once().await.unwrap(), RunOutcome::Ran(setup.job, JobEnd::Retrying));
    assert!(setup.store.job_checkpoint(setup.job).await.unwrap().is_some(), "what was heard is kept");
    assert_eq!(worker.run_once().await.unwrap(), RunOutcome::Ran(setup.job, JobEnd::Completed));
    assert_eq!(heard.load(Ordering::SeqCst), 1, "the retry did not transcribe again");
    let job = setup.store.get_job(setup.project, setup.job).await.unwrap();
    assert_eq!((job.status, job.attempts), (JobStatus::Completed, 2));
    assert!(setup.store.job_checkpoint(setup.job).await.unwrap().is_none(), "and it goes when the job ends");
}

callscope_store::both_backends!(a_retry_after_analysis_failed_starts_from_what_was_heard);
