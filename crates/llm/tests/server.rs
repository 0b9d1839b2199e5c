//! `callscope-llm` as a real process with the smallest real model (SmolLM2-135M, from
//! `callscope models install --profile test`): the OpenAI protocol, schema-constrained output,
//! errors, a full queue answered 503 with `Retry-After`, and the analysis crate's client and LLM
//! engine against it (retries, timeouts, fallback on unusable output).

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use callscope_analysis::engine::{AnalysisInput, Analyzer, RulesEngine};
use callscope_analysis::llm_engine::LlmEngine;
use callscope_analysis::{LlmError, OpenAiClient, OpenAiSettings};
use serde_json::{json, Value};

fn model() -> PathBuf {
    std::env::var_os("CALLSCOPE_TEST_MODELS_DIR").map_or_else(callscope_models::default_dir, PathBuf::from).join("smollm2-135m/model.gguf")
}

/// A running sidecar; killed when dropped.
struct Sidecar {
    child: Child,
    url: String,
}

impl Drop for Sidecar {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn start(extra: &[&str]) -> Sidecar {
    let mut child = Command::new(env!("CARGO_BIN_EXE_callscope-llm"))
        .arg("--model")
        .arg(model())
        .args(["--listen", "127.0.0.1:0", "--threads", "1", "--context", "2048", "--watch-stdin"])
        .args(extra)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("callscope-llm starts");
    let stdout = child.stdout.take().unwrap();
    let line = BufReader::new(stdout).lines().next().expect("a line").expect("readable");
    let url = line.strip_prefix("listening on ").unwrap_or_else(|| panic!("announces its address: {line}")).to_owned();
    Sidecar { child, url }
}

fn post(url: &str, body: &Value) -> (u16, Option<String>, Value) {
    let response = reqwest::blocking::Client::new().post(url).json(body).timeout(Duration::from_secs(300)).send().unwrap();
    let status = response.status().as_u16();
    let retry = response.headers().get("retry-after").map(|v| v.to_str().unwrap().to_owned());
    let text = response.text().unwrap();
    (status, retry, serde_json::from_str(&text).unwrap_or(Value::String(text)))
}

fn get(url: &str) -> Value {
    reqwest::blocking::get(url).unwrap().json().unwrap()
}

fn chat(sidecar: &Sidecar, body: &Value) -> (u16, Option<String>, Value) {
    post(&format!("{}/v1/chat/completions", sidecar.url), body)
}

fn settings(sidecar: &Sidecar) -> OpenAiSettings {
    OpenAiSettings {
        base_url: format!("{}/v1", sidecar.url),
        model: "smollm2-135m".into(),
        api_key: None,
        timeout: Duration::from_secs(120),
        max_retries: 0,
        retry_base: Duration::from_millis(200),
        max_tokens: 64,
    }
}

fn yes_no_schema() -> Value {
    json!({
        "type": "object",
        "additionalProperties": false,
        "required": ["answer", "colour"],
        "properties": {
            "answer": {"enum": ["yes", "no"]},
            "colour": {"enum": ["red", "green", "blue"]},
        },
    })
}

#[test]
fn the_shared_start_of_prompts_is_computed_once() {
    let sidecar = start(&[]);
    let instructions = "You read a customer call and answer with JSON. ".repeat(8);
    let ask = |question: &str| {
        let (status, _, body) = chat(
            &sidecar,
            &json!({
                "temperature": 0,
                "max_tokens": 24,
                "messages": [{"role": "system", "content": instructions}, {"role": "user", "content": question}],
                "response_format": {"type": "json_schema", "json_schema": {"name": "reply", "strict": true, "schema": yes_no_schema()}},
            }),
        );
        assert_eq!(status, 200, "{body}");
        let content: Value = serde_json::from_str(body["choices"][0]["message"]["content"].as_str().unwrap()).expect("JSON");
        assert!(["yes", "no"].contains(&content["answer"].as_str().unwrap()), "{content}");
        (body["usage"]["prompt_tokens"].as_u64().unwrap(), body["usage"]["prompt_tokens_details"]["cached_tokens"].as_u64().unwrap())
    };
    let (first, cached) = ask("Is the sky blue?");
    assert_eq!(cached, 0, "nothing to reuse on the first request");
    let (second, cached) = ask("Is grass green? Which colour is it?");
    assert!(cached >= 80 && cached < second, "the instructions ({cached} of {second} tokens, first prompt {first}) are reused, the question is not");
    let (again, cached) = ask("Is grass green? Which colour is it?");
    assert_eq!(cached, again - 1, "the same prompt again: all but its last token reused");
    // A prompt that shares only the template's first tokens reuses only those.
    let (status, _, body) = chat(&sidecar, &json!({"messages": [{"role": "user", "content": "Hello"}], "max_tokens": 3}));
    assert_eq!(status, 200, "{body}");
    assert!(body["usage"]["prompt_tokens_details"]["cached_tokens"].as_u64().unwrap() < 10, "{body}");
}

#[test]
fn answers_chat_completions_with_json_that_matches_the_schema() {
    let sidecar = start(&[]);
    let models = get(&format!("{}/v1/models", sidecar.url));
    assert_eq!(models["data"][0]["id"], "smollm2-135m", "{models}");

    let (status, _, body) = chat(
        &sidecar,
        &json!({
            "model": "smollm2-135m",
            "temperature": 0,
            "messages": [
                {"role": "system", "content": "Answer with JSON."},
                {"role": "user", "content": "Is the sky blue? Which colour is grass?"},
            ],
            "response_format": {"type": "json_schema", "json_schema": {"name": "reply", "strict": true, "schema": yes_no_schema()}},
        }),
    );
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["object"], "chat.completion");
    assert_eq!(body["choices"][0]["finish_reason"], "stop", "{body}");
    let content: Value = serde_json::from_str(body["choices"][0]["message"]["content"].as_str().unwrap()).expect("the answer is JSON");
    assert!(["yes", "no"].contains(&content["answer"].as_str().unwrap()), "{content}");
    assert!(["red", "green", "blue"].contains(&content["colour"].as_str().unwrap()), "{content}");
    assert_eq!(content.as_object().unwrap().len(), 2, "nothing but the schema's fields: {content}");
    assert!(body["usage"]["prompt_tokens"].as_u64().unwrap() > 10);
    assert_eq!(
        body["usage"]["total_tokens"].as_u64(),
        Some(body["usage"]["prompt_tokens"].as_u64().unwrap() + body["usage"]["completion_tokens"].as_u64().unwrap())
    );

