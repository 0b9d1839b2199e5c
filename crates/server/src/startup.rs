//! Building and running the service: open and migrate the database, create the bootstrap key
//! on an empty database, bind the listener, serve until a shutdown signal, then let in-flight
//! requests finish.

use std::future::Future;
use std::io::Write;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;
use callscope_analysis::guided::GuidedEngine;
use callscope_analysis::llm_engine::LlmEngine;
use callscope_analysis::{OpenAiClient, OpenAiSettings};
use callscope_api::{ApiSettings, AppState};
use callscope_domain::{ApiKeySecret, Clock};
use callscope_pipeline::{
    AcousticDiarizer, Analyzer, AudioDecoder, Decoder, IsolatedDecoder, Pipeline, PipelineSettings, RulePii, RulesEngine, WhisperTranscriber,
};

use crate::config::AnalysisEngine;
use callscope_search::SearchService;
use callscope_speech::{SileroVad, Vad, WhisperSettings};
use callscope_storage::Storage;
use callscope_store::{Store, StoreOptions};
use callscope_webhooks::{Dispatcher, DispatcherSettings, RetrySchedule, Sender, SenderSettings};
use callscope_worker::{StageLimits, Worker, WorkerHealth, WorkerSettings};
use tokio::net::TcpListener;
use tokio::sync::watch;

use crate::Config;

/// File in the data directory that receives the first organization's key.
pub const BOOTSTRAP_KEY_FILE: &str = "bootstrap-api-key";

/// Where a deployment that names no `audio_link_secret` keeps the one made on its first start.
pub const AUDIO_LINK_SECRET_FILE: &str = "audio-link-secret";

/// A built service, bound to its port and ready to run.
pub struct Application {
    listener: TcpListener,
    router: axum::Router,
    store: Arc<dyn Store>,
    grace: Duration,
    workers: Vec<Worker>,
    worker_health: Arc<WorkerHealth>,
    search: Arc<SearchService>,
    search_interval: Duration,
    dispatcher: Option<Dispatcher>,
    housekeeping: crate::housekeeping::Housekeeping,
    clock: Arc<dyn Clock>,
}

impl Application {
    /// Opens the database (migrating it), bootstraps an empty one and binds the listener.
    ///
    /// # Errors
    /// An unusable data directory, an unreachable database or a port that cannot be bound.
    pub async fn build(config: &Config, clock: Arc<dyn Clock>) -> anyhow::Result<Self> {
        let store = open_store(config, clock.clone()).await?;
        if let Some(path) = bootstrap(store.as_ref(), &config.data_dir).await? {
            tracing::info!(path = %path.display(), "created organization \"default\"; its API key is in this file");
        }
        let storage = open_storage(config)?;
        let workers = build_workers(config, config.workers, &store, &storage, &clock).await?;
        let settings = ApiSettings {
            rate_limit_per_minute: config.rate_limit_per_minute,
            webhooks_allow_private: config.webhooks_allow_private,
            max_upload_bytes: config.max_upload_bytes,
            uploads_per_minute: config.rate_limit_uploads_per_minute,
            audio_link_secret: audio_link_secret(config)?,
            max_requests_in_flight: config.max_requests_in_flight,
            upload_min_bytes_per_second: config.upload_min_bytes_per_second,
            upload_pace_window: Duration::from_secs(config.upload_pace_window_seconds.max(1)),
            request_time_limit: Duration::from_secs(config.request_timeout_seconds),
            trusted_proxies: callscope_api::TrustedProxies::parse(&config.trusted_proxies).map_err(|e| anyhow::anyhow!("trusted_proxies: {e}"))?,
        };
        if config.webhooks_allow_private {
            tracing::warn!("webhooks_allow_private is on: webhooks may target http:// and loopback (tests only)");
        }
        let search = open_search(config, &store).await?;
        let dispatcher = if config.webhook_dispatch { Some(build_dispatcher(config, &store, &clock)?) } else { None };
        let worker_health = Arc::new(WorkerHealth::new(workers.len()));
        let state =
            AppState::new(store.clone(), storage, clock.clone(), &settings).with_search(search.clone()).with_worker_health(worker_health.clone());
        // Keys in use keep their own rate-limit budgets from the first request (see the limiter).
        state.known_keys.learn_all(store.active_key_digests().await.context("cannot read the API keys")?);
        // The web application at / beside the API under /v1.
        let router = callscope_api::router(state, callscope_web::router());
        let listener = TcpListener::bind(&config.listen).await.with_context(|| format!("cannot listen on {}", config.listen))?;
        Ok(Self {
            listener,
            router,
            store,
            grace: Duration::from_secs(config.shutdown_grace_seconds),
            workers,
            worker_health,
            search,
            search_interval: Duration::from_millis(config.search_sync_interval_ms.max(10)),
            dispatcher,
            housekeeping: housekeeping(config),
            clock,
        })
    }

