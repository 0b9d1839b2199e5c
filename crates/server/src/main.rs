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

#[tokio::main]
async fn main() -> ExitCode {
    let cli = Cli::parse();
    let config = match Config::load(cli.config.as_deref()) {
        Ok(config) => config,
        Err(e) => {
            eprintln!("error: {e:#}");
            return ExitCode::from(2);
        }
    };
    init_logging(&config);
    match run(cli.command, config).await {
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
            let app = Application::build(&config, clock).await?;
            tracing::info!(address = %app.local_addr(), database = app.store().backend().name(), "callscope is listening");
            app.run_until_stopped(shutdown_signal()).await?;
            tracing::info!("stopped");
        }
        Command::Worker { count } => {
            let store = open_store(&config, clock.clone()).await?;
            let storage = callscope::startup::open_storage(&config)?;
            let count = count.unwrap_or(config.workers).max(1);
            let workers = callscope::startup::build_workers(&config, count, &store, &storage, &clock);
            tracing::info!(count, storage = storage.describe(), "workers running");
            let (stop, handles) = callscope::startup::spawn_workers(workers);
            shutdown_signal().await;
            tracing::info!("stopping workers after their current jobs");
            let _ = stop.send(true);
            for handle in handles {
                let _ = handle.await;
            }
            store.close().await;
        }
        Command::Migrate => {
            let store = open_store(&config, clock).await?;
            store.close().await;
            eprintln!("database is up to date");
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
                    let key = store
                        .create_api_key(org, &name, &secret.digest())
                        .await?
                        .with_context(|| format!("no organization {org}"))?;
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