    // Without a format the answer is free text, cut at max_tokens.
    let (status, _, body) = chat(&sidecar, &json!({"messages": [{"role": "user", "content": "Tell me a long story about a cat."}], "max_tokens": 5}));
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["choices"][0]["finish_reason"], "length");
    assert_eq!(body["usage"]["completion_tokens"], 5);

    // json_object: any object.
    let (status, _, body) = chat(
        &sidecar,
        &json!({"messages": [{"role": "user", "content": "Give a JSON object with your name."}], "max_tokens": 200, "response_format": {"type": "json_object"}}),
    );
    assert_eq!(status, 200, "{body}");
    if body["choices"][0]["finish_reason"] == "stop" {
        let content: Value = serde_json::from_str(body["choices"][0]["message"]["content"].as_str().unwrap()).expect("JSON");
        assert!(content.is_object());
    }
}

/// A token's text and log-probability.
type Scored = (String, f64);

/// Each token of `body`'s answer: (text, log-probability, the alternatives').
fn tokens_of(body: &Value) -> Vec<(String, f64, Vec<Scored>)> {
    let pair = |t: &Value| (t["token"].as_str().unwrap().to_owned(), t["logprob"].as_f64().unwrap());
    body["choices"][0]["logprobs"]["content"]
        .as_array()
        .unwrap_or_else(|| panic!("logprobs.content: {body}"))
        .iter()
        .map(|t| {
            let (token, logprob) = pair(t);
            (token, logprob, t["top_logprobs"].as_array().unwrap().iter().map(pair).collect())
        })
        .collect()
}

