//! Call characteristics through the whole service: a generated stereo call whose pauses are
//! known (hold music, then silence) is processed by the real pipeline, and its characteristics
//! show in the call detail, filter and order the calls list, fill the daily dashboard and the
//! CSV export, on both backends.

use callscope_domain::{Language, ProjectId};
use callscope_store::testing::{store_call, text_call};
use callscope_store::Backend;
use serde_json::Value;

use crate::helpers::{assert_problem, call_on_hold, spawn_app};

both_backends!(a_call_with_hold_music_and_silence_is_measured_and_listed_by_it);

async fn a_call_with_hold_music_and_silence_is_measured_and_listed_by_it(backend: Backend) {
    let app = spawn_app(backend).await;
    let project = app.create_project("Shape").await["id"].as_str().unwrap().to_owned();
    let bytes = call_on_hold(6.0);
    let (_, id) = app.process_call(&project, "", "hold.wav", bytes).await;
    let detail: Value = app.get(&format!("/v1/projects/{project}/calls/{id}")).await.json().await.unwrap();
    let c = &detail["characteristics"];
    assert!(c.is_object(), "{detail}");
    let duration = c["durationMs"].as_i64().unwrap();
    assert_eq!(c["talkMs"].as_i64().unwrap() + c["nonTalkMs"].as_i64().unwrap(), duration);

    // The pauses: the music (8 s, a little more with the speech's own edges), then the silence
    // at the end (6 s).
    let pauses = c["nonTalkStretches"].as_array().unwrap();
    let sounds: Vec<&str> = pauses.iter().map(|p| p["sound"].as_str().unwrap()).collect();
    assert_eq!(sounds, ["music", "silence"], "{pauses:?}");
    let length = |p: &Value| p["endMs"].as_i64().unwrap() - p["startMs"].as_i64().unwrap();
    assert!((7_500..=10_500).contains(&length(&pauses[0])), "{pauses:?}");
    assert!((5_500..=7_500).contains(&length(&pauses[1])), "{pauses:?}");
    assert_eq!(pauses[1]["endMs"].as_i64(), Some(duration));
    assert_eq!(c["musicMs"].as_i64(), Some(length(&pauses[0])));
    assert_eq!(c["longestNonTalkMs"].as_i64(), Some(length(&pauses[0])));
    assert_eq!(c["interruptionCount"], 0, "one after the other");
    let speakers = c["speakers"].as_array().unwrap();
    assert_eq!(speakers.len(), 2, "{speakers:?}");
    for s in speakers {
        // espeak speaks near full scale: loud, and measured in the quarters it talks in.
        assert!(s["loudnessDb"].as_f64().is_some_and(|db| db > -30.0 && db < 0.0), "{s}");
    }
    // espeak-ng was asked for 160 words a minute.
    assert!(c["wordsPerMinute"].as_f64().is_some_and(|w| w > 100.0 && w < 260.0), "{c}");
    assert_eq!(speakers[0]["loudnessByQuarterDb"].as_array().unwrap().len(), 4);

    // A call stored before characteristics were measured.
    let older = store_call(app.store.as_ref(), ProjectId(project.parse().unwrap()), &text_call(Language::En, "Old", "Hello.", "")).await.to_string();
    let old_detail: Value = app.get(&format!("/v1/projects/{project}/calls/{older}")).await.json().await.unwrap();
    assert!(old_detail["characteristics"].is_null());

    let listed = |query: &'static str| {
        let (app, project) = (&app, &project);
        async move {
            let response = app.get(&format!("/v1/projects/{project}/calls?{query}")).await;
            assert_eq!(response.status(), 200, "{query}");
            let page: Value = response.json().await.unwrap();
            page["data"].as_array().unwrap().iter().map(|c| c["id"].as_str().unwrap().to_owned()).collect::<Vec<_>>()
        }
    };
    let id = id.to_string();
    assert_eq!(listed("nonTalkOverS=5").await, std::slice::from_ref(&id));
    assert!(listed("nonTalkOverS=30").await.is_empty());
    assert!(listed("interruptionsOver=0").await.is_empty());
    // Unmeasured calls come last whichever the direction.
    assert_eq!(listed("sortBy=LONGEST_NON_TALK").await, [id.clone(), older.clone()]);
    assert_eq!(listed("sortBy=music&sortDir=asc").await, [id.clone(), older.clone()]);
    assert_eq!(listed("").await, [older.clone(), id.clone()], "newest first by default");
    let page: Value = app.get(&format!("/v1/projects/{project}/calls?sortBy=TALK_SPEED")).await.json().await.unwrap();
    assert_eq!(page["data"][0]["figures"]["longestNonTalkMs"], c["longestNonTalkMs"]);
    assert!(page["data"][1].get("figures").is_none(), "{}", page["data"][1]);
    for bad in ["nonTalkOverS=-1", "interruptionsOver=-2", "sortBy=LOUDEST", "sortDir=UP"] {
        let problem = assert_problem(app.get(&format!("/v1/projects/{project}/calls?{bad}")).await, 422, "validation_failed").await;
        let field = bad.split('=').next().unwrap();
        assert!(problem.to_string().contains(field), "{problem}");
    }
    assert_problem(app.get(&format!("/v1/projects/{project}/calls?nonTalkOverS=long")).await, 400, "bad_request").await;

    // The daily averages count the measured call only.
    let board: Value = app.get(&format!("/v1/projects/{project}/dashboard/characteristics?tz=Europe/Warsaw")).await.json().await.unwrap();
    assert_eq!(board["overall"]["calls"], 1, "{board}");
    assert_eq!(board["days"].as_array().unwrap().len(), 1);
    assert!(board["overall"]["onHoldS"].as_f64().unwrap() >= 7.5, "{board}");
    assert_eq!(board["overall"]["interruptions"], 0.0);
    assert_problem(app.get(&format!("/v1/projects/{project}/dashboard/characteristics?tz=Mars/Olympus")).await, 422, "validation_failed").await;

    // The export carries the figures; the unmeasured call's cells are empty.
    let csv = app.get(&format!("/v1/projects/{project}/calls/export?sortBy=LONGEST_NON_TALK")).await.text().await.unwrap();
    let rows: Vec<&str> = csv.lines().collect();
    assert!(rows[0].ends_with("nonTalkS,longestNonTalkS,onHoldS,interruptions,wordsPerMinute,rules"), "{}", rows[0]);
    assert!(rows[1].starts_with(&id), "{csv}");
    let longest = format!("{:.1}", c["longestNonTalkMs"].as_f64().unwrap() / 1000.0);
    assert!(rows[1].contains(&format!(",{longest},")), "{csv}");
    assert!(rows[2].starts_with(&older) && rows[2].ends_with(",,,,,,"), "{csv}");
}
