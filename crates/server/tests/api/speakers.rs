//! Speakers on a mono recording: a generated call of two men's voices (espeak-ng's British and
//! American, a variant), one channel, no roles. The
//! diarizer must keep the two voices apart (one such call once came out as a single speaker with
//! 97 % of the talk), and their words must tell the agent from the customer.

use callscope_store::Backend;
use serde_json::Value;

use crate::helpers::{generated_call, spawn_app, Piece};

both_backends!(a_mono_call_of_two_voices_keeps_both_and_names_them_by_their_part);

async fn a_mono_call_of_two_voices_keeps_both_and_names_them_by_their_part(backend: Backend) {
    let app = spawn_app(backend).await;
    let project = app.create_project("Mono").await["id"].as_str().unwrap().to_owned();
    let bytes = generated_call(
        1,
        &[
            Piece::Says(0, "en-gb", "Good morning, you are through to Northwind Energy, my name is Priya. How can I help?"),
            Piece::Silence(0.4),
            Piece::Says(0, "en-us+m3", "Hi, I am calling about my bill. It is much higher than last month and I do not understand why."),
            Piece::Silence(0.4),
            Piece::Says(0, "en-gb", "I am sorry to hear that. Can I take your account number, please?"),
            Piece::Silence(0.4),
            Piece::Says(0, "en-us+m3", "Yes, it is four four seven one, two nine. I have been waiting for an answer for a week."),
            Piece::Silence(0.4),
            Piece::Says(0, "en-gb", "Thank you. I can see an estimated reading. I will send you a corrected bill by Friday."),
            Piece::Silence(0.4),
            Piece::Says(0, "en-us+m3", "That is great, thank you very much."),
        ],
    );
    let (_, call) = app.process_call(&project, "", "mono.wav", bytes).await;
    let detail: Value = app.get(&format!("/v1/projects/{project}/calls/{call}")).await.json().await.unwrap();
    let speakers = detail["speakers"].as_array().unwrap();
    assert_eq!(speakers.len(), 2, "two voices, two speakers: {speakers:?}");
    let agent = speakers.iter().find(|s| s["role"] == "agent").expect("an agent");
    assert_eq!(agent["name"], "Agent");
    // The agent's turns are the ones that greet and apologise; the customer's say they waited.
    let turns = detail["turns"].as_array().unwrap();
    let said = |speaker: &Value| -> String {
        turns.iter().filter(|t| t["speakerId"] == *speaker).map(|t| t["text"].as_str().unwrap().to_lowercase()).collect::<Vec<_>>().join(" ")
    };
    let customer = speakers.iter().find(|s| s["role"] == "customer").expect("a customer");
    let (agent_said, customer_said) = (said(&agent["speakerId"]), said(&customer["speakerId"]));
    assert!(agent_said.contains("through to") && agent_said.contains("sorry to hear"), "{turns:?}");
    assert!(customer_said.contains("waiting") && !customer_said.contains("through to"), "{turns:?}");
}
