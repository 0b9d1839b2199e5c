//! A client for any OpenAI-compatible chat-completions endpoint (OpenAI, vLLM, Ollama, the
//! llama.cpp server): JSON answers constrained by a JSON Schema (structured output), a timeout
//! per attempt, retries with exponential backoff on 429 and 5xx (honouring `Retry-After`), and
//! personal data masked in everything sent unless that is switched off.

use std::sync::Arc;
use std::time::Duration;

use serde_json::{json, Value};

use crate::choice::{TokenChoice, WeighedAnswer};

/// Where and how to call. Its `Debug` masks the key and any credentials in the URL.
#[derive(Clone)]
pub struct OpenAiSettings {
    /// Base URL up to the API version, e.g. `https://api.openai.com/v1` or
    /// `http://127.0.0.1:8081/v1`.
    pub base_url: String,
    /// Model name as the endpoint knows it.
    pub model: String,
    /// Bearer token, if the endpoint wants one.
    pub api_key: Option<String>,
    /// Limit for one attempt.
    pub timeout: Duration,
    /// Attempts after the first.
    pub max_retries: u32,
    /// Wait before the first retry; doubles each time (at most 30 s, or what `Retry-After` says).
    pub retry_base: Duration,
    /// Longest answer asked for, in tokens (`max_tokens`): always sent, since an endpoint left
    /// to its own default may write until its context is full.
    pub max_tokens: u32,
}

impl std::fmt::Debug for OpenAiSettings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OpenAiSettings")
            .field("base_url", &masked_url(&self.base_url))
            .field("model", &self.model)
            .field("api_key", &self.api_key.as_ref().map(|_| MASK))
            .field("timeout", &self.timeout)
            .field("max_retries", &self.max_retries)
            .field("retry_base", &self.retry_base)
            .field("max_tokens", &self.max_tokens)
            .finish()
    }
}

/// What a secret is shown as.
const MASK: &str = "********";

/// An endpoint URL as it may be shown or logged: user name, password and every query value
/// masked (endpoints take keys in any of them); a URL that does not parse is not shown at all.
pub fn masked_url(raw: &str) -> String {
    let Ok(mut url) = reqwest::Url::parse(raw) else {
        return if raw.is_empty() { String::new() } else { "(unparseable URL hidden)".into() };
    };
    if !url.username().is_empty() {
        let _ = url.set_username(MASK);
    }
    if url.password().is_some() {
        let _ = url.set_password(Some(MASK));
    }
    if url.query().is_some() {
        let names: Vec<String> = url.query_pairs().map(|(name, _)| name.into_owned()).collect();
        url.query_pairs_mut().clear().extend_pairs(names.iter().map(|name| (name.as_str(), MASK)));
    }
    url.into()
}

/// Why a completion failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum LlmError {
    /// No answer within the timeout, after every retry.
    #[error("the LLM endpoint did not answer within {0:?} ({1} attempts)")]
    Timeout(Duration, u32),
    /// An HTTP error status (after retries, for 429 and 5xx).
    #[error("the LLM endpoint answered {status}: {body}")]
    Status { status: u16, body: String },
    /// The endpoint could not be reached.
    #[error("cannot reach the LLM endpoint: {0}")]
    Transport(String),
    /// An answer that is not the JSON asked for.
    #[error("the LLM answered something other than the JSON asked for: {0}")]
    InvalidOutput(String),
}

/// The client.
#[derive(Debug, Clone)]
pub struct OpenAiClient {
    http: reqwest::Client,
    settings: OpenAiSettings,
    /// Masks personal data in what is sent; `None` sends text as it is.
    mask: Option<Arc<callscope_pii::Detector>>,
}

/// What one attempt came to.
enum Attempt {
    Done(WeighedAnswer),
    Retry(LlmError, Option<Duration>),
    Fail(LlmError),
}

impl OpenAiClient {
    /// A client; with `mask`, every message is masked (`[PHONE_NUMBER]`, …) before it leaves.
    ///
    /// # Errors
    /// A TLS set-up failure.
    pub fn new(settings: OpenAiSettings, mask: Option<Arc<callscope_pii::Detector>>) -> Result<Self, LlmError> {
        let http = reqwest::Client::builder()
            .timeout(settings.timeout)
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .map_err(|e| LlmError::Transport(e.to_string()))?;
        Ok(Self { http, settings, mask })
    }

    /// The model's name, for `modelUsed`.
    pub fn model(&self) -> &str {
        &self.settings.model
    }

    fn outgoing(&self, text: &str) -> String {
        match &self.mask {
            // The language only tips ambiguous numbers; Polish reads both.
            Some(detector) => callscope_pii::mask(text, &detector.detect(text, callscope_pii::Lang::Pl)),
            None => text.to_owned(),
        }
    }

    /// Asks for a JSON object matching `schema` (named `name`), with `system` instructions and
    /// the `user` content.
    ///
    /// # Errors
    /// See [`LlmError`]; only 429, 5xx, timeouts and transport errors are retried.
    pub async fn chat_json(&self, system: &str, user: &str, name: &str, schema: &Value) -> Result<Value, LlmError> {
        Ok(self.ask(system, user, name, schema, false).await?.value)
    }

    /// [`OpenAiClient::chat_json`], asking also for each token's log-probability and its 20
    /// likeliest alternatives, so that how sure the model was of each closed choice can be read
    /// ([`WeighedAnswer::choice`]); an endpoint that gives none still answers.
    ///
    /// # Errors
    /// See [`LlmError`].
    pub async fn chat_json_weighed(&self, system: &str, user: &str, name: &str, schema: &Value) -> Result<WeighedAnswer, LlmError> {
        self.ask(system, user, name, schema, true).await
    }