    /// The bound address (useful with port 0).
    pub fn local_addr(&self) -> SocketAddr {
        self.listener.local_addr().expect("a bound listener has an address")
    }

    /// The store the application uses.
    pub fn store(&self) -> Arc<dyn Store> {
        self.store.clone()
    }

    /// Serves until `shutdown` completes, then stops accepting connections and waits up to the
    /// grace period for requests in flight.
    ///
    /// # Errors
    /// The server failing, or requests still running when the grace period ends.
    pub async fn run_until_stopped(self, shutdown: impl Future<Output = ()> + Send + 'static) -> anyhow::Result<()> {
        let (stopping_tx, stopping_rx) = tokio::sync::oneshot::channel::<()>();
        let (workers_stop, workers) = spawn_workers(self.workers, self.worker_health);
        let workers_stop = Arc::new(workers_stop);
        let signal = {
            let workers_stop = workers_stop.clone();
            async move {
                shutdown.await;
                tracing::info!("shutting down: no new connections, waiting for requests in flight and for jobs to finish or be released");
                // Workers hear it at once: a job that cannot finish within their grace goes
                // back to the queue, uncounted, before this process's grace runs out.
                let _ = workers_stop.send(true);
                let _ = stopping_tx.send(());
            }
        };
        let indexer = self.search.spawn(self.search_interval, workers_stop.subscribe());
        let housekeeping = self.housekeeping.spawn(self.store.clone(), self.clock.clone(), workers_stop.subscribe());
        let dispatcher = self.dispatcher.map(|d| tokio::spawn(d.run(workers_stop.subscribe())));
        let serve = async move {
            // With the peer's address: unknown keys are rate-limited by it.
            let service = self.router.into_make_service_with_connect_info::<SocketAddr>();
            let served = axum::serve(self.listener, service).with_graceful_shutdown(signal).await;
            // Workers finish the job they hold, then stop; so do the indexer and the webhook
            // dispatcher (after the attempts under way).
            let _ = workers_stop.send(true);
            for worker in workers {
                let _ = worker.await;
            }
            let _ = indexer.await;
            let _ = housekeeping.await;
            if let Some(dispatcher) = dispatcher {
                let _ = dispatcher.await;
            }
            served
        };
        let grace = self.grace;
        let deadline = async move {
            if stopping_rx.await.is_ok() {
                tokio::time::sleep(grace).await;
            } else {
                std::future::pending::<()>().await;
            }
        };
        let outcome = tokio::select! {
            result = serve => result.context("HTTP server failed"),
            () = deadline => Err(anyhow::anyhow!("requests still running after the {} s grace period", grace.as_secs())),
        };
        self.store.close().await;
        outcome
    }
}

