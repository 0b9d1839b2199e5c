//! `callscope`: the service (`serve`) and its administration commands.

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use anyhow::Context;
use callscope::config::LogFormat;
use callscope::startup::open_store;
use callscope::{shutdown_signal, Application, Config};
use callscope_domain::{ApiKeyId, ApiKeySecret, Clock, OrgId, SystemClock};
use clap::{Parser, Subcommand};
use tracing_subscriber::EnvFilter;

#[derive(Parser)]
#[command(name = "callscope", version, about = "Self-hosted call analytics")]
struct Cli {
    /// Configuration file (default: ./callscope.toml when it exists).
    #[arg(long, global = true, env = "CALLSCOPE_CONFIG", value_name = "FILE")]
    config: Option<PathBuf>,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run the HTTP API (and `workers` in-process workers).
    Serve,
    /// Run workers only, sharing the database and storage with other processes.
    Worker {
        /// How many workers (default: the `workers` setting, at least 1).
        #[arg(long)]
        count: Option<u32>,
    },
    /// Apply database migrations and exit.
    Migrate,
    /// Rebuild the search index from the database (stop `serve` first: it holds the index).
    Reindex,
    /// Print the configuration in effect (secrets masked).
    PrintConfig,
    /// Manage organizations.
    Org {
        #[command(subcommand)]
        command: OrgCommand,
    },
    /// Manage API keys.
    Key {
        #[command(subcommand)]
        command: KeyCommand,
    },
    /// Install and list models (speech recognition) and test recordings.
    Models {
        #[command(subcommand)]
        command: ModelsCommand,
    },
    /// Decode one file into 16 kHz signals beside BASE, reporting on standard output: what the
    /// service runs in a child process for each upload (not for people).
    #[command(hide = true)]
    DecodeAudio {
        /// Longest accepted audio, in seconds.
        #[arg(long)]
        max_duration: Option<f64>,
        /// The audio file.
        input: PathBuf,
        /// Where the signals go: BASE.0.f32, BASE.1.f32.
        base: PathBuf,
    },
    /// Run one audio file through the whole pipeline here and print the call.
    Analyze {
        /// The audio file (WAV, MP3, FLAC, OGG, M4A).
        file: PathBuf,
        /// Spoken language.
        #[arg(long, default_value = "en", value_parser = ["en", "pl"])]
        language: String,
        /// Speaker roles in channel order, e.g. `agent,customer`.
        #[arg(long, value_name = "ROLES")]
        channel_roles: Option<String>,
        /// Print the call as JSON instead of a readable transcript.
        #[arg(long)]
        json: bool,
        /// Mask personal data in the transcript (`[PHONE_NUMBER]`), as a project with
        /// `piiRedaction: mask` stores it.
        #[arg(long)]
        redact: bool,
        /// A project's vocabulary as the API takes it (`{"terms": [{"term": "Volt Dom",
        /// "company": true}]}`): the call is heard and respelled with it, and the company's
        /// names help pick out the agent.
        #[arg(long, value_name = "FILE")]
        vocabulary: Option<PathBuf>,
    },
}

#[derive(Subcommand)]
enum ModelsCommand {
    /// Fetch, assemble and verify models (idempotent; resumes interrupted downloads).
    Install {
        /// A named set: `default` (what `serve` needs), `test` (adds tiny.en and recordings), `all`.
        #[arg(long, default_value = "default")]
        profile: String,
        /// Install these artifacts instead of a profile.
        names: Vec<String>,
    },
    /// Show every known artifact, whether it is installed, and where.
    List,
    /// Print the folder of an installed artifact (for scripts); fails when it is not installed.
    Path {
        /// Artifact name, e.g. `whisper-base`.
        name: String,
    },
    /// Fetch a model from a Hugging Face–compatible hub (`models_hub_url`; a token from
    /// `models_hub_token` or `HF_TOKEN` for gated ones) into the models directory, as
    /// `owner--name`. Resumes interrupted downloads; every file is checked against the hub's
    /// SHA-256 (or git blob id). Prints the setting that puts the model to use.
    Pull {
        /// `owner/name[@revision][:pattern]`, e.g. `Systran/faster-whisper-large-v3` or
        /// `bartowski/Qwen2.5-7B-Instruct-GGUF:*Q4_K_M.gguf` (`*` and `?` over file paths).
        spec: String,
    },
}

#[derive(Subcommand)]
enum OrgCommand {
    /// Create an organization; prints its id.
    Create {
        /// The organization's name.
        name: String,
    },
    /// List organizations.
    List,
}

