//! The OpenAI-compatible face of the engine: `POST /v1/chat/completions` (with
//! `response_format` `json_schema` or `json_object` turned into a grammar, so the answer always
//! parses, and `logprobs` / `top_logprobs` as OpenAI has them), `GET /v1/models` and
//! `GET /health`. A full queue answers 503 with `Retry-After`.

use std::time::{SystemTime, UNIX_EPOCH};

use axum::extract::rejection::JsonRejection;
use axum::extract::State;
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde::Deserialize;
use serde_json::{json, Value};

use crate::engine::{EngineHandle, Finish, GenerateError, Generation, Message, TokenLogprob};

/// The routes.
pub fn router(engine: EngineHandle) -> Router {
    Router::new().route("/health", get(health)).route("/v1/models", get(models)).route("/v1/chat/completions", post(chat)).with_state(engine)
}

async fn health(State(engine): State<EngineHandle>) -> Json<Value> {
    Json(json!({"status": "ok", "model": engine.model, "context": engine.context, "busy": engine.busy()}))
}

async fn models(State(engine): State<EngineHandle>) -> Json<Value> {
    Json(json!({"object": "list", "data": [{"id": engine.model, "object": "model", "owned_by": "callscope"}]}))
}

/// An OpenAI-style error.
#[derive(Debug)]
struct ApiError {
    status: StatusCode,
    kind: &'static str,
    message: String,
    retry_after: Option<u64>,
}

impl ApiError {
    fn invalid(message: impl Into<String>) -> Self {
        Self { status: StatusCode::BAD_REQUEST, kind: "invalid_request_error", message: message.into(), retry_after: None }
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let mut response = (self.status, Json(json!({"error": {"message": self.message, "type": self.kind}}))).into_response();
        if let Some(seconds) = self.retry_after {
            response.headers_mut().insert(header::RETRY_AFTER, HeaderValue::from(seconds));
        }
        response
    }
}

#[derive(Debug, Deserialize)]
struct ChatRequest {
    messages: Vec<ChatMessage>,
    #[serde(default)]
    temperature: Option<f32>,
    #[serde(default)]
    max_tokens: Option<u32>,
    #[serde(default)]
    max_completion_tokens: Option<u32>,
    #[serde(default)]
    seed: Option<u32>,
    #[serde(default)]
    stop: Option<Stop>,
    #[serde(default)]
    stream: bool,
    #[serde(default)]
    n: Option<u32>,
    #[serde(default)]
    response_format: Option<Value>,
    #[serde(default)]
    logprobs: bool,
    #[serde(default)]
    top_logprobs: Option<u32>,
}

#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum Stop {
    One(String),
    Many(Vec<String>),
}

#[derive(Debug, Deserialize)]
struct ChatMessage {
    role: String,
    #[serde(default)]
    content: Option<Content>,
}

#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum Content {
    Text(String),
    Parts(Vec<Value>),
}

impl Content {
    fn text(self) -> Result<String, ApiError> {
        match self {
            Content::Text(t) => Ok(t),
            Content::Parts(parts) => parts
                .iter()
                .map(|p| match (p["type"].as_str(), p["text"].as_str()) {
                    (Some("text"), Some(t)) => Ok(t.to_owned()),
                    _ => Err(ApiError::invalid("only text content parts are supported")),
                })
                .collect::<Result<Vec<_>, _>>()
                .map(|v| v.join("\n")),
        }
    }
}

/// The grammar a `response_format` asks for.
fn grammar_for(format: Option<&Value>) -> Result<Option<String>, ApiError> {
    let Some(format) = format else { return Ok(None) };
    match format["type"].as_str() {
        None | Some("text") => Ok(None),
        Some("json_object") => to_grammar(&json!({"type": "object"})).map(Some),
        Some("json_schema") => {
            let schema = format["json_schema"].get("schema").ok_or_else(|| ApiError::invalid("response_format.json_schema.schema is missing"))?;
            to_grammar(schema).map(Some)
        }
        Some(other) => Err(ApiError::invalid(format!("response_format type {other:?} is not supported (text, json_object, json_schema)"))),
    }
}

fn to_grammar(schema: &Value) -> Result<String, ApiError> {
    let grammar = llama_cpp_2::json_schema_to_grammar(&schema.to_string())
        .map_err(|e| ApiError::invalid(format!("the JSON schema cannot be turned into a grammar: {e}")))?;
    Ok(compact(&grammar))
}

/// The converter lets the model put up to two newlines and twenty tabs between tokens of JSON;
/// small models spend many tokens (and sometimes loop) on them. One optional space is enough.
fn compact(grammar: &str) -> String {
    grammar.lines().map(|line| if line.starts_with("space ::=") { "space ::= | \" \"" } else { line }).collect::<Vec<_>>().join("\n")
}

