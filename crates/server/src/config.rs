//! Configuration: built-in defaults, then `callscope.toml`, then `CALLSCOPE_…` environment
//! variables, each layer overriding the one before. `callscope.example.toml` documents every
//! setting; `callscope print-config` shows the result with secrets masked.

use std::path::{Path, PathBuf};

use anyhow::Context;
use figment::providers::{Env, Format, Serialized, Toml};
use figment::Figment;
use serde::{Deserialize, Serialize};

/// File read when neither `--config` nor `CALLSCOPE_CONFIG` names one (if it exists).
pub const DEFAULT_CONFIG_FILE: &str = "callscope.toml";

/// Everything that can be configured. Its `Debug` form masks secrets like `print-config` does.
#[derive(Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Config {
    /// Address and port of the HTTP server.
    pub listen: String,
    /// Where the embedded database, audio, search index and bootstrap key live.
    pub data_dir: PathBuf,
    /// `sqlite://…` or `postgres://…`; empty means the SQLite file `callscope.db` in `data_dir`.
    pub database_url: String,
    /// Size of the database connection pool.
    pub database_max_connections: u32,
    /// `file:///dir`, a directory, or `s3://bucket/prefix`; empty means `audio/` in `data_dir`.
    pub storage_url: String,
    /// Largest accepted upload, in bytes.
    pub max_upload_bytes: u64,
    /// Uploads per API key per minute; 0 turns the limit off.
    pub rate_limit_uploads_per_minute: u32,
    /// Reverse proxies (addresses and networks, comma-separated) whose `X-Forwarded-For` names
    /// the client the rate limit counts (empty: none; the peer's address counts).
    pub trusted_proxies: String,
    /// Seconds a request other than an upload may take to its answer; past it, 503 with
    /// `Retry-After` (0: no limit).
    pub request_timeout_seconds: u64,
    /// Requests served at once by this process; past it, 503 with `Retry-After` (0: no cap).
    pub max_requests_in_flight: usize,
    /// The slowest an upload's body may arrive, in bytes a second (0: no floor)…
    pub upload_min_bytes_per_second: u64,
    /// …averaged over this many seconds; a slower upload is cut off with 408.
    pub upload_pace_window_seconds: u64,
    /// Longest accepted audio, in seconds.
    pub max_audio_duration_seconds: f64,
    /// Workers `serve` runs in its own process (0: API only); `worker` runs at least one.
    pub workers: u32,
    /// Seconds a worker's claim on a job lasts without a heartbeat.
    pub job_lease_seconds: u64,
    /// Seconds between heartbeats of a running job.
    pub job_heartbeat_seconds: u64,
    /// Attempts before a job that keeps failing transiently is given up.
    pub job_max_attempts: i32,
    /// Seconds before the first retry of a failed attempt; doubles each time.
    pub job_retry_base_seconds: u64,
    /// Days events and webhook deliveries are kept (0: for ever).
    pub retention_days: u32,
    /// Decode uploads in a child process under a memory limit, so that a file that crashes the
    /// decoder fails its job and nothing else (off: decode in this process).
    pub decode_in_child: bool,
    /// The program run as `PROGRAM decode-audio` (empty: this executable).
    pub decoder_program: String,
    /// Address space a decoding child may use, in MiB.
    pub decoder_memory_limit_mb: u64,
    /// Seconds every stage of a job may take, whatever the call's length.
    pub stage_timeout_seconds: f64,
    /// Seconds a stage may take on top for each second of the call's audio.
    pub stage_timeout_per_audio_second: f64,
    /// Seconds decoding or transcription may go without reporting progress before it is taken
    /// for stuck (diarization and analysis are held to their wall-clock limit alone).
    pub stage_stall_seconds: f64,
    /// Milliseconds an idle worker waits before looking for work again.
    pub worker_poll_interval_ms: u64,
    /// Requests per API key per minute; 0 turns the limit off.
    pub rate_limit_per_minute: u32,
    /// What audio links are signed with (empty: a secret made on the first start and kept in
    /// `<data_dir>/audio-link-secret`). Servers that share a database but not a data directory
    /// need the same one.
    pub audio_link_secret: String,
    /// Seconds in-flight requests get to finish after SIGTERM/SIGINT.
    pub shutdown_grace_seconds: u64,
    /// Test only: accept `http://` and loopback webhook targets.
    pub webhooks_allow_private: bool,
    /// Test only: a PEM file of certificates webhook deliveries trust besides the built-in
    /// roots (empty: none).
    pub webhooks_extra_ca_file: String,
    /// Whether this process sends webhook deliveries (`serve` and `worker` both can; any number
    /// of processes share the work safely).
    pub webhook_dispatch: bool,
    /// Seconds a webhook attempt may take, connection and answer included.
    pub webhook_timeout_seconds: f64,
    /// Waits before each retry of a failed webhook delivery; after the last, it has FAILED.
    pub webhook_retry_delays: String,
    /// Milliseconds between a dispatcher's looks for due deliveries when it found none.
    pub webhook_poll_interval_ms: u64,
    /// Attempts a dispatcher has in flight to one webhook at once (at least 1).
    pub webhook_max_in_flight_per_endpoint: u32,
    /// Where `serve` keeps its search index (empty: `search-index/` in `data_dir`). Each `serve`
    /// process needs its own; it is rebuilt from the database when missing or damaged.
    pub search_index_dir: String,
    /// Milliseconds between the index's catch-ups with the database when nobody searches
    /// (every search catches up first anyway).
    pub search_sync_interval_ms: u64,
    /// `text` (for people) or `json` (one object per line, for log collectors).
    pub log_format: LogFormat,
    /// Log filter (`info`, `debug`, `callscope=debug,sqlx=warn`, …); `RUST_LOG` overrides it.
    pub log_level: String,
    /// Where `callscope models install` puts models (empty: `~/.cache/callscope/models`).
    pub models_dir: String,
    /// Package index the models command fetches from (PEP 503 simple pages).
    pub models_index_url: String,
    /// Hugging Face–compatible hub `callscope models pull` fetches from (a mirror works too).
    pub models_hub_url: String,
    /// Token for the hub's private and gated repositories (empty: `HF_TOKEN` if set, else
    /// none). Masked when shown.
    pub models_hub_token: String,
    /// The Whisper model: a name under `models_dir` or the path of any CTranslate2 Whisper
    /// model directory (large-v3-turbo included).
    pub speech_model: String,
    /// Threads one transcription uses: its windows are decoded side by side, one thread each
    /// (0: every core the process may use).
    pub speech_threads: usize,
    /// Transcriptions that run at once in one process (each with `speech_threads`).
    pub speech_concurrency: usize,
    /// Beam width of Whisper's decoding.
    pub speech_beam_size: usize,
    /// CTranslate2 compute type: `int8` (fastest on a CPU), `float32`, `int8_float32`, `auto`.
    pub speech_compute_type: String,
    /// Voice activity detection: a name under `models_dir` or the path of the Silero VAD
    /// safetensors file (or its folder), or `energy` for the detector that needs no model.
    pub vad_model: String,
    /// Most speakers acoustic diarization looks for in a mono recording.
    pub diarization_max_speakers: usize,
    /// Tell the speech model what a project's calls hold: its category names and a line of
    /// numbers written in digits, given to every window as earlier text.
    pub speech_hints: bool,
    /// Tell the speech model a project's vocabulary: its terms, given to every window as
    /// earlier text, so that they come out spelled as the project spells them.
    pub vocabulary_hints: bool,
    /// Word lists for PII detection (names, common words): a name under `models_dir` or a
    /// folder of `word<TAB>rank` files.
    pub pii_gazetteers: String,
    /// In projects with `piiRedaction: mask`, also silence personal data in the stored audio
    /// (the call then keeps a 16 kHz WAV with the spans muted instead of the upload).
    pub pii_redact_audio: bool,
    /// Sentiment lexicons of the rules analysis engine: a name under `models_dir` or a folder
    /// with `en_valence.txt` and `pl_valence.txt`.
    pub sentiment_lexicons: String,
    /// Analysis engine: `local` (a GGUF model run by llama.cpp in a sidecar process, the
    /// default), `openai` (any OpenAI-compatible endpoint) or `rules` (no model; also the
    /// fallback of the other two).
    pub analysis_engine: AnalysisEngine,
    /// How the `local` and `openai` engines use their model: `guided` (the rules propose, the
    /// model confirms each action item and its owner and picks the category and sentiment; a few
    /// dozen tokens, right for a small model on a CPU), `open` (the model writes the whole
    /// analysis, summary and title included; for a capable model), or `auto` (the default:
    /// `guided` for `local`, `open` for `openai`).
    pub llm_analysis_mode: LlmAnalysisMode,
    /// The local engine's model: a name under `models_dir` (a folder with `model.gguf`) or the
    /// path of a GGUF file or such a folder.
    pub local_llm_model: String,
    /// Its context length in tokens (prompt and answer); longer calls are analysed in parts.
    pub local_llm_context: u32,
    /// CPU threads it uses (0: every core the process may use).
    pub local_llm_threads: usize,
    /// Limit for one request to it, in seconds (generation on a CPU is slow, and requests queue).
    pub local_llm_timeout_seconds: u64,
    /// The `callscope-llm` program (empty: the one beside the `callscope` executable, else the
    /// one on `PATH`).
    pub local_llm_binary: String,
    /// Base URL of the OpenAI-compatible API, up to the version (`https://api.openai.com/v1`,
    /// `http://127.0.0.1:8081/v1`).
    pub llm_base_url: String,
    /// Model name as the endpoint knows it.
    pub llm_model: String,
    /// Bearer token for the endpoint (empty: none). Masked when shown.
    pub llm_api_key: String,
    /// Limit for one request, in seconds.
    pub llm_timeout_seconds: u64,
    /// Retries after a 429, a 5xx or a timeout.
    pub llm_max_retries: u32,
    /// Longest answer asked of the endpoint, in tokens (`max_tokens`): a model that writes on
    /// is cut off there instead of running up time and cost.
    pub llm_max_tokens: u32,
    /// Longest transcript sent in one request, in characters; longer calls are analysed in parts.
    pub llm_context_chars: usize,
    /// Mask personal data in everything sent to the endpoint (on unless you turn it off, e.g.
    /// for an endpoint on your own machines).
    pub llm_mask_pii: bool,
}