#[test]
fn log_probabilities_come_with_each_token_as_openai_gives_them() {
    let sidecar = start(&[]);
    // Greedy free text: each token is the likeliest at its place.
    let (status, _, body) = chat(
        &sidecar,
        &json!({"messages": [{"role": "user", "content": "Name a colour."}], "max_tokens": 6, "temperature": 0, "logprobs": true, "top_logprobs": 5}),
    );
    assert_eq!(status, 200, "{body}");
    let tokens = tokens_of(&body);
    assert_eq!(tokens.len(), 6, "{body}");
    let text: String = tokens.iter().map(|t| t.0.as_str()).collect();
    assert_eq!(text, body["choices"][0]["message"]["content"].as_str().unwrap());
    for (token, logprob, top) in &tokens {
        assert_eq!(top.len(), 5);
        assert_eq!((&top[0].0, top[0].1), (token, *logprob), "greedy takes the likeliest: {top:?}");
        assert!(top.windows(2).all(|w| w[0].1 >= w[1].1), "most likely first: {top:?}");
        assert!(*logprob <= 0.0 && top.iter().map(|t| t.1.exp()).sum::<f64>() <= 1.0 + 1e-4, "{top:?}");
    }
    // Under a schema the answer's tokens still add up to it, and a closed choice's place holds
    // its options among the alternatives.
    let (status, _, body) = chat(
        &sidecar,
        &json!({
            "temperature": 0,
            "logprobs": true,
            "top_logprobs": 20,
            "messages": [{"role": "system", "content": "Answer with JSON."}, {"role": "user", "content": "Is the sky blue? Which colour is grass?"}],
            "response_format": {"type": "json_schema", "json_schema": {"name": "reply", "strict": true, "schema": yes_no_schema()}},
        }),
    );
    assert_eq!(status, 200, "{body}");
    let tokens = tokens_of(&body);
    let content = body["choices"][0]["message"]["content"].as_str().unwrap();
    assert_eq!(tokens.iter().map(|t| t.0.as_str()).collect::<String>(), content);
    assert!(tokens.iter().all(|t| t.1.is_finite() && t.1 <= 0.0), "{tokens:?}");
    // Without `logprobs`, none.
    let (status, _, body) = chat(&sidecar, &json!({"messages": [{"role": "user", "content": "Hi"}], "max_tokens": 2}));
    assert_eq!(status, 200, "{body}");
    assert!(body["choices"][0]["logprobs"].is_null(), "{body}");
}

#[test]
fn bad_requests_get_openai_style_errors() {
    let sidecar = start(&[]);
    let cases = [
        (json!({"messages": [{"role": "user", "content": "hi"}], "stream": true}), "stream"),
        (json!({"messages": []}), "messages is empty"),
        (json!({"messages": [{"role": "tool", "content": "x"}]}), "role"),
        (json!({"messages": "nope"}), "messages"),
        (json!({"messages": [{"role": "user", "content": "hi"}], "response_format": {"type": "xml"}}), "not supported"),
        (json!({"messages": [{"role": "user", "content": "hi"}], "temperature": 7}), "temperature"),
        (json!({"messages": [{"role": "user", "content": "hi"}], "logprobs": true, "top_logprobs": 21}), "top_logprobs"),
        (json!({"messages": [{"role": "user", "content": "hi"}], "top_logprobs": 2}), "needs logprobs"),
    ];
    for (body, says) in cases {
        let (status, _, answer) = chat(&sidecar, &body);
        assert_eq!(status, 400, "{body} → {answer}");
        assert_eq!(answer["error"]["type"], "invalid_request_error", "{answer}");
        assert!(answer["error"]["message"].as_str().unwrap().contains(says), "{body} → {answer}");
    }
    let long = "word ".repeat(3000);
    let (status, _, answer) = chat(&sidecar, &json!({"messages": [{"role": "user", "content": long}]}));
    assert_eq!(status, 400, "{answer}");
    assert_eq!(answer["error"]["type"], "context_length_exceeded", "{answer}");
}