/// The webhook dispatcher of this process, as configured.
///
/// # Errors
/// A retry schedule that does not read, a timeout out of range or an unreadable CA file.
pub fn build_dispatcher(config: &Config, store: &Arc<dyn Store>, clock: &Arc<dyn Clock>) -> anyhow::Result<Dispatcher> {
    let retries = RetrySchedule::parse(&config.webhook_retry_delays).context("invalid webhook_retry_delays")?;
    anyhow::ensure!(
        config.webhook_timeout_seconds > 0.0 && config.webhook_timeout_seconds <= 300.0,
        "webhook_timeout_seconds must be more than 0 and at most 300"
    );
    let timeout = Duration::from_secs_f64(config.webhook_timeout_seconds);
    let extra_roots_pem = if config.webhooks_extra_ca_file.trim().is_empty() {
        None
    } else {
        let path = &config.webhooks_extra_ca_file;
        tracing::warn!(path, "webhooks_extra_ca_file is set: webhook deliveries trust its certificates (tests only)");
        Some(std::fs::read(path).with_context(|| format!("cannot read webhooks_extra_ca_file {path}"))?)
    };
    let sender = Sender::new(SenderSettings { timeout, allow_private: config.webhooks_allow_private, extra_roots_pem })
        .context("webhooks_extra_ca_file holds no readable PEM certificate")?;
    let settings = DispatcherSettings {
        retries,
        poll_interval: Duration::from_millis(config.webhook_poll_interval_ms.max(10)),
        lease: timeout + Duration::from_secs(30),
        per_endpoint: config.webhook_max_in_flight_per_endpoint.max(1),
        ..DispatcherSettings::default()
    };
    Ok(Dispatcher::new(store.clone(), clock.clone(), Arc::new(sender), settings))
}

/// Opens (or makes) the search index of this process over `store`; it fills and follows the
/// database by itself.
///
/// # Errors
/// The index held by another process, or a disk that fails.
pub async fn open_search(config: &Config, store: &Arc<dyn Store>) -> anyhow::Result<Arc<SearchService>> {
    let dir = config.search_index_dir();
    SearchService::open(&dir, store.clone()).await.with_context(|| format!("cannot open the search index in {}", dir.display()))
}

/// Opens the configured object storage.
///
/// # Errors
/// A storage URL that cannot be used.
pub fn open_storage(config: &Config) -> anyhow::Result<Storage> {
    Storage::open(&config.storage_url()).with_context(|| format!("cannot open audio storage {}", config.storage_url()))
}

/// Loads the configured speech model (once per process; every worker shares it).
///
/// # Errors
/// A missing or broken model, with the command that installs it.
pub async fn load_transcriber(config: &Config) -> anyhow::Result<Arc<WhisperTranscriber>> {
    let dir = config.speech_model_dir();
    let settings = WhisperSettings {
        threads: config.speech_threads(),
        beam_size: config.speech_beam_size.max(1),
        compute_type: config.speech_compute_type.clone(),
    };
    let started = std::time::Instant::now();
    let vad = match config.vad_model_path() {
        None => Vad::Energy,
        Some(path) => Vad::Silero(Arc::new(SileroVad::load(&path).with_context(|| {
            format!(
                "cannot load the voice activity model {} (install models with `callscope models install`, or set vad_model = \"energy\")",
                path.display()
            )
        })?)),
    };
    let vad_name = vad.name();
    let transcriber = WhisperTranscriber::load(&dir, settings, vad, config.speech_concurrency.max(1))
        .await
        .with_context(|| format!("cannot load the speech model {} (install models with `callscope models install`)", dir.display()))?;
    tracing::info!(
        model = %dir.display(),
        vad = vad_name,
        threads = config.speech_threads(),
        concurrency = config.speech_concurrency.max(1),
        load_s = started.elapsed().as_secs_f64(),
        "speech model loaded"
    );
    Ok(Arc::new(transcriber))
}