/// Which engine analyses calls.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum AnalysisEngine {
    /// A GGUF model run by llama.cpp in a sidecar process.
    Local,
    /// Lexicons and patterns, no model.
    Rules,
    /// An OpenAI-compatible chat-completions endpoint.
    Openai,
}

/// How an LLM engine uses its model.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LlmAnalysisMode {
    /// `Guided` for the packaged local model, `Open` for an `openai` endpoint.
    Auto,
    /// Candidates from the rules, confirmed and chosen by the model.
    Guided,
    /// The whole analysis written by the model.
    Open,
}

impl LlmAnalysisMode {
    /// Whether `engine` runs the model fully (`open`): as set, or by the engine when `auto`
    /// (a small model on a CPU answers closed questions well and open ones badly; a model
    /// behind an endpoint is usually a capable one).
    pub fn open_for(self, engine: AnalysisEngine) -> bool {
        match self {
            Self::Guided => false,
            Self::Open => true,
            Self::Auto => engine == AnalysisEngine::Openai,
        }
    }
}

/// Shape of log lines.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LogFormat {
    /// Human-readable lines.
    Text,
    /// One JSON object per line.
    Json,
}

impl Default for Config {
    fn default() -> Self {
        Self {
            listen: "127.0.0.1:8080".into(),
            data_dir: PathBuf::from("./data"),
            database_url: String::new(),
            database_max_connections: 10,
            storage_url: String::new(),
            max_upload_bytes: 500 * 1024 * 1024,
            rate_limit_uploads_per_minute: 60,
            trusted_proxies: String::new(),
            request_timeout_seconds: 60,
            max_requests_in_flight: 512,
            upload_min_bytes_per_second: 1024,
            upload_pace_window_seconds: 30,
            max_audio_duration_seconds: 4.0 * 3600.0,
            workers: 1,
            job_lease_seconds: 60,
            job_heartbeat_seconds: 10,
            job_max_attempts: 5,
            job_retry_base_seconds: 10,
            retention_days: 30,
            decode_in_child: true,
            decoder_program: String::new(),
            decoder_memory_limit_mb: 1024,
            stage_timeout_seconds: 600.0,
            stage_timeout_per_audio_second: 4.0,
            stage_stall_seconds: 1200.0,
            worker_poll_interval_ms: 1000,
            rate_limit_per_minute: 1200,
            audio_link_secret: String::new(),
            shutdown_grace_seconds: 30,
            webhooks_allow_private: false,
            webhooks_extra_ca_file: String::new(),
            webhook_dispatch: true,
            webhook_timeout_seconds: 10.0,
            webhook_retry_delays: "5s,5m,30m,2h,5h,10h".into(),
            webhook_poll_interval_ms: 500,
            webhook_max_in_flight_per_endpoint: 4,
            search_index_dir: String::new(),
            search_sync_interval_ms: 1_000,
            log_format: LogFormat::Text,
            log_level: "info".into(),
            models_dir: String::new(),
            models_index_url: callscope_models::DEFAULT_INDEX.into(),
            models_hub_url: callscope_models::DEFAULT_HUB.into(),
            models_hub_token: String::new(),
            speech_model: "whisper-base".into(),
            speech_threads: 0,
            speech_concurrency: 1,
            speech_beam_size: 5,
            speech_compute_type: "int8".into(),
            vad_model: "silero-vad".into(),
            diarization_max_speakers: 4,
            speech_hints: false,
            vocabulary_hints: true,
            pii_gazetteers: "pii-gazetteers".into(),
            pii_redact_audio: false,
            sentiment_lexicons: "sentiment-lexicons".into(),
            analysis_engine: AnalysisEngine::Local,
            llm_analysis_mode: LlmAnalysisMode::Auto,
            local_llm_model: "qwen2.5-coder-1.5b".into(),
            local_llm_context: 8192,
            local_llm_threads: 0,
            local_llm_timeout_seconds: 900,
            local_llm_binary: String::new(),
            llm_base_url: "http://127.0.0.1:8081/v1".into(),
            llm_model: "qwen2.5-1.5b-instruct".into(),
            llm_api_key: String::new(),
            llm_timeout_seconds: 120,
            llm_max_retries: 3,
            llm_max_tokens: 2048,
            llm_context_chars: 24_000,
            llm_mask_pii: true,
        }
    }
}

