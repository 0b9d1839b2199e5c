//! A project's vocabulary through the API: written and checked, kept to its project, and used:
//! a call processed after it has its terms as they are written, and on a call without roles the
//! speaker who answers with the company's name is the agent, on both backends.

use callscope_store::Backend;
use serde_json::{json, Value};

use crate::helpers::{assert_problem, generated_call, spawn_app, Piece};

both_backends!(the_vocabulary_respells_the_calls_processed_after_it);

async fn the_vocabulary_respells_the_calls_processed_after_it(backend: Backend) {
    let app = spawn_app(backend).await;
    let project = app.create_project("Words").await["id"].as_str().unwrap().to_owned();
    let path = format!("/v1/projects/{project}/vocabulary");
    let empty: Value = app.get(&path).await.json().await.unwrap();
    assert_eq!(empty, json!({"terms": []}));

    // "write water" is how the smallest speech model hears espeak-ng say it: the form a project
    // adds once it sees it in its transcripts.
    let written = json!({"terms": [
        {"term": " Brightwater ", "spokenForms": ["bright water", "write water", " "], "company": true},
        {"term": "Łódź Kaliska"}
    ]});
    let stored = app.put_json(&path, &written).await;
    assert_eq!(stored.status(), 200);
    let stored: Value = stored.json().await.unwrap();
    assert_eq!(stored["terms"][0], json!({"term": "Brightwater", "spokenForms": ["bright water", "write water"], "company": true}));
    assert_eq!(stored["terms"][1], json!({"term": "Łódź Kaliska", "spokenForms": [], "company": false}));
    assert_eq!(app.get(&path).await.json::<Value>().await.unwrap(), stored);
    for bad in [json!({"terms": [{"term": ""}]}), json!({"terms": [{"term": "Acme"}, {"term": "ACME"}]})] {
        let problem = assert_problem(app.put_json(&path, &bad).await, 422, "validation_failed").await;
        assert!(problem.to_string().contains("terms["), "{problem}");
    }
    let other = app.create_project("Other").await["id"].as_str().unwrap().to_owned();
    assert_eq!(app.get(&format!("/v1/projects/{other}/vocabulary")).await.json::<Value>().await.unwrap(), json!({"terms": []}));

    let bytes = generated_call(
        2,
        &[
            Piece::Says(0, "en-gb", "Good morning, you are through to Bright Water Energy. How can I help?"),
            Piece::Silence(0.5),
            Piece::Says(1, "en-us", "Hello, I would like to pay my bill."),
        ],
    );
    let (_, call) = app.process_call(&project, "channel_roles=agent,customer", "words.wav", bytes).await;
    let detail: Value = app.get(&format!("/v1/projects/{project}/calls/{call}")).await.json().await.unwrap();
    let text = detail["fullText"].as_str().unwrap();
    assert!(text.contains("through to Brightwater") && !text.to_lowercase().contains("write water"), "{text}");

    // Without roles, a recording that starts with the caller and has no formula on either side:
    // only the company's name tells the agent (without it the first speaker would be taken).
    let bytes = generated_call(
        2,
        &[Piece::Says(0, "en-us", "Hello? Is anybody there?"), Piece::Silence(0.5), Piece::Says(1, "en-gb", "Yes, Bright Water here. Go ahead.")],
    );
    let (_, call) = app.process_call(&project, "", "answered.wav", bytes).await;
    let detail: Value = app.get(&format!("/v1/projects/{project}/calls/{call}")).await.json().await.unwrap();
    let speakers = detail["speakers"].as_array().unwrap();
    let roles: Vec<(&str, &str)> = speakers.iter().map(|s| (s["speakerId"].as_str().unwrap(), s["role"].as_str().unwrap_or("none"))).collect();
    assert_eq!(roles, [("speaker_1", "customer"), ("speaker_2", "agent")], "{}", detail["fullText"]);
}
