//! The OpenAI-compatible client against a chat-completions server on a loopback port that
//! answers from a script: the request it sends, structured output, retries on 429 and 500,
//! timeouts, answers that are not the JSON asked for, and masking of personal data.

use std::sync::Arc;
use std::time::Duration;

use callscope_analysis::{LlmError, OpenAiClient, OpenAiSettings};
use serde_json::{json, Value};

mod support;
use support::{ok, server, Reply};

fn client(base_url: &str, timeout: Duration, mask: bool) -> OpenAiClient {
    let settings = OpenAiSettings {
        base_url: base_url.into(),
        model: "qwen2.5-1.5b-instruct".into(),
        api_key: Some("sk-test".into()),
        timeout,
        max_retries: 2,
        retry_base: Duration::from_millis(20),
        max_tokens: 512,
    };
    let detector = mask.then(|| {
        let gazetteer = callscope_pii::Gazetteer::from_lists("jan\nanna", "kowalski\nnowak", "the");
        Arc::new(callscope_pii::Detector::new(Arc::new(gazetteer)))
    });
    OpenAiClient::new(settings, detector).unwrap()
}

fn schema() -> Value {
    json!({"type": "object", "properties": {"title": {"type": "string"}}, "required": ["title"], "additionalProperties": false})
}

#[tokio::test]
async fn a_structured_answer_comes_back_as_json_and_the_request_asks_for_the_schema() {
    let (url, script) = server(vec![ok(r#"{"title": "Refund for a broken kettle"}"#)]).await;
    let answer =
        client(&url, Duration::from_secs(5), false).chat_json("Summarise.", "Customer: the kettle broke.", "call_summary", &schema()).await.unwrap();
    assert_eq!(answer, json!({"title": "Refund for a broken kettle"}));
    let seen = script.seen.lock().unwrap();
    let (headers, body) = &seen[0];
    assert_eq!(headers["authorization"], "Bearer sk-test");
    assert_eq!(body["model"], "qwen2.5-1.5b-instruct");
    assert_eq!(body["response_format"]["type"], "json_schema");
    assert_eq!(body["response_format"]["json_schema"]["name"], "call_summary");
    assert_eq!(body["response_format"]["json_schema"]["schema"], schema());
    assert_eq!(body["messages"][1]["content"], "Customer: the kettle broke.");
}

#[tokio::test]
async fn a_weighed_answer_asks_for_log_probabilities_and_does_without_them() {
    // An endpoint that ignores `logprobs` (many OpenAI-compatible servers do): the answer comes
    // back, and no probability is read from it, so the caller keeps what the model wrote.
    let (url, script) = server(vec![ok(r#"{"title": "yes"}"#)]).await;
    let answer = client(&url, Duration::from_secs(5), false).chat_json_weighed("Say yes.", "Hi.", "reply", &schema()).await.unwrap();
    assert_eq!(answer.value, json!({"title": "yes"}));
    assert_eq!(answer.choice("title", &["yes", "no"]), None);
    let asked = script.seen.lock().unwrap()[0].1.clone();
    assert_eq!((&asked["logprobs"], &asked["top_logprobs"]), (&json!(true), &json!(20)));
    // A plain answer does not ask for them.
    let (url, script) = server(vec![ok(r#"{"title": "yes"}"#)]).await;
    client(&url, Duration::from_secs(5), false).chat_json("Say yes.", "Hi.", "reply", &schema()).await.unwrap();
    assert!(script.seen.lock().unwrap()[0].1.get("logprobs").is_none());
}

#[tokio::test]
async fn busy_and_failing_endpoints_are_retried_with_backoff() {
    let busy = Reply { status: 429, retry_after: Some("0"), delay: Duration::ZERO, content: String::new() };
    let broken = Reply { status: 500, retry_after: None, delay: Duration::ZERO, content: String::new() };
    let (url, script) = server(vec![busy, broken, ok(r#"{"title": "t"}"#)]).await;
    let answer = client(&url, Duration::from_secs(5), false).chat_json("s", "u", "x", &schema()).await.unwrap();
    assert_eq!(answer["title"], "t");
    assert_eq!(script.seen.lock().unwrap().len(), 3, "429, then 500, then the answer");

    let (url, script) = server(vec![Reply { status: 503, retry_after: None, delay: Duration::ZERO, content: String::new() }; 5]).await;
    let error = client(&url, Duration::from_secs(5), false).chat_json("s", "u", "x", &schema()).await.unwrap_err();
    assert!(matches!(error, LlmError::Status { status: 503, .. }), "{error}");
    assert_eq!(script.seen.lock().unwrap().len(), 3, "the first attempt and two retries");

    let (url, script) = server(vec![Reply { status: 401, retry_after: None, delay: Duration::ZERO, content: String::new() }]).await;
    let error = client(&url, Duration::from_secs(5), false).chat_json("s", "u", "x", &schema()).await.unwrap_err();
    assert!(matches!(error, LlmError::Status { status: 401, .. }), "{error}");
    assert_eq!(script.seen.lock().unwrap().len(), 1, "a refused key is not retried");
}

#[tokio::test]
async fn a_slow_endpoint_times_out_on_every_attempt() {
    let slow = Reply { status: 200, retry_after: None, delay: Duration::from_secs(3), content: "{}".into() };
    let (url, script) = server(vec![slow; 3]).await;
    let started = std::time::Instant::now();
    let error = client(&url, Duration::from_millis(300), false).chat_json("s", "u", "x", &schema()).await.unwrap_err();
    assert!(matches!(error, LlmError::Timeout(_, 3)), "{error}");
    assert!(started.elapsed() < Duration::from_secs(3), "each attempt stops at the timeout: {:?}", started.elapsed());
    assert_eq!(script.seen.lock().unwrap().len(), 3);
}

#[tokio::test]
async fn answers_that_are_not_the_json_asked_for_are_refused_at_once() {
    for content in ["Sure! Here is the summary: the kettle broke.", "[1, 2]", "{\"title\": "] {
        let (url, script) = server(vec![ok(content)]).await;
        let error = client(&url, Duration::from_secs(5), false).chat_json("s", "u", "x", &schema()).await.unwrap_err();
        assert!(matches!(error, LlmError::InvalidOutput(_)), "{content:?}: {error}");
        assert_eq!(script.seen.lock().unwrap().len(), 1, "invalid output goes to the fallback, not to a retry");
    }
    let (url, _) = server(vec![ok("```json\n{\"title\": \"fenced\"}\n```")]).await;
    let answer = client(&url, Duration::from_secs(5), false).chat_json("s", "u", "x", &schema()).await.unwrap();
    assert_eq!(answer["title"], "fenced", "a Markdown fence around the JSON is tolerated");
}

#[tokio::test]
async fn personal_data_is_masked_before_it_leaves_unless_switched_off() {
    let transcript = "Customer: My name is Jan Kowalski, my number is 600 123 456 and my PESEL is 44051401359.";
    let (url, script) = server(vec![ok("{\"title\": \"t\"}"), ok("{\"title\": \"t\"}")]).await;
    client(&url, Duration::from_secs(5), true).chat_json("s", transcript, "x", &schema()).await.unwrap();
    client(&url, Duration::from_secs(5), false).chat_json("s", transcript, "x", &schema()).await.unwrap();
    let seen = script.seen.lock().unwrap();
    let masked = seen[0].1["messages"][1]["content"].as_str().unwrap();
    assert_eq!(masked, "Customer: My name is [PERSON_NAME], my number is [PHONE_NUMBER] and my PESEL is [PESEL].");
    assert_eq!(seen[1].1["messages"][1]["content"], transcript, "with masking off the text goes as it is");
}