impl std::fmt::Debug for Config {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Config {{ {} }}", self.to_redacted_toml().trim().replace('\n', ", "))
    }
}

impl Config {
    /// Loads the layers. `file` is the `--config`/`CALLSCOPE_CONFIG` path, which must exist when
    /// given; otherwise `callscope.toml` in the working directory is read if present.
    ///
    /// # Errors
    /// A missing named file, unreadable TOML or a value of the wrong type, naming the setting.
    pub fn load(file: Option<&Path>) -> anyhow::Result<Self> {
        let mut figment = Figment::from(Serialized::defaults(Config::default()));
        match file {
            Some(path) => {
                anyhow::ensure!(path.is_file(), "configuration file {} does not exist", path.display());
                figment = figment.merge(Toml::file_exact(path));
            }
            None if Path::new(DEFAULT_CONFIG_FILE).is_file() => {
                figment = figment.merge(Toml::file_exact(DEFAULT_CONFIG_FILE));
            }
            None => {}
        }
        figment.merge(Env::prefixed("CALLSCOPE_").split("__").ignore(&["config"])).extract().context("invalid configuration")
    }

    /// The database URL in effect.
    pub fn database_url(&self) -> String {
        if self.database_url.trim().is_empty() {
            format!("sqlite://{}", self.data_dir.join("callscope.db").display())
        } else {
            self.database_url.clone()
        }
    }