    async fn ask(&self, system: &str, user: &str, name: &str, schema: &Value, logprobs: bool) -> Result<WeighedAnswer, LlmError> {
        let mut body = json!({
            "model": self.settings.model,
            "temperature": 0,
            "messages": [
                {"role": "system", "content": self.outgoing(system)},
                {"role": "user", "content": self.outgoing(user)},
            ],
            "response_format": {
                "type": "json_schema",
                "json_schema": {"name": name, "strict": true, "schema": schema},
            },
        });
        body["max_tokens"] = json!(self.settings.max_tokens);
        if logprobs {
            body["logprobs"] = json!(true);
            body["top_logprobs"] = json!(TOP_LOGPROBS);
        }
        let url = format!("{}/chat/completions", self.settings.base_url.trim_end_matches('/'));
        let attempts = self.settings.max_retries + 1;
        let mut delay = self.settings.retry_base;
        for attempt in 1..=attempts {
            match self.attempt(&url, &body, attempts).await {
                Attempt::Done(answer) => return Ok(answer),
                Attempt::Fail(error) => return Err(error),
                Attempt::Retry(error, _) if attempt == attempts => return Err(error),
                Attempt::Retry(error, after) => {
                    let wait = after.unwrap_or(delay).min(Duration::from_secs(30));
                    tracing::warn!(%error, attempt, wait_s = wait.as_secs_f64(), "LLM call failed, retrying");
                    tokio::time::sleep(wait).await;
                    delay = delay.saturating_mul(2);
                }
            }
        }
        unreachable!("the loop returns on its last attempt")
    }

    async fn attempt(&self, url: &str, body: &Value, attempts: u32) -> Attempt {
        let mut request = self.http.post(url).json(body);
        if let Some(key) = &self.settings.api_key {
            request = request.bearer_auth(key);
        }
        let response = match request.send().await {
            Ok(r) => r,
            Err(e) if e.is_timeout() => return Attempt::Retry(LlmError::Timeout(self.settings.timeout, attempts), None),
            Err(e) => return Attempt::Retry(LlmError::Transport(e.without_url().to_string()), None),
        };
        let status = response.status();
        let retry_after = response
            .headers()
            .get(reqwest::header::RETRY_AFTER)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.trim().parse::<u64>().ok())
            .map(Duration::from_secs);
        let text = match response.text().await {
            Ok(t) => t,
            Err(e) if e.is_timeout() => return Attempt::Retry(LlmError::Timeout(self.settings.timeout, attempts), None),
            Err(e) => return Attempt::Retry(LlmError::Transport(e.without_url().to_string()), None),
        };
        if !status.is_success() {
            let error = LlmError::Status { status: status.as_u16(), body: text.chars().take(300).collect() };
            return if status.as_u16() == 429 || status.is_server_error() { Attempt::Retry(error, retry_after) } else { Attempt::Fail(error) };
        }
        match parse_answer(&text) {
            Ok(answer) => Attempt::Done(answer),
            Err(e) => Attempt::Fail(e),
        }
    }
}

/// Alternatives asked for with each token (OpenAI's most).
const TOP_LOGPROBS: u32 = 20;

/// The JSON object in a chat-completions answer's first message, with the message's tokens when
/// the endpoint gave their log-probabilities.
fn parse_answer(text: &str) -> Result<WeighedAnswer, LlmError> {
    let envelope: Value = serde_json::from_str(text).map_err(|e| LlmError::InvalidOutput(format!("not a chat completion: {e}")))?;
    let choice = &envelope["choices"][0];
    let written = choice["message"]["content"].as_str().ok_or_else(|| LlmError::InvalidOutput("no message content".into()))?;
    // Some servers wrap JSON in a Markdown fence even in JSON mode.
    let content = written.trim().trim_start_matches("```json").trim_start_matches("```").trim_end_matches("```").trim();
    let value: Value =
        serde_json::from_str(content).map_err(|e| LlmError::InvalidOutput(format!("{e}: {}", content.chars().take(200).collect::<String>())))?;
    if !value.is_object() {
        return Err(LlmError::InvalidOutput(format!("expected an object, got {value}")));
    }
    let pair = |t: &Value| Some((t["token"].as_str()?.to_owned(), t["logprob"].as_f64()?));
    let tokens = choice["logprobs"]["content"]
        .as_array()
        .map(|tokens| {
            tokens
                .iter()
                .filter_map(|t| {
                    let (text, logprob) = pair(t)?;
                    let top = t["top_logprobs"].as_array().map(|top| top.iter().filter_map(pair).collect()).unwrap_or_default();
                    Some(TokenChoice { text, logprob, top })
                })
                .collect()
        })
        .unwrap_or_default();
    Ok(WeighedAnswer::new(value, written.to_owned(), tokens))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settings_and_urls_never_show_a_secret() {
        let settings = OpenAiSettings {
            base_url: "https://team:hunter2@llm.example.com/v1?api-key=sk-secret-query".into(),
            model: "m".into(),
            api_key: Some("sk-secret-key".into()),
            timeout: Duration::from_secs(1),
            max_retries: 0,
            retry_base: Duration::ZERO,
            max_tokens: 512,
        };
        let shown = format!("{settings:?}");
        for secret in ["hunter2", "team", "sk-secret-query", "sk-secret-key"] {
            assert!(!shown.contains(secret), "{secret} in {shown}");
        }
        assert!(shown.contains("llm.example.com/v1"), "{shown}");
        assert_eq!(masked_url("http://127.0.0.1:8081/v1"), "http://127.0.0.1:8081/v1", "nothing to mask");
        assert_eq!(masked_url("not a url with a key"), "(unparseable URL hidden)");
    }
}
