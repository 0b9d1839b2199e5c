//! The test application: a server started on port 0 over its own database, with the bootstrap
//! organization's key and a client.

use std::sync::Arc;

use callscope::{Application, Config};
use callscope_domain::{ApiKeySecret, CallId, Clock, OrgId, ProjectId, SystemClock};
use callscope_store::testing::TestDatabase;
use callscope_store::{Backend, Store};
use callscope_worker::{RunOutcome, Worker};
use reqwest::{Method, RequestBuilder, Response};
use serde_json::Value;
use tokio::sync::{oneshot, OnceCell};
use tokio::task::JoinHandle;

pub struct TestApp {
    pub address: String,
    pub client: reqwest::Client,
    /// The bootstrap organization's key, read from the bootstrap file.
    pub key: String,
    pub org: OrgId,
    pub store: Arc<dyn Store>,
    pub config: Config,
    pub db: TestDatabase,
    clock: Arc<dyn Clock>,
    /// The worker `wait_for_job` drives when the server runs none, made on first use.
    worker: OnceCell<Worker>,
    shutdown: Option<oneshot::Sender<()>>,
    server: Option<JoinHandle<anyhow::Result<()>>>,
}

/// A server with default settings (rate limit off, so tests never trip it).
pub async fn spawn_app(backend: Backend) -> TestApp {
    spawn_app_with(backend, |_| {}).await
}

/// A server with settings changed by `adjust`.
pub async fn spawn_app_with(backend: Backend, adjust: impl FnOnce(&mut Config)) -> TestApp {
    spawn_app_with_clock(backend, Arc::new(SystemClock), adjust).await
}

/// A server whose clock the test holds (a `ManualClock`), with settings changed by `adjust`.
pub async fn spawn_app_with_clock(backend: Backend, clock: Arc<dyn callscope_domain::Clock>, adjust: impl FnOnce(&mut Config)) -> TestApp {
    let db = TestDatabase::new(backend).await;
    let mut config = Config {
        listen: "127.0.0.1:0".into(),
        data_dir: db.dir().join("data"),
        database_url: db.url().to_owned(),
        database_max_connections: 5,
        rate_limit_per_minute: 0,
        shutdown_grace_seconds: 5,
        // Jobs stay queued unless a test turns workers on; webhook deliveries stay in the
        // database unless a test turns the dispatcher on (tests/api/webhooks.rs does).
        workers: 0,
        webhook_dispatch: false,
        worker_poll_interval_ms: 20,
        job_heartbeat_seconds: 1,
        // The smallest real model; tests run side by side, so one thread each.
        speech_model: test_artifact("whisper-tiny.en").display().to_string(),
        vad_model: test_artifact("silero-vad").display().to_string(),
        speech_threads: 1,
        // Uploads decode in a child process of the real binary, as in the service (the test
        // binary itself has no `decode-audio`).
        decoder_program: env!("CARGO_BIN_EXE_callscope").into(),
        // Analysis without a model unless a test asks for one (tests/api/local_llm.rs does).
        analysis_engine: callscope::config::AnalysisEngine::Rules,
        ..Config::default()
    };
    adjust(&mut config);
    let app = Application::build(&config, clock.clone()).await.expect("application builds");
    let address = format!("http://{}", app.local_addr());
    let store = app.store();
    let key = std::fs::read_to_string(config.data_dir.join("bootstrap-api-key")).expect("first start writes the bootstrap key").trim().to_owned();
    let org = store.list_organizations().await.unwrap()[0].id;
    let (tx, rx) = oneshot::channel();
    let server = tokio::spawn(app.run_until_stopped(async {
        let _ = rx.await;
    }));
    TestApp {
        address,
        client: reqwest::Client::builder().redirect(reqwest::redirect::Policy::none()).build().unwrap(),
        key,
        org,
        store,
        config,
        db,
        clock,
        worker: OnceCell::new(),
        shutdown: Some(tx),
        server: Some(server),
    }
}