    /// The models directory in effect.
    pub fn models_dir(&self) -> PathBuf {
        if self.models_dir.trim().is_empty() {
            callscope_models::default_dir()
        } else {
            PathBuf::from(&self.models_dir)
        }
    }

    /// An artifact setting's folder: a path as given, or a name under the models directory.
    fn artifact_dir(&self, setting: &str) -> PathBuf {
        let given = PathBuf::from(setting);
        if given.is_absolute() || setting.contains('/') {
            given
        } else {
            self.models_dir().join(setting)
        }
    }

    /// The Whisper model directory.
    pub fn speech_model_dir(&self) -> PathBuf {
        self.artifact_dir(&self.speech_model)
    }

    /// The Silero VAD model (file or folder), or `None` for the energy detector.
    pub fn vad_model_path(&self) -> Option<PathBuf> {
        (!self.vad_model.eq_ignore_ascii_case("energy")).then(|| self.artifact_dir(&self.vad_model))
    }

    /// The PII word lists' folder.
    pub fn pii_gazetteers_dir(&self) -> PathBuf {
        self.artifact_dir(&self.pii_gazetteers)
    }

    /// The sentiment lexicons' folder.
    pub fn sentiment_lexicons_dir(&self) -> PathBuf {
        self.artifact_dir(&self.sentiment_lexicons)
    }

    /// The local engine's GGUF file: the setting itself when it names a file, else `model.gguf`
    /// in the artifact folder it names.
    pub fn local_llm_file(&self) -> PathBuf {
        let dir = self.artifact_dir(&self.local_llm_model);
        if dir.extension().is_some_and(|e| e.eq_ignore_ascii_case("gguf")) {
            dir
        } else {
            dir.join("model.gguf")
        }
    }