/// Waits until the sidecar is generating.
fn wait_busy(sidecar: &Sidecar) {
    let deadline = Instant::now() + Duration::from_secs(30);
    while get(&format!("{}/health", sidecar.url))["busy"] != true {
        assert!(Instant::now() < deadline, "the long request never started");
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn long_request(url: String) -> std::thread::JoinHandle<u16> {
    std::thread::spawn(move || {
        let body = json!({"messages": [{"role": "user", "content": "Write a long essay about the sea."}], "max_tokens": 250});
        post(&format!("{url}/v1/chat/completions"), &body).0
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_full_queue_answers_503_and_the_client_retries_after_the_wait_it_names() {
    // No waiting room: while one request runs, others are refused.
    let sidecar = start(&["--queue", "0"]);
    let first = long_request(sidecar.url.clone());
    tokio::task::block_in_place(|| wait_busy(&sidecar));

    let raw = reqwest::Client::new()
        .post(format!("{}/v1/chat/completions", sidecar.url))
        .json(&json!({"messages": [{"role": "user", "content": "hi"}]}))
        .send()
        .await
        .unwrap();
    assert_eq!(raw.status().as_u16(), 503);
    assert_eq!(raw.headers()["retry-after"], "2");

    let client = OpenAiClient::new(OpenAiSettings { max_retries: 20, ..settings(&sidecar) }, None).unwrap();
    let started = Instant::now();
    let answer =
        client.chat_json("Answer with JSON.", "Is water wet?", "reply", &yes_no_schema()).await.expect("succeeds once the first request is done");
    assert!(started.elapsed() >= Duration::from_millis(1900), "waited as Retry-After said: {:?}", started.elapsed());
    assert!(["yes", "no"].contains(&answer["answer"].as_str().unwrap()), "{answer}");
    assert_eq!(tokio::task::block_in_place(|| first.join().unwrap()), 200);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_client_gives_up_after_its_timeout_and_the_engine_falls_back_to_rules() {
    let sidecar = start(&[]);
    // Busy for a while, so the next request waits in the queue past its timeout.
    let first = long_request(sidecar.url.clone());
    tokio::task::block_in_place(|| wait_busy(&sidecar));
    let hasty = OpenAiClient::new(OpenAiSettings { timeout: Duration::from_millis(300), max_retries: 1, ..settings(&sidecar) }, None).unwrap();
    let started = Instant::now();
    match hasty.chat_json("Answer with JSON.", "Is water wet?", "reply", &yes_no_schema()).await {
        Err(LlmError::Timeout(limit, attempts)) => assert_eq!((limit, attempts), (Duration::from_millis(300), 2)),
        other => panic!("expected a timeout, got {other:?}"),
    }
    assert!(started.elapsed() < Duration::from_secs(5), "{:?}", started.elapsed());
    assert_eq!(tokio::task::block_in_place(|| first.join().unwrap()), 200);

    // Through the whole engine: an answer cut off at 64 tokens is not the analysis asked for,
    // so the rules engine's result is used, and says so.
    let engine = LlmEngine::new(OpenAiClient::new(settings(&sidecar), None).unwrap(), rules(), 8000).named("local");
    assert_eq!(engine.model_used(), "local:smollm2-135m");
    let input = AnalysisInput {
        turns: vec![
            ("Agent".into(), "Good morning, how can I help?".into()),
            ("Customer".into(), "My internet has been down since yesterday, please fix it.".into()),
            ("Agent".into(), "I will send a technician tomorrow.".into()),
        ],
        language: callscope_analysis::engine::Lang::En,
        call_date: chrono::Utc::now(),
        time_zone: chrono_tz::UTC,
        categories: Vec::new(),
        template: None,
    };
    let analysis = engine.analyze(&input).await.unwrap();
    assert_eq!(analysis.model_used, "rules");
    assert!(!analysis.actions.is_empty(), "the rules engine found the commitment: {analysis:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_client_reads_how_sure_the_model_was_of_each_closed_choice() {
    let sidecar = start(&[]);
    let client = OpenAiClient::new(settings(&sidecar), None).unwrap();
    let weighed = client.chat_json_weighed("Answer with JSON.", "Is the sky blue? Which colour is grass?", "reply", &yes_no_schema()).await.unwrap();
    for (field, options) in [("answer", &["yes", "no"][..]), ("colour", &["red", "green", "blue"][..])] {
        let written = weighed.value[field].as_str().unwrap();
        let probabilities = weighed.choice(field, options).unwrap_or_else(|| panic!("{field}: no reading of {weighed:?}"));
        assert!((probabilities.iter().sum::<f64>() - 1.0).abs() < 1e-9, "{probabilities:?}");
        // Greedy decoding under the grammar writes the option the model scores highest.
        let best = options.iter().zip(&probabilities).max_by(|a, b| a.1.total_cmp(b.1)).unwrap();
        assert_eq!(*best.0, written, "{field}: {probabilities:?}");
    }
}

fn rules() -> RulesEngine {
    let dir = std::env::var_os("CALLSCOPE_TEST_MODELS_DIR").map_or_else(callscope_models::default_dir, PathBuf::from).join("sentiment-lexicons");
    RulesEngine::load(&dir).expect("the test profile installs the lexicons")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_guided_engine_gets_closed_choices_from_the_model_within_a_short_answer() {
    use callscope_analysis::classify::CategoryInfo;
    use callscope_analysis::guided::GuidedEngine;
    let sidecar = start(&[]);
    // The same 64-token limit that cuts the open analysis off: the guided answer fits in it.
    let engine = GuidedEngine::new(OpenAiClient::new(settings(&sidecar), None).unwrap(), rules(), 8000).named("local");
    let (outage, billing) = (callscope_domain::CategoryId::new(), callscope_domain::CategoryId::new());
    let category = |id, name: &str| CategoryInfo { id, parent: None, name: name.into(), description: None };
    let input = AnalysisInput {
        turns: vec![
            ("Agent".into(), "Good morning, how can I help?".into()),
            ("Customer".into(), "My internet has been down since yesterday, please fix it.".into()),
            ("Agent".into(), "I will send a technician tomorrow. I can also waive this month's fee.".into()),
            ("Customer".into(), "Thank you, that is great.".into()),
        ],
        language: callscope_analysis::engine::Lang::En,
        call_date: chrono::Utc::now(),
        time_zone: chrono_tz::UTC,
        categories: vec![category(outage, "Outages"), category(billing, "Billing")],
        template: None,
    };
    let analysis = engine.analyze(&input).await.unwrap();
    assert_eq!(analysis.model_used, "local:smollm2-135m", "the model answered, no fallback: {analysis:?}");
    // No category's words occur in the call, so the model chose one.
    let primary = analysis.classification.as_ref().and_then(|c| c.primary.as_ref()).expect("a category was chosen");
    assert!([outage, billing].contains(&primary.category_id), "{primary:?}");
    // Whatever a 135M model kept, it is one of the proposed sentences, owned by a party of the call.
    let proposed =
        ["My internet has been down since yesterday, please fix it.", "I will send a technician tomorrow.", "I can also waive this month's fee."];
    for item in &analysis.actions {
        assert!(proposed.contains(&item.evidence.as_str()), "{item:?}");
        assert!(["Agent", "Customer"].contains(&item.responsible_party.as_str()), "{item:?}");
        if item.evidence.contains("tomorrow") {
            assert_eq!(item.deadline_mentioned.as_deref(), Some("tomorrow"), "the deadline comes from the sentence");
        }
    }
}
