//! `callscope-llm --model FILE.gguf`: serves the model on an OpenAI-compatible endpoint. Once the
//! model is loaded it prints `listening on http://ADDR` on standard output, which is how
//! `callscope` learns the port when it asks for port 0. With `--watch-stdin` it exits when its
//! standard input closes, so a sidecar never outlives the process that started it.

use std::io::{Read, Write};
use std::net::SocketAddr;
use std::path::PathBuf;

use clap::Parser;

#[derive(Debug, Parser)]
#[command(name = "callscope-llm", version, about = "Serves a GGUF model (llama.cpp) on an OpenAI-compatible chat-completions endpoint")]
struct Args {
    /// The GGUF model file.
    #[arg(long)]
    model: PathBuf,
    /// The model's name in answers (default: the file's folder or stem).
    #[arg(long)]
    name: Option<String>,
    /// Address to listen on; port 0 picks a free one.
    #[arg(long, default_value = "127.0.0.1:8081")]
    listen: SocketAddr,
    /// Context length in tokens (prompt and answer).
    #[arg(long, default_value_t = 8192)]
    context: u32,
    /// CPU threads (0: all cores).
    #[arg(long, default_value_t = 0)]
    threads: usize,
    /// Prompt tokens per batch.
    #[arg(long, default_value_t = 512)]
    batch: u32,
    /// Requests that may wait while one runs; more are answered 503 with Retry-After.
    #[arg(long, default_value_t = 64)]
    queue: usize,
    /// Exit when standard input closes (for a parent process that holds it open).
    #[arg(long)]
    watch_stdin: bool,
    /// Show llama.cpp's own log.
    #[arg(long)]
    verbose: bool,
    /// Log lines as JSON objects (as `callscope` does with `log_format = "json"`).
    #[arg(long)]
    log_json: bool,
}

fn name_of(path: &std::path::Path) -> String {
    let stem = path.file_stem().and_then(|s| s.to_str()).unwrap_or("model");
    if stem == "model" {
        if let Some(dir) = path.parent().and_then(|d| d.file_name()).and_then(|s| s.to_str()) {
            return dir.to_owned();
        }
    }
    stem.to_owned()
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let args = Args::parse();
    let logs = tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::try_from_default_env().unwrap_or_else(|_| "info".into()))
        .with_writer(std::io::stderr);
    if args.log_json {
        logs.json().flatten_event(true).init();
    } else {
        logs.init();
    }
    if !args.model.is_file() {
        anyhow::bail!("no model file at {} (install one with `callscope models install qwen2.5-coder-1.5b`)", args.model.display());
    }
    let threads = if args.threads == 0 { std::thread::available_parallelism().map_or(1, |n| n.get()) } else { args.threads };
    let settings = callscope_llm::EngineSettings {
        context: args.context.max(256),
        threads: i32::try_from(threads).unwrap_or(1),
        batch: args.batch.max(1),
        queue: args.queue,
    };
    let name = args.name.clone().unwrap_or_else(|| name_of(&args.model));
    let engine = tokio::task::spawn_blocking({
        let model = args.model.clone();
        move || callscope_llm::start(&model, name, settings, args.verbose)
    })
    .await??;
    let listener = tokio::net::TcpListener::bind(args.listen).await?;
    let addr = listener.local_addr()?;
    tracing::info!(%addr, model = %engine.model, context = engine.context, threads, "serving");
    {
        let mut out = std::io::stdout().lock();
        writeln!(out, "listening on http://{addr}")?;
        out.flush()?;
    }
    let (closed_tx, closed_rx) = tokio::sync::oneshot::channel::<()>();
    if args.watch_stdin {
        std::thread::spawn(move || {
            let mut sink = [0u8; 256];
            let mut stdin = std::io::stdin();
            while matches!(stdin.read(&mut sink), Ok(n) if n > 0) {}
            let _ = closed_tx.send(());
        });
    } else {
        std::mem::forget(closed_tx);
    }
    let shutdown = async move {
        let terminate = async {
            if let Ok(mut s) = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
                s.recv().await;
            }
        };
        tokio::select! {
            _ = closed_rx => tracing::info!("standard input closed; stopping"),
            _ = tokio::signal::ctrl_c() => {},
            () = terminate => {},
        }
    };
    // Nothing the engine holds needs saving, and a generation in progress is not waited for.
    tokio::spawn(async move {
        shutdown.await;
        std::process::exit(0);
    });
    axum::serve(listener, callscope_llm::router(engine)).await?;
    Ok(())
}