async fn chat(State(engine): State<EngineHandle>, body: Result<Json<ChatRequest>, JsonRejection>) -> Result<Json<Value>, ApiError> {
    let Json(request) = body.map_err(|e| ApiError::invalid(e.body_text()))?;
    if request.stream {
        return Err(ApiError::invalid("stream is not supported"));
    }
    if request.n.is_some_and(|n| n != 1) {
        return Err(ApiError::invalid("n must be 1"));
    }
    if request.messages.is_empty() {
        return Err(ApiError::invalid("messages is empty"));
    }
    let mut messages = Vec::with_capacity(request.messages.len());
    for m in request.messages {
        if !matches!(m.role.as_str(), "system" | "developer" | "user" | "assistant") {
            return Err(ApiError::invalid(format!("role {:?} is not supported", m.role)));
        }
        let role = if m.role == "developer" { "system".to_owned() } else { m.role };
        messages.push(Message { role, content: m.content.map(Content::text).transpose()?.unwrap_or_default() });
    }
    let temperature = request.temperature.unwrap_or(0.0);
    if !(0.0..=2.0).contains(&temperature) {
        return Err(ApiError::invalid("temperature must be between 0 and 2"));
    }
    // OpenAI's bounds: up to 20 alternatives, and only with `logprobs`.
    let logprobs = match (request.logprobs, request.top_logprobs) {
        (_, Some(n)) if n > MAX_TOP_LOGPROBS => return Err(ApiError::invalid(format!("top_logprobs must be between 0 and {MAX_TOP_LOGPROBS}"))),
        (false, Some(_)) => return Err(ApiError::invalid("top_logprobs needs logprobs to be true")),
        (true, top) => Some(top.unwrap_or(0) as usize),
        (false, None) => None,
    };
    let generation = Generation {
        messages,
        grammar: grammar_for(request.response_format.as_ref())?,
        max_tokens: request.max_completion_tokens.or(request.max_tokens),
        temperature,
        seed: request.seed.unwrap_or(0),
        stop: match request.stop {
            None => Vec::new(),
            Some(Stop::One(s)) => vec![s],
            Some(Stop::Many(v)) => v,
        },
        logprobs,
    };
    let rx = engine.submit(generation).map_err(|_| ApiError {
        status: StatusCode::SERVICE_UNAVAILABLE,
        kind: "server_busy",
        message: "the model is busy and its queue is full; retry later".into(),
        retry_after: Some(2),
    })?;
    let completion = match rx.await {
        Ok(Ok(c)) => c,
        Ok(Err(e @ GenerateError::TooLong { .. })) => {
            return Err(ApiError { status: StatusCode::BAD_REQUEST, kind: "context_length_exceeded", message: e.to_string(), retry_after: None })
        }
        Ok(Err(e @ GenerateError::Grammar(_))) => return Err(ApiError::invalid(e.to_string())),
        Ok(Err(e)) => {
            return Err(ApiError { status: StatusCode::INTERNAL_SERVER_ERROR, kind: "server_error", message: e.to_string(), retry_after: None })
        }
        Err(_) => {
            return Err(ApiError {
                status: StatusCode::SERVICE_UNAVAILABLE,
                kind: "server_error",
                message: "the engine has stopped".into(),
                retry_after: None,
            })
        }
    };
    let created = SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or(0);
    Ok(Json(json!({
        "id": format!("chatcmpl-{created}-{}", completion.prompt_tokens),
        "object": "chat.completion",
        "created": created,
        "model": engine.model,
        "choices": [{
            "index": 0,
            "message": {"role": "assistant", "content": completion.text},
            "finish_reason": match completion.finish { Finish::Stop => "stop", Finish::Length => "length" },
            "logprobs": completion.logprobs.as_deref().map(|tokens| json!({"content": tokens.iter().map(token_json).collect::<Vec<_>>()})),
        }],
        "usage": {
            "prompt_tokens": completion.prompt_tokens,
            "completion_tokens": completion.completion_tokens,
            "total_tokens": completion.prompt_tokens + completion.completion_tokens,
            // OpenAI's field for prompt tokens served from a cache.
            "prompt_tokens_details": {"cached_tokens": completion.cached_tokens},
        },
    })))
}

/// Most alternatives a token's log-probability comes with (OpenAI's limit).
const MAX_TOP_LOGPROBS: u32 = 20;

/// A token's log-probability as OpenAI writes it: the text, its bytes, and the alternatives.
fn token_json(token: &TokenLogprob) -> Value {
    let one = |bytes: &[u8], logprob: f32| json!({"token": String::from_utf8_lossy(bytes), "logprob": logprob, "bytes": bytes});
    let mut out = one(&token.bytes, token.logprob);
    out["top_logprobs"] = token.top.iter().map(|(bytes, logprob)| one(bytes, *logprob)).collect();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schemas_become_grammars_with_compact_spacing() {
        let grammar = to_grammar(&json!({"type": "object", "properties": {"a": {"type": "integer"}}, "required": ["a"]})).unwrap();
        assert!(grammar.contains("root ::="), "{grammar}");
        assert!(grammar.lines().any(|l| l == "space ::= | \" \""), "{grammar}");
        assert!(!grammar.contains("\\n"), "no newlines allowed between tokens: {grammar}");
        assert!(grammar_for(Some(&json!({"type": "text"}))).unwrap().is_none());
        assert!(grammar_for(Some(&json!({"type": "json_schema", "json_schema": {}}))).is_err());
        assert!(grammar_for(Some(&json!({"type": "json_object"}))).unwrap().is_some());
    }
}