    /// Threads for one transcription: as configured, else the cores available to the process.
    pub fn speech_threads(&self) -> usize {
        if self.speech_threads > 0 {
            self.speech_threads
        } else {
            std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get)
        }
    }

    /// The search index directory in effect.
    pub fn search_index_dir(&self) -> PathBuf {
        if self.search_index_dir.trim().is_empty() {
            self.data_dir.join("search-index")
        } else {
            PathBuf::from(&self.search_index_dir)
        }
    }

    /// The object storage URL in effect.
    pub fn storage_url(&self) -> String {
        if self.storage_url.trim().is_empty() {
            self.data_dir.join("audio").display().to_string()
        } else {
            self.storage_url.clone()
        }
    }

    /// The configuration with secrets masked, for showing and logging.
    pub fn redacted(&self) -> Self {
        let mask = |secret: &str| if secret.is_empty() { String::new() } else { "********".to_string() };
        Self {
            database_url: mask_url_password(&self.database_url),
            llm_api_key: mask(&self.llm_api_key),
            models_hub_token: mask(&self.models_hub_token),
            audio_link_secret: mask(&self.audio_link_secret),
            models_hub_url: callscope_analysis::masked_url(&self.models_hub_url),
            llm_base_url: callscope_analysis::masked_url(&self.llm_base_url),
            ..self.clone()
        }
    }

    /// The redacted configuration as TOML.
    pub fn to_redacted_toml(&self) -> String {
        let mut shown = self.redacted();
        shown.database_url = mask_url_password(&self.database_url());
        toml::to_string_pretty(&shown).expect("the configuration serialises")
    }
}

/// Replaces the password of a URL by `********`; URLs without one come back unchanged.
pub fn mask_url_password(raw: &str) -> String {
    match url::Url::parse(raw) {
        Ok(mut url) if url.password().is_some() => {
            let _ = url.set_password(Some("********"));
            url.into()
        }
        Ok(_) => raw.to_owned(),
        // Not a URL we can read: show nothing of it rather than risk a secret.
        Err(_) if raw.is_empty() => String::new(),
        Err(_) => "(unparseable URL hidden)".into(),
    }
}

#[cfg(test)]
#[allow(clippy::result_large_err)] // figment::Jail's closures return figment::Error
mod tests {
    use super::*;

    #[test]
    fn layers_override_in_order() {
        figment::Jail::expect_with(|jail| {
            jail.create_file("callscope.toml", "listen = \"0.0.0.0:9000\"\nrate_limit_per_minute = 10\nlog_format = \"json\"\n")?;
            jail.set_env("CALLSCOPE_RATE_LIMIT_PER_MINUTE", "0");
            jail.set_env("CALLSCOPE_DATA_DIR", "/var/lib/callscope");
            let config = Config::load(None).expect("loads");
            assert_eq!(config.listen, "0.0.0.0:9000", "file over default");
            assert_eq!(config.rate_limit_per_minute, 0, "environment over file");
            assert_eq!(config.log_format, LogFormat::Json);
            assert_eq!(config.data_dir, PathBuf::from("/var/lib/callscope"));
            assert_eq!(config.database_url(), "sqlite:///var/lib/callscope/callscope.db");
            assert_eq!(config.shutdown_grace_seconds, 30, "default where nothing says otherwise");
            Ok(())
        });
    }

    #[test]
    fn a_named_file_must_exist_and_bad_values_name_the_setting() {
        figment::Jail::expect_with(|jail| {
            assert!(Config::load(Some(Path::new("nope.toml"))).is_err());
            jail.create_file("bad.toml", "workers_typo = 1\nrate_limit_per_minute = \"many\"\n")?;
            let err = format!("{:#}", Config::load(Some(Path::new("bad.toml"))).unwrap_err());
            assert!(err.contains("rate_limit_per_minute"), "{err}");
            Ok(())
        });
    }

    #[test]
    fn secrets_are_masked() {
        assert_eq!(mask_url_password("postgres://app:s3cret@db:5432/calls"), "postgres://app:********@db:5432/calls");
        assert_eq!(mask_url_password("sqlite://./data/x.db"), "sqlite://./data/x.db");
        let config = Config {
            database_url: "postgres://app:s3cret@db/calls".into(),
            models_hub_token: "hf_s3cret".into(),
            audio_link_secret: "links-s3cret".into(),
            ..Config::default()
        };
        let shown = config.to_redacted_toml();
        assert!(!shown.contains("s3cret"), "{shown}");
        assert!(shown.contains("********"));
        assert!(!format!("{:?}", config.redacted()).contains("s3cret"));
    }
}