#[derive(Subcommand)]
enum KeyCommand {
    /// Create an API key; prints the key, which is shown only this once.
    Create {
        /// Organization id.
        #[arg(long)]
        org: OrgId,
        /// A label for the key.
        #[arg(long, default_value = "cli")]
        name: String,
    },
    /// List an organization's keys (ids and labels, never the keys).
    List {
        /// Organization id.
        #[arg(long)]
        org: OrgId,
    },
    /// Revoke a key by its id; requests with it are refused from now on.
    Revoke {
        /// Key id (from `key list`).
        id: ApiKeyId,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    // The decoding child needs no configuration, logging or runtime: it is one thread, so that
    // its address-space limit goes to the decoding.
    if let Command::DecodeAudio { max_duration, input, base } = &cli.command {
        let code = callscope_audio::isolated::run_child(input, base, *max_duration, &mut std::io::stdout().lock());
        return ExitCode::from(code);
    }
    let config = match Config::load(cli.config.as_deref()) {
        Ok(config) => config,
        Err(e) => {
            eprintln!("error: {e:#}");
            return ExitCode::from(2);
        }
    };
    init_logging(&config);
    // The models command downloads with a blocking client, outside any async runtime.
    if let Command::Models { command } = cli.command {
        return match models(command, &config) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("error: {e:#}");
                ExitCode::FAILURE
            }
        };
    }
    let runtime = match tokio::runtime::Builder::new_multi_thread().enable_all().build() {
        Ok(runtime) => runtime,
        Err(e) => {
            eprintln!("error: cannot start the runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    match runtime.block_on(run(cli.command, config)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            tracing::error!("{e:#}");
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}

async fn run(command: Command, config: Config) -> anyhow::Result<()> {
    let clock: Arc<dyn Clock> = Arc::new(SystemClock);
    match command {
        Command::Serve => {
            let stop = shutdown_signal();
            let app = Application::build(&config, clock).await?;
            tracing::info!(address = %app.local_addr(), database = app.store().backend().name(), "callscope is listening");
            app.run_until_stopped(stop).await?;
            tracing::info!("stopped");
        }
        Command::Worker { count } => {
            let stop = shutdown_signal();
            let store = open_store(&config, clock.clone()).await?;
            let storage = callscope::startup::open_storage(&config)?;
            let count = count.unwrap_or(config.workers).max(1);
            let workers = callscope::startup::build_workers(&config, count, &store, &storage, &clock).await?;
            let dispatcher = if config.webhook_dispatch { Some(callscope::startup::build_dispatcher(&config, &store, &clock)?) } else { None };
            tracing::info!(count, storage = storage.describe(), "workers running");
            let health = Arc::new(callscope_worker::WorkerHealth::new(workers.len()));
            let (stop_workers, handles) = callscope::startup::spawn_workers(workers, health);
            let dispatcher = dispatcher.map(|d| tokio::spawn(d.run(stop_workers.subscribe())));
            let housekeeping = callscope::startup::housekeeping(&config).spawn(store.clone(), clock.clone(), stop_workers.subscribe());
            stop.await;
            tracing::info!("stopping workers after their current jobs");
            let _ = stop_workers.send(true);
            for handle in handles {
                let _ = handle.await;
            }
            if let Some(dispatcher) = dispatcher {
                let _ = dispatcher.await;
            }
            let _ = housekeeping.await;
            store.close().await;
        }
        Command::Migrate => {
            let store = open_store(&config, clock).await?;
            store.close().await;
            eprintln!("database is up to date");
        }
        Command::Reindex => {
            let store = open_store(&config, clock).await?;
            let search = callscope::startup::open_search(&config, &store).await?;
            let started = std::time::Instant::now();
            search.clear().await?;
            let mut indexed = 0;
            loop {
                let step = search.catch_up(Some(10_000)).await?;
                indexed += step.indexed;
                eprintln!("indexed {indexed} calls ({:.0} a second)", indexed as f64 / started.elapsed().as_secs_f64().max(1e-3));
                if step.complete {
                    break;
                }
            }
            let index = search.index();
            eprintln!(
                "search index rebuilt in {:.1} s: {} calls, {:.1} MiB in {}",
                started.elapsed().as_secs_f64(),
                index.len(),
                index.size_on_disk() as f64 / (1024.0 * 1024.0),
                index.dir().display()
            );
            store.close().await;
        }
        Command::PrintConfig => print!("{}", config.to_redacted_toml()),
        Command::Org { command } => {
            let store = open_store(&config, clock).await?;
            match command {
                OrgCommand::Create { name } => {
                    let name = name.trim();
                    anyhow::ensure!(!name.is_empty(), "the organization name must not be empty");
                    let org = store.create_organization(name).await?;
                    println!("{}", org.id);
                    eprintln!("created organization {:?}; add a key with: callscope key create --org {}", org.name, org.id);
                }
                OrgCommand::List => {
                    for org in store.list_organizations().await? {
                        println!("{}\t{}\t{}", org.id, org.created_at.to_rfc3339(), org.name);
                    }
                }
            }
            store.close().await;
        }
        Command::Key { command } => {
            let store = open_store(&config, clock).await?;
            match command {
                KeyCommand::Create { org, name } => {
                    let secret = ApiKeySecret::generate();
                    let key = store.create_api_key(org, &name, &secret.digest()).await?.with_context(|| format!("no organization {org}"))?;
                    println!("{}", secret.expose());
                    eprintln!("key {} for organization {org}: store it now, it is not shown again", key.id);
                }
                KeyCommand::List { org } => {
                    for key in store.list_api_keys(org).await? {
                        let state = key.revoked_at.map_or_else(|| "active".to_owned(), |t| format!("revoked {}", t.to_rfc3339()));
                        println!("{}\t{}\t{}\t{}", key.id, key.created_at.to_rfc3339(), state, key.name);
                    }
                }
                KeyCommand::Revoke { id } => {
                    let key = store.revoke_api_key(id).await?.with_context(|| format!("no API key {id}"))?;
                    eprintln!("key {} of organization {} is revoked", key.id, key.org_id);
                }
            }
            store.close().await;
        }
        Command::Models { .. } | Command::DecodeAudio { .. } => unreachable!("handled before the runtime starts"),
        Command::Analyze { file, language, channel_roles, json, redact, vocabulary } => {
            let options = callscope::analyze::Options { channel_roles, json, redact, vocabulary };
            callscope::analyze::run(&config, &file, &language, &options).await?;
        }
    }
    Ok(())
}

fn models(command: ModelsCommand, config: &Config) -> anyhow::Result<()> {
    let installer = callscope_models::Installer::new(config.models_dir(), config.models_index_url.clone())?;
    match command {
        ModelsCommand::Install { profile, names } => {
            let artifacts = if names.is_empty() {
                callscope_models::profile(&profile)?
            } else {
                names.iter().map(|n| callscope_models::artifact(n)).collect::<Result<Vec<_>, _>>()?
            };
            eprintln!("models directory: {}", installer.dir().display());
            for artifact in artifacts {
                installer.install(artifact, &mut |line| eprintln!("{line}"))?;
            }
            installer.clean_downloads()?;
        }
        ModelsCommand::List => {
            println!("{:<18} {:<10} {:<10} {:>9}  PATH", "NAME", "KIND", "STATE", "MIB");
            for item in installer.list() {
                let kind = serde_json::to_value(item.kind)?.as_str().unwrap_or_default().to_owned();
                let state = if item.installed { "installed" } else { "missing" };
                println!("{:<18} {:<10} {:<10} {:>9.1}  {}", item.name, kind, state, item.size_bytes as f64 / 1_048_576.0, item.path.display());
            }
            let speech = config.speech_model_dir();
            println!("\nspeech model in use: {}", speech.display());
        }
        ModelsCommand::Pull { spec } => {
            let spec: callscope_models::PullSpec = spec.parse()?;
            let token = Some(config.models_hub_token.clone())
                .filter(|t| !t.trim().is_empty())
                .or_else(|| std::env::var("HF_TOKEN").ok().filter(|t| !t.trim().is_empty()));
            let hub = callscope_models::Hub::new(&config.models_hub_url, token)?;
            eprintln!("hub: {}, models directory: {}", callscope_analysis::masked_url(&config.models_hub_url), installer.dir().display());
            let pulled = hub.pull(&spec, installer.dir(), &mut |line| eprintln!("{line}"))?;
            let bytes: u64 = pulled.files.iter().map(|f| f.size).sum();
            eprintln!(
                "{} at commit {}: {} file(s), {:.1} MiB ({:.1} MiB downloaded now)",
                pulled.repo,
                pulled.commit,
                pulled.files.len(),
                bytes as f64 / 1_048_576.0,
                pulled.downloaded_bytes as f64 / 1_048_576.0
            );
            match pulled.setting() {
                Some((setting, path)) => {
                    eprintln!(
                        "to use it, set {setting} = {:?} in callscope.toml (or CALLSCOPE_{}={})",
                        path.display().to_string(),
                        setting.to_uppercase(),
                        path.display()
                    );
                    println!("{}", path.display());
                }
                None => println!("{}", pulled.dir.display()),
            }
        }
        ModelsCommand::Path { name } => {
            let artifact = callscope_models::artifact(&name)?;
            anyhow::ensure!(installer.is_installed(artifact), "{name} is not installed (run `callscope models install {name}`)");
            println!("{}", installer.path_of(artifact).display());
        }
    }
    Ok(())
}

fn init_logging(config: &Config) {
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new(&config.log_level));
    let builder = tracing_subscriber::fmt().with_env_filter(filter).with_writer(std::io::stderr);
    match config.log_format {
        LogFormat::Json => builder.json().flatten_event(true).init(),
        LogFormat::Text => builder.init(),
    }
}