impl TestApp {
    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.address)
    }

    /// A request carrying the bootstrap key.
    pub fn request(&self, method: Method, path: &str) -> RequestBuilder {
        self.request_as(&self.key, method, path)
    }

    /// A request with another key than the bootstrap organization's.
    pub fn request_as(&self, key: &str, method: Method, path: &str) -> RequestBuilder {
        self.client.request(method, self.url(path)).header("X-API-Key", key)
    }

    pub async fn get(&self, path: &str) -> Response {
        self.request(Method::GET, path).send().await.expect("request")
    }

    pub async fn post_json(&self, path: &str, body: &Value) -> Response {
        self.request(Method::POST, path).json(body).send().await.expect("request")
    }

    pub async fn patch_json(&self, path: &str, body: &Value) -> Response {
        self.request(Method::PATCH, path).json(body).send().await.expect("request")
    }

    pub async fn put_json(&self, path: &str, body: &Value) -> Response {
        self.request(Method::PUT, path).json(body).send().await.expect("request")
    }

    /// Creates a project and returns it.
    pub async fn create_project(&self, name: &str) -> Value {
        self.create_project_as(&self.key, name).await
    }

    /// Creates a project with `key`, of whichever organization, and returns it.
    pub async fn create_project_as(&self, key: &str, name: &str) -> Value {
        let response = self.request_as(key, Method::POST, "/v1/projects").json(&serde_json::json!({ "name": name })).send().await.expect("request");
        assert_eq!(response.status(), 201, "creating project {name}");
        response.json().await.unwrap()
    }

    /// A second organization with its own key.
    pub async fn other_org(&self, name: &str) -> (OrgId, String) {
        let org = self.store.create_organization(name).await.unwrap();
        let key = ApiKeySecret::generate();
        self.store.create_api_key(org.id, "test", &key.digest()).await.unwrap().unwrap();
        (org.id, key.expose().to_owned())
    }

    /// A function that starts the graceful shutdown without waiting for it.
    pub fn stop_signal(&mut self) -> impl FnOnce() + Send + 'static {
        let tx = self.shutdown.take();
        move || {
            if let Some(tx) = tx {
                let _ = tx.send(());
            }
        }
    }

    /// Stops the server (graceful shutdown) and waits for it.
    pub async fn stop(&mut self) -> anyhow::Result<()> {
        if let Some(tx) = self.shutdown.take() {
            let _ = tx.send(());
        }
        match self.server.take() {
            Some(server) => server.await.expect("server task"),
            None => Ok(()),
        }
    }
}

/// Asserts a problem+json answer with the given status and code; returns the body.
pub async fn assert_problem(response: Response, status: u16, code: &str) -> Value {
    assert_eq!(response.status(), status, "status of {}", response.url());
    assert_eq!(response.headers().get("content-type").map(|v| v.to_str().unwrap()), Some("application/problem+json"));
    let request_id = response.headers().get("x-request-id").expect("X-Request-Id").to_str().unwrap().to_owned();
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["code"], code, "{body}");
    assert_eq!(body["status"], status);
    assert_eq!(body["type"], "about:blank");
    assert!(body["title"].as_str().is_some_and(|t| !t.is_empty()));
    assert!(body["detail"].is_string());
    assert_eq!(body["requestId"], request_id.as_str(), "the body names the request id of the header");
    body
}

impl TestApp {
    /// Runs SQL on the test database directly, returning the first column as text.
    pub async fn sql_strings(&self, sql: &str) -> Vec<String> {
        use sqlx::Connection;
        match self.db.backend() {
            Backend::Sqlite => {
                let mut conn = sqlx::SqliteConnection::connect(self.db.url()).await.unwrap();
                sqlx::query_scalar(sql).fetch_all(&mut conn).await.unwrap()
            }
            Backend::Postgres => {
                let mut conn = sqlx::PgConnection::connect(self.db.url()).await.unwrap();
                sqlx::query_scalar(sql).fetch_all(&mut conn).await.unwrap()
            }
        }
    }

    /// Executes a statement on the test database directly.
    pub async fn sql_execute(&self, sql: &str) {
        use sqlx::Connection;
        match self.db.backend() {
            Backend::Sqlite => {
                let mut conn = sqlx::SqliteConnection::connect(self.db.url()).await.unwrap();
                sqlx::query(sql).execute(&mut conn).await.unwrap();
            }
            Backend::Postgres => {
                let mut conn = sqlx::PgConnection::connect(self.db.url()).await.unwrap();
                sqlx::query(sql).execute(&mut conn).await.unwrap();
            }
        }
    }
}

/// Where `callscope models install --profile test` put an artifact (`CALLSCOPE_TEST_MODELS_DIR`
/// or the default models directory).
pub fn test_artifact(name: &str) -> std::path::PathBuf {
    std::env::var_os("CALLSCOPE_TEST_MODELS_DIR").map_or_else(callscope_models::default_dir, std::path::PathBuf::from).join(name)
}