/// The pipeline with the real engines.
///
/// # Errors
/// A speech model or PII word list that does not load.
pub async fn build_pipeline(config: &Config) -> anyhow::Result<Pipeline> {
    let transcriber = load_transcriber(config).await?;
    let dir = config.pii_gazetteers_dir();
    let started = std::time::Instant::now();
    let gazetteer = Arc::new(tokio::task::spawn_blocking(move || callscope_pipeline::Gazetteer::load(&dir)).await??);
    let pii = RulePii::new(gazetteer.clone());
    let lexicons = config.sentiment_lexicons_dir();
    let rules = tokio::task::spawn_blocking(move || RulesEngine::load(&lexicons))
        .await?
        .context("cannot load the sentiment lexicons (install models with `callscope models install`)")?;
    tracing::info!(load_s = started.elapsed().as_secs_f64(), "PII word lists and sentiment lexicons loaded");
    let analyzer: Arc<dyn Analyzer> = match config.analysis_engine {
        AnalysisEngine::Rules => Arc::new(rules),
        AnalysisEngine::Local => {
            // Nothing leaves the machine, so nothing is masked on the way (a project with
            // `piiRedaction: mask` has its transcript masked before analysis anyway).
            Arc::new(crate::local_llm::LocalEngine::start(config, rules, None).await?)
        }
        AnalysisEngine::Openai => {
            let settings = OpenAiSettings {
                base_url: config.llm_base_url.clone(),
                model: config.llm_model.clone(),
                api_key: Some(config.llm_api_key.clone()).filter(|k| !k.is_empty()),
                timeout: Duration::from_secs(config.llm_timeout_seconds.max(1)),
                max_retries: config.llm_max_retries,
                retry_base: Duration::from_secs(1),
                max_tokens: config.llm_max_tokens.max(1),
            };
            let mask = config.llm_mask_pii.then(|| Arc::new(callscope_pii::Detector::new(gazetteer.clone())));
            tracing::info!(endpoint = %callscope_analysis::masked_url(&config.llm_base_url), model = %config.llm_model, mask_pii = config.llm_mask_pii, "analysis through an OpenAI-compatible endpoint");
            let client = OpenAiClient::new(settings, mask)?;
            if config.llm_analysis_mode.open_for(AnalysisEngine::Openai) {
                Arc::new(LlmEngine::new(client, rules, config.llm_context_chars))
            } else {
                Arc::new(GuidedEngine::new(client, rules, config.llm_context_chars))
            }
        }
    };
    Ok(Pipeline::real(
        build_decoder(config)?,
        transcriber,
        AcousticDiarizer::new(config.diarization_max_speakers),
        pii,
        analyzer,
        PipelineSettings {
            max_duration_s: config.max_audio_duration_seconds,
            keep_audio_for_redaction: config.pii_redact_audio,
            speech_hints: config.speech_hints,
            vocabulary_hints: config.vocabulary_hints,
        },
    ))
}

/// The decoder: a child process of this program (or `decoder_program`) under a memory limit,
/// or this process itself when `decode_in_child` is off.
///
/// # Errors
/// No way to name this program's executable.
pub fn build_decoder(config: &Config) -> anyhow::Result<Arc<dyn Decoder>> {
    if !config.decode_in_child {
        return Ok(Arc::new(AudioDecoder));
    }
    let program = if config.decoder_program.is_empty() {
        std::env::current_exe().context("cannot name this program's executable to decode in a child process (set decoder_program)")?
    } else {
        PathBuf::from(&config.decoder_program)
    };
    let memory = config.decoder_memory_limit_mb.max(64).saturating_mul(1024 * 1024);
    Ok(Arc::new(IsolatedDecoder::new(program, config.data_dir.join("tmp"), memory)))
}

/// `count` workers over the store and storage, with the configured queue behaviour. The speech
/// model is loaded only when there are workers to use it.
///
/// # Errors
/// A speech model that does not load.
pub async fn build_workers(
    config: &Config,
    count: u32,
    store: &Arc<dyn Store>,
    storage: &Storage,
    clock: &Arc<dyn Clock>,
) -> anyhow::Result<Vec<Worker>> {
    if count == 0 {
        return Ok(Vec::new());
    }
    let pipeline = build_pipeline(config).await?;
    let settings = WorkerSettings {
        lease: Duration::from_secs(config.job_lease_seconds.max(1)),
        heartbeat: Duration::from_secs(config.job_heartbeat_seconds.max(1)).min(Duration::from_secs(config.job_lease_seconds.max(1))),
        shutdown_grace: worker_grace(config.shutdown_grace_seconds),
        max_attempts: config.job_max_attempts.max(1),
        retry_base: Duration::from_secs(config.job_retry_base_seconds),
        stage_limits: StageLimits {
            base: seconds(config.stage_timeout_seconds),
            per_audio_second: config.stage_timeout_per_audio_second.max(0.0),
            stall: seconds(config.stage_stall_seconds),
        },
        poll_interval: Duration::from_millis(config.worker_poll_interval_ms.max(10)),
        scratch_dir: config.data_dir.join("tmp"),
        redact_audio: config.pii_redact_audio,
    };
    let _ = std::fs::create_dir_all(&settings.scratch_dir);
    Ok((0..count).map(|_| Worker::new(store.clone(), storage.clone(), pipeline.clone(), clock.clone(), settings.clone())).collect())
}

