//! A chat-completions server on a loopback port that answers from a script and records what it
//! was sent, for the client and engine tests.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use axum::Json;
use serde_json::{json, Value};

/// One scripted answer: status, `Retry-After`, delay, and the message content.
#[derive(Clone)]
pub struct Reply {
    pub status: u16,
    pub retry_after: Option<&'static str>,
    pub delay: Duration,
    pub content: String,
}

pub fn ok(content: &str) -> Reply {
    Reply { status: 200, retry_after: None, delay: Duration::ZERO, content: content.into() }
}

#[derive(Default)]
pub struct Script {
    pub replies: Mutex<VecDeque<Reply>>,
    pub seen: Mutex<Vec<(HeaderMap, Value)>>,
}

async fn completions(State(script): State<Arc<Script>>, headers: HeaderMap, Json(body): Json<Value>) -> Response {
    script.seen.lock().unwrap().push((headers, body));
    let reply = script.replies.lock().unwrap().pop_front().unwrap_or_else(|| ok("{}"));
    tokio::time::sleep(reply.delay).await;
    let status = StatusCode::from_u16(reply.status).unwrap();
    if reply.status != 200 {
        let mut response = (status, "try later").into_response();
        if let Some(after) = reply.retry_after {
            response.headers_mut().insert("retry-after", after.parse().unwrap());
        }
        return response;
    }
    Json(json!({
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": reply.content}, "finish_reason": "stop"}],
    }))
    .into_response()
}

pub async fn server(replies: Vec<Reply>) -> (String, Arc<Script>) {
    let script = Arc::new(Script { replies: Mutex::new(replies.into()), ..Script::default() });
    let app = axum::Router::new().route("/v1/chat/completions", post(completions)).with_state(script.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    (format!("http://{address}/v1"), script)
}