/// A call spoken by espeak-ng: each line `(channel, voice, text)` in turn, on its channel, the
/// other channels silent meanwhile, half a second between lines (22.05 kHz, 16-bit WAV).
pub fn spoken_call(channels: u16, lines: &[(u16, &str, &str)]) -> Vec<u8> {
    let pieces: Vec<Piece> = lines.iter().flat_map(|&(channel, voice, text)| [Piece::Says(channel, voice, text), Piece::Silence(0.5)]).collect();
    generated_call(channels, &pieces)
}

/// A generated stereo call put on hold: the agent (left) answers and asks the caller to hold, 8 s
/// of music on the agent's side, the customer (right) says why they call, then `silence_s` of
/// silence.
pub fn call_on_hold(silence_s: f32) -> Vec<u8> {
    generated_call(
        2,
        &[
            Piece::Says(0, "en-gb", "Good morning, you are through to the support desk. Please hold while I check your order."),
            Piece::Music(0, 8.0),
            Piece::Says(1, "en-us", "Thank you. I have been waiting a long time for my parcel to arrive."),
            Piece::Silence(silence_s),
        ],
    )
}

/// A stretch of a generated call.
#[derive(Debug, Clone, Copy)]
pub enum Piece<'a> {
    /// `(channel, voice, text)`: a line spoken by espeak-ng on the channel.
    Says(u16, &'a str, &'a str),
    /// Hold music on the channel for so many seconds: three-note chords, a new one every 0.4 s.
    Music(u16, f32),
    /// Silence on every channel for so many seconds.
    Silence(f32),
}

/// A call of `pieces` one after another, every channel silent where a piece is not on it
/// (22.05 kHz, 16-bit WAV).
pub fn generated_call(channels: u16, pieces: &[Piece]) -> Vec<u8> {
    const RATE: u32 = 22_050;
    let dir = tempfile::tempdir().unwrap();
    let mut frames: Vec<Vec<i16>> = Vec::new();
    let silent = vec![0i16; usize::from(channels)];
    for (i, piece) in pieces.iter().enumerate() {
        match *piece {
            Piece::Says(channel, voice, text) => {
                let path = dir.path().join(format!("{i}.wav"));
                let status = std::process::Command::new("espeak-ng")
                    .args(["-v", voice, "-s", "160", "-w"])
                    .arg(&path)
                    .arg(text)
                    .status()
                    .expect("espeak-ng runs (scripts/test installs it)");
                assert!(status.success());
                let mut reader = hound::WavReader::open(&path).unwrap();
                assert_eq!(reader.spec().sample_rate, RATE);
                for sample in reader.samples::<i16>() {
                    let mut frame = silent.clone();
                    frame[usize::from(channel)] = sample.unwrap();
                    frames.push(frame);
                }
            }
            Piece::Music(channel, seconds) => {
                let chords = [[261.6f32, 329.6, 392.0], [293.7, 370.0, 440.0], [220.0, 277.2, 329.6]];
                for n in 0..(seconds * RATE as f32) as usize {
                    let t = n as f32 / RATE as f32;
                    let chord = chords[(t / 0.4) as usize % chords.len()];
                    let value: f32 = chord.iter().map(|f| (2.0 * std::f32::consts::PI * f * t).sin()).sum::<f32>() * 0.05;
                    let mut frame = silent.clone();
                    frame[usize::from(channel)] = (value * f32::from(i16::MAX)) as i16;
                    frames.push(frame);
                }
            }
            Piece::Silence(seconds) => frames.extend(std::iter::repeat_n(silent.clone(), (seconds * RATE as f32) as usize)),
        }
    }
    let spec = hound::WavSpec { channels, sample_rate: RATE, bits_per_sample: 16, sample_format: hound::SampleFormat::Int };
    let mut cursor = std::io::Cursor::new(Vec::new());
    let mut writer = hound::WavWriter::new(&mut cursor, spec).unwrap();
    for frame in frames {
        for sample in frame {
            writer.write_sample(sample).unwrap();
        }
    }
    writer.finalize().unwrap();
    cursor.into_inner()
}

/// A file whose WAV header promises PCM, followed by `len` bytes of `fill`: accepted as audio at
/// the door, failed by the decoder.
pub fn broken_wav(fill: u8, len: usize) -> Vec<u8> {
    let mut bytes = b"RIFF\x00\x10\x00\x00WAVEfmt \x10\x00\x00\x00".to_vec();
    bytes.extend(std::iter::repeat_n(fill, len));
    bytes
}