/// The process's housekeeping, as configured.
pub fn housekeeping(config: &Config) -> crate::housekeeping::Housekeeping {
    crate::housekeeping::Housekeeping {
        retention: (config.retention_days > 0).then(|| Duration::from_secs(u64::from(config.retention_days) * 86_400)),
        scratch_dir: config.data_dir.join("tmp"),
    }
}

/// How long a worker's job may go on after the process is told to stop: most of the process's
/// own grace period, leaving time to release the job before it ends.
fn worker_grace(process_grace_seconds: u64) -> Duration {
    let grace = Duration::from_secs(process_grace_seconds);
    grace.saturating_sub(Duration::from_secs(5)).max(grace / 2)
}

/// A limit in seconds as a duration: at least a second (a zero limit would end every attempt at
/// once) and at most a century.
fn seconds(value: f64) -> Duration {
    Duration::from_secs_f64(if value.is_finite() { value.clamp(1.0, 3.2e9) } else { 1.0 })
}

/// Starts workers on the runtime, each started again if it dies, with `health` counting the
/// ones alive; returns the sender that stops them and their tasks.
pub fn spawn_workers(workers: Vec<Worker>, health: Arc<WorkerHealth>) -> (watch::Sender<bool>, Vec<tokio::task::JoinHandle<()>>) {
    let (stop, stopped) = watch::channel(false);
    let handles = callscope_worker::spawn_supervised(workers, health, stopped);
    (stop, handles)
}

/// Opens the configured database and applies migrations.
///
/// # Errors
/// An unusable data directory or an unreachable database.
pub async fn open_store(config: &Config, clock: Arc<dyn Clock>) -> anyhow::Result<Arc<dyn Store>> {
    std::fs::create_dir_all(&config.data_dir).with_context(|| format!("cannot create data directory {}", config.data_dir.display()))?;
    let options = StoreOptions { url: config.database_url(), max_connections: config.database_max_connections };
    let shown = crate::config::mask_url_password(&options.url);
    let store = callscope_store::connect(&options, clock).await.with_context(|| format!("cannot open database {shown}"))?;
    store.migrate().await.with_context(|| format!("cannot migrate database {shown}"))?;
    Ok(store)
}

/// On a database with no organization, creates organization `default` with one key and writes
/// the key to `<data_dir>/bootstrap-api-key` (mode 0600). Returns the file's path when it did.
///
/// The file is written before the key is committed, so a crash in between loses nothing usable.
///
/// # Errors
/// The file or the database failing.
pub async fn bootstrap(store: &dyn Store, data_dir: &Path) -> anyhow::Result<Option<PathBuf>> {
    if !store.list_organizations().await?.is_empty() {
        return Ok(None);
    }
    let key = ApiKeySecret::generate();
    let path = data_dir.join(BOOTSTRAP_KEY_FILE);
    let pending = data_dir.join(format!(".{BOOTSTRAP_KEY_FILE}.{}", std::process::id()));
    write_private(&pending, &format!("{}\n", key.expose()))?;
    match store.bootstrap("default", "bootstrap", &key.digest()).await {
        Ok(Some(_)) => {
            std::fs::rename(&pending, &path).with_context(|| format!("cannot write {}", path.display()))?;
            Ok(Some(path))
        }
        Ok(None) => {
            let _ = std::fs::remove_file(&pending);
            Ok(None)
        }
        Err(e) => {
            let _ = std::fs::remove_file(&pending);
            Err(e.into())
        }
    }
}

