//! The `local` analysis engine: `callscope-llm` (llama.cpp with a GGUF model) started as a child
//! process on a free loopback port, and the LLM engine talking to it like any OpenAI-compatible
//! endpoint. The child is killed when the engine is dropped, and exits by itself when this
//! process dies (it watches the standard input we hold open).

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;
use async_trait::async_trait;
use callscope_analysis::engine::{AnalysisError, AnalysisInput, CallAnalysis};
use callscope_analysis::guided::GuidedEngine;
use callscope_analysis::llm_engine::LlmEngine;
use callscope_analysis::{OpenAiClient, OpenAiSettings};
use callscope_pipeline::{Analyzer, RulesEngine};
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{Child, ChildStdin, Command};

use crate::config::AnalysisEngine;
use crate::Config;

/// How long the model may take to load before start-up gives up.
const START_LIMIT: Duration = Duration::from_secs(180);
/// Tokens kept for the answer.
const ANSWER_TOKENS: u32 = 2048;

/// A running sidecar.
pub struct Sidecar {
    child: Child,
    _stdin: ChildStdin,
    base_url: String,
}

impl std::fmt::Debug for Sidecar {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Sidecar").field("pid", &self.child.id()).field("base_url", &self.base_url).finish()
    }
}

impl Sidecar {
    /// The OpenAI-compatible base URL (`http://127.0.0.1:PORT/v1`).
    pub fn base_url(&self) -> &str {
        &self.base_url
    }
}

/// The `callscope-llm` program: as configured, else beside this executable (or one folder up,
/// where test binaries live), else on `PATH`.
pub fn sidecar_binary(config: &Config) -> PathBuf {
    if !config.local_llm_binary.trim().is_empty() {
        return PathBuf::from(&config.local_llm_binary);
    }
    if let Ok(exe) = std::env::current_exe() {
        for dir in exe.ancestors().skip(1).take(2) {
            let candidate = dir.join("callscope-llm");
            if candidate.is_file() {
                return candidate;
            }
        }
    }
    PathBuf::from("callscope-llm")
}

/// Starts the sidecar for `model` and waits until it serves.
///
/// # Errors
/// A missing model or program, or a sidecar that exits or stays silent while loading.
pub async fn start_sidecar(config: &Config, model: &Path, name: &str) -> anyhow::Result<Sidecar> {
    anyhow::ensure!(
        model.is_file(),
        "no local LLM at {} (install it with `callscope models install {}`, or set analysis_engine = \"rules\")",
        model.display(),
        config.local_llm_model
    );
    let program = sidecar_binary(config);
    let threads = if config.local_llm_threads > 0 {
        config.local_llm_threads
    } else {
        std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get)
    };
    let mut child = Command::new(&program)
        .arg("--model")
        .arg(model)
        .args(["--name", name, "--listen", "127.0.0.1:0", "--watch-stdin"])
        .args(["--context", &config.local_llm_context.to_string(), "--threads", &threads.to_string()])
        .args(matches!(config.log_format, crate::config::LogFormat::Json).then_some("--log-json"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .kill_on_drop(true)
        .spawn()
        .with_context(|| {
            format!(
                "cannot start the local LLM program {} (build it with `cargo build --release -p callscope-llm`, or set local_llm_binary)",
                program.display()
            )
        })?;
    let stdin = child.stdin.take().context("the sidecar's standard input")?;
    let stdout = child.stdout.take().context("the sidecar's standard output")?;
    let mut lines = BufReader::new(stdout).lines();
    let ready = async {
        while let Some(line) = lines.next_line().await? {
            if let Some(url) = line.strip_prefix("listening on ") {
                return Ok::<_, std::io::Error>(Some(url.trim().to_owned()));
            }
        }
        Ok(None)
    };
    let url = match tokio::time::timeout(START_LIMIT, ready).await {
        Ok(Ok(Some(url))) => url,
        Ok(Ok(None) | Err(_)) => {
            let status = child.wait().await.map(|s| s.to_string()).unwrap_or_else(|e| e.to_string());
            anyhow::bail!("the local LLM exited while starting ({status}); its log is above");
        }
        Err(_) => anyhow::bail!("the local LLM did not start within {START_LIMIT:?}"),
    };
    tracing::info!(model = %model.display(), %url, pid = child.id(), threads, context = config.local_llm_context, "local LLM started");
    Ok(Sidecar { child, _stdin: stdin, base_url: format!("{url}/v1") })
}

/// The local engine: the LLM engine over the sidecar, which lives as long as it does.
pub struct LocalEngine {
    engine: Arc<dyn Analyzer>,
    sidecar: Arc<Sidecar>,
}

impl LocalEngine {
    /// Starts the sidecar with the configured model and connects the LLM engine to it.
    ///
    /// # Errors
    /// See [`start_sidecar`].
    pub async fn start(config: &Config, fallback: RulesEngine, mask: Option<Arc<callscope_pii::Detector>>) -> anyhow::Result<Self> {
        let file = config.local_llm_file();
        let name = model_name(&file);
        let sidecar = start_sidecar(config, &file, &name).await?;
        let settings = OpenAiSettings {
            base_url: sidecar.base_url().to_owned(),
            model: name,
            api_key: None,
            timeout: Duration::from_secs(config.local_llm_timeout_seconds.max(1)),
            max_retries: config.llm_max_retries,
            retry_base: Duration::from_secs(1),
            max_tokens: ANSWER_TOKENS,
        };
        let client = OpenAiClient::new(settings, mask)?;
        let budget = transcript_budget(config.local_llm_context);
        let engine: Arc<dyn Analyzer> = if config.llm_analysis_mode.open_for(AnalysisEngine::Local) {
            Arc::new(LlmEngine::new(client, fallback, budget).named("local"))
        } else {
            Arc::new(GuidedEngine::new(client, fallback, budget).named("local"))
        };
        Ok(Self { engine, sidecar: Arc::new(sidecar) })
    }

    /// The sidecar's base URL.
    pub fn base_url(&self) -> &str {
        self.sidecar.base_url()
    }
}

/// The model's name: its artifact folder, or the file's stem.
fn model_name(file: &Path) -> String {
    let stem = file.file_stem().and_then(|s| s.to_str()).unwrap_or("model");
    match file.parent().and_then(Path::file_name).and_then(|s| s.to_str()) {
        Some(dir) if stem == "model" => dir.to_owned(),
        _ => stem.to_owned(),
    }
}

impl std::fmt::Debug for LocalEngine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LocalEngine").field("model_used", &self.engine.model_used()).field("sidecar", &self.sidecar).finish()
    }
}

/// Transcript characters per request for a context of `tokens`: what the answer, instructions,
/// categories and template leave, at a cautious 2.5 characters a token (Polish runs shorter
/// than English).
fn transcript_budget(tokens: u32) -> usize {
    let left = tokens.saturating_sub(ANSWER_TOKENS + 1024).max(512);
    (left as usize * 5) / 2
}

#[async_trait]
impl Analyzer for LocalEngine {
    fn model_used(&self) -> String {
        self.engine.model_used()
    }

    async fn analyze(&self, input: &AnalysisInput) -> Result<CallAnalysis, AnalysisError> {
        self.engine.analyze(input).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_budgets() {
        assert_eq!(model_name(Path::new("/m/qwen2.5-coder-1.5b/model.gguf")), "qwen2.5-coder-1.5b");
        assert_eq!(model_name(Path::new("/m/Phi-3.Q4.gguf")), "Phi-3.Q4");
        assert_eq!(transcript_budget(8192), 12_800);
        assert_eq!(transcript_budget(1024), 1280);
    }
}