/// A WAV file made here: `seconds` of a tone per channel (300 Hz, 1 kHz, …) at `rate`.
pub fn wav_bytes(rate: u32, channels: u16, seconds: f32) -> Vec<u8> {
    let spec = hound::WavSpec { channels, sample_rate: rate, bits_per_sample: 16, sample_format: hound::SampleFormat::Int };
    let mut cursor = std::io::Cursor::new(Vec::new());
    let mut writer = hound::WavWriter::new(&mut cursor, spec).unwrap();
    for i in 0..(rate as f32 * seconds) as usize {
        for channel in 0..channels {
            let hz = [300.0, 1_000.0, 2_000.0][usize::from(channel) % 3];
            let value = (2.0 * std::f32::consts::PI * hz * i as f32 / rate as f32).sin() * 0.4;
            writer.write_sample((value * f32::from(i16::MAX)) as i16).unwrap();
        }
    }
    writer.finalize().unwrap();
    cursor.into_inner()
}

impl TestApp {
    /// Uploads bytes as the `file` part to a project, with a query string.
    pub async fn upload(&self, project: &str, query: &str, filename: &str, bytes: Vec<u8>) -> Response {
        let part = reqwest::multipart::Part::bytes(bytes).file_name(filename.to_owned()).mime_str("audio/wav").unwrap();
        let form = reqwest::multipart::Form::new().part("file", part);
        let path = format!("/v1/projects/{project}/calls/upload{}{query}", if query.is_empty() { "" } else { "?" });
        self.request(Method::POST, &path).multipart(form).send().await.expect("upload request")
    }

    /// Uploads a file and waits for its job to end: the job, COMPLETED or FAILED.
    pub async fn upload_and_wait(&self, project: &str, query: &str, filename: &str, bytes: Vec<u8>) -> Value {
        let accepted: Value = self.upload(project, query, filename, bytes).await.json().await.unwrap();
        assert!(accepted["jobId"].is_string(), "the upload was not accepted: {accepted}");
        self.wait_for_job(project, accepted["jobId"].as_str().unwrap()).await
    }

    /// Uploads a call that must process to the end: the ids to read the stored call by.
    pub async fn process_call(&self, project: &str, query: &str, filename: &str, bytes: Vec<u8>) -> (ProjectId, CallId) {
        let job = self.upload_and_wait(project, query, filename, bytes).await;
        assert_eq!(job["status"], "COMPLETED", "{job}");
        (ProjectId(project.parse().unwrap()), CallId(job["transcriptId"].as_str().unwrap().parse().unwrap()))
    }

    /// The job once it is COMPLETED or FAILED (within 60 s). When the server runs no workers
    /// (the default here), the test runs the queue itself, one job at a time as a worker process
    /// does, and waits only while no job is runnable (a retry's backoff); otherwise it polls.
    pub async fn wait_for_job(&self, project: &str, job: &str) -> Value {
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
        loop {
            let job: Value = self.get(&format!("/v1/projects/{project}/calls/jobs/{job}")).await.json().await.unwrap();
            if job["status"] == "COMPLETED" || job["status"] == "FAILED" {
                return job;
            }
            assert!(std::time::Instant::now() < deadline, "job still {} after 60 s", job["status"]);
            let ran = if self.config.workers == 0 { self.run_one_job().await } else { false };
            if !ran {
                tokio::time::sleep(std::time::Duration::from_millis(50)).await;
            }
        }
    }

    /// Files one batch of a changed rule's earlier calls with the app's own worker: whether
    /// there was one.
    pub async fn run_rule_sweep(&self) -> bool {
        self.worker().await.sweep_rules_once().await.expect("the worker reaches the store")
    }

    /// The app's own worker, made on first use.
    async fn worker(&self) -> &Worker {
        self.worker
            .get_or_init(|| async {
                let storage = callscope::startup::open_storage(&self.config).expect("the app's audio store opens");
                let workers = callscope::startup::build_workers(&self.config, 1, &self.store, &storage, &self.clock).await;
                workers.expect("the app's pipeline loads").remove(0)
            })
            .await
    }

    /// Runs the next runnable job in this task with the app's pipeline; false when none is.
    pub async fn run_one_job(&self) -> bool {
        matches!(self.worker().await.run_once().await.expect("the worker reaches the store"), RunOutcome::Ran(..))
    }

    /// Files in the audio store.
    pub fn stored_files(&self) -> Vec<std::path::PathBuf> {
        fn walk(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
            for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
                let path = entry.path();
                if path.is_dir() {
                    walk(&path, out);
                } else {
                    out.push(path);
                }
            }
        }
        let mut files = Vec::new();
        walk(&self.config.data_dir.join("audio"), &mut files);
        files
    }
}