/// The secret audio links are signed with: `audio_link_secret` when set (servers that share a
/// database but not a data directory must be given the same one), else 32 random bytes made on
/// the first start and kept in `<data_dir>/audio-link-secret` (mode 0600).
///
/// # Errors
/// A data directory where the file can be neither read nor written.
pub fn audio_link_secret(config: &Config) -> anyhow::Result<callscope_api::AudioLinkSecret> {
    if !config.audio_link_secret.is_empty() {
        return Ok(callscope_api::AudioLinkSecret::new(config.audio_link_secret.as_bytes()));
    }
    let path = config.data_dir.join(AUDIO_LINK_SECRET_FILE);
    let made = callscope_domain::random_secret_hex();
    // Made only where there is none: of two processes starting at once, both keep the first.
    match write_private_new(&path, &made) {
        Ok(()) => Ok(callscope_api::AudioLinkSecret::new(made)),
        Err(error) if error.kind() == std::io::ErrorKind::AlreadyExists => {
            let kept = std::fs::read_to_string(&path).with_context(|| format!("cannot read {}", path.display()))?;
            anyhow::ensure!(!kept.trim().is_empty(), "{} is empty: delete it to have a new secret made", path.display());
            Ok(callscope_api::AudioLinkSecret::new(kept.trim()))
        }
        Err(error) => Err(error).with_context(|| format!("cannot create {}", path.display())),
    }
}

/// Writes a new file readable by its owner only; fails with `AlreadyExists` when there is one.
fn write_private_new(path: &Path, contents: &str) -> std::io::Result<()> {
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    let mut file = options.open(path)?;
    file.write_all(contents.as_bytes())?;
    file.sync_all()
}

fn write_private(path: &Path, contents: &str) -> anyhow::Result<()> {
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create(true).truncate(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    let mut file = options.open(path).with_context(|| format!("cannot create {}", path.display()))?;
    file.write_all(contents.as_bytes())?;
    file.sync_all()?;
    Ok(())
}

/// Completes on SIGINT (Ctrl-C) or SIGTERM.
pub fn shutdown_signal() -> impl std::future::Future<Output = ()> + Send + 'static {
    // The handlers are registered now, not when the future is first polled: a signal that
    // arrives while the service is still starting must stop it cleanly, not kill it.
    #[cfg(unix)]
    {
        use tokio::signal::unix::{signal, SignalKind};
        let terminate = signal(SignalKind::terminate()).ok();
        let interrupt = signal(SignalKind::interrupt()).ok();
        async move {
            let wait = |s: Option<tokio::signal::unix::Signal>| async move {
                match s {
                    Some(mut s) => {
                        s.recv().await;
                    }
                    None => std::future::pending::<()>().await,
                }
            };
            tokio::select! {
                () = wait(terminate) => {},
                () = wait(interrupt) => {},
            }
        }
    }
    #[cfg(not(unix))]
    async {
        let _ = tokio::signal::ctrl_c().await;
    }
}

#[cfg(test)]
mod tests {
    use callscope_api::AudioLinkSecret;

    use super::*;

    #[test]
    fn the_audio_link_secret_is_made_once_and_kept_unless_configured() {
        let dir = tempfile::tempdir().unwrap();
        let config = Config { data_dir: dir.path().to_owned(), ..Config::default() };
        let first = audio_link_secret(&config).unwrap();
        assert_eq!(audio_link_secret(&config).unwrap(), first, "kept across starts");
        let path = dir.path().join(AUDIO_LINK_SECRET_FILE);
        #[cfg(unix)]
        assert_eq!(std::os::unix::fs::PermissionsExt::mode(&std::fs::metadata(&path).unwrap().permissions()) & 0o777, 0o600);
        let other = tempfile::tempdir().unwrap();
        let elsewhere = Config { data_dir: other.path().to_owned(), ..Config::default() };
        assert_ne!(audio_link_secret(&elsewhere).unwrap(), first, "each data directory its own");
        let named = Config { audio_link_secret: "shared".into(), ..elsewhere };
        assert_eq!(audio_link_secret(&named).unwrap(), AudioLinkSecret::new("shared"), "the configured one wins");
        std::fs::write(&path, "").unwrap();
        assert!(audio_link_secret(&config).is_err(), "an emptied file is an error, not a new secret");
    }
}
