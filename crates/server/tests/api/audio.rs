//! A call's audio: its facts, the original bytes with HTTP Range, and the short-lived links a
//! browser's player streams them through without the key.

use std::sync::Arc;

use callscope_domain::{ApiKeySecret, Language, ManualClock, ProjectId};
use callscope_store::Backend;
use chrono::{TimeDelta, TimeZone, Utc};
use reqwest::header::RANGE;
use serde_json::Value;
use sha2::{Digest, Sha256};

use crate::helpers::{assert_problem, spawn_app, spawn_app_with_clock, wav_bytes, TestApp};

both_backends!(the_original_audio_is_served_whole_or_in_ranges, an_audio_link_streams_without_the_key_until_it_expires_or_its_key_is_revoked,);

async fn the_original_audio_is_served_whole_or_in_ranges(backend: Backend) {
    let app = spawn_app(backend).await;
    let project = app.create_project("Support").await;
    let project_id = project["id"].as_str().unwrap();
    let audio = wav_bytes(8_000, 2, 2.0);
    let job = app.upload_and_wait(project_id, "", "rozmowa.wav", audio.clone()).await;
    let call = job["transcriptId"].as_str().unwrap();
    let base = format!("/v1/projects/{project_id}/calls/{call}/audio");

    let info: Value = app.get(&base).await.json().await.unwrap();
    assert_eq!(info["filename"], "rozmowa.wav");
    assert_eq!(info["contentType"], "audio/wav");
    assert_eq!(info["sizeBytes"], audio.len());
    assert_eq!(info["durationS"], 2.0);
    assert_eq!(info["sampleRate"], 8000);
    assert_eq!(info["channels"], 2);
    assert_eq!(info["codec"], "pcm_s16le");
    assert_eq!(info["sha256"], hex::encode(Sha256::digest(&audio)));
    assert_eq!(info["storagePath"], job["storagePath"]);
    assert_eq!(info["contentUrl"], format!("{base}/content"));

    let whole = app.get(&format!("{base}/content")).await;
    assert_eq!(whole.status(), 200);
    assert_eq!(whole.headers()["accept-ranges"], "bytes");
    assert_eq!(whole.headers()["content-type"], "audio/wav");
    assert_eq!(whole.bytes().await.unwrap().to_vec(), audio);

    let len = audio.len();
    for (range, expected) in [("bytes=0-99", 0..100), ("bytes=100-", 100..len), ("bytes=-44", len - 44..len), ("bytes=10-999999", 10..len)] {
        let part = app.request(reqwest::Method::GET, &format!("{base}/content")).header(RANGE, range).send().await.unwrap();
        assert_eq!(part.status(), 206, "{range}");
        assert_eq!(part.headers()["content-range"], format!("bytes {}-{}/{len}", expected.start, expected.end - 1));
        assert_eq!(part.bytes().await.unwrap().to_vec(), audio[expected].to_vec(), "{range}");
    }
    let outside = app.request(reqwest::Method::GET, &format!("{base}/content")).header(RANGE, format!("bytes={len}-")).send().await.unwrap();
    assert_eq!(outside.headers()["content-range"], format!("bytes */{len}"));
    assert_problem(outside, 416, "range_not_satisfiable").await;
    let several = app.request(reqwest::Method::GET, &format!("{base}/content")).header(RANGE, "bytes=0-1,4-5").send().await.unwrap();
    assert_eq!(several.status(), 200, "several ranges get the whole file");

    let missing = format!("/v1/projects/{project_id}/calls/{}/audio", uuid::Uuid::now_v7());
    assert_problem(app.get(&missing).await, 404, "not_found").await;
    assert_problem(app.get(&format!("{missing}/content")).await, 404, "not_found").await;
}

/// A stored call with `bytes` as its audio, as a worker leaves one.
async fn call_with_audio(app: &TestApp, project: &str, bytes: &[u8]) -> String {
    let mut stored = callscope_store::testing::text_call(Language::En, "A call", "Hello.", "");
    let path = app.config.data_dir.join("audio").join(&stored.storage_path);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, bytes).unwrap();
    stored.size_bytes = i64::try_from(bytes.len()).unwrap();
    callscope_store::testing::store_call(app.store.as_ref(), ProjectId(project.parse().unwrap()), &stored).await.0.to_string()
}

async fn an_audio_link_streams_without_the_key_until_it_expires_or_its_key_is_revoked(backend: Backend) {
    let clock = Arc::new(ManualClock::new(Utc.with_ymd_and_hms(2026, 11, 20, 12, 0, 0).unwrap()));
    let app = spawn_app_with_clock(backend, clock.clone(), |c| c.workers = 0).await;
    let project = app.create_project("Support").await["id"].as_str().unwrap().to_owned();
    let audio = wav_bytes(8_000, 1, 1.0);
    let call = call_with_audio(&app, &project, &audio).await;
    let base = format!("/v1/projects/{project}/calls/{call}/audio");

    let made = app.request(reqwest::Method::POST, &format!("{base}/link")).send().await.unwrap();
    assert_eq!(made.status(), 201);
    let location = made.headers()["location"].to_str().unwrap().to_owned();
    let link: Value = made.json().await.unwrap();
    let url = link["url"].as_str().unwrap().to_owned();
    assert_eq!(location, url);
    assert!(url.starts_with("/audio/v1.") && !url.contains(&app.key), "{url}");
    assert_eq!(link["expiresAt"], "2026-11-20T13:00:00.000Z", "an hour from now");

    // No key: the link is the credential, for this call's bytes, whole or in ranges.
    let whole = app.client.get(app.url(&url)).send().await.unwrap();
    assert_eq!(whole.status(), 200);
    assert_eq!(whole.headers()["content-type"], "audio/wav");
    assert_eq!(whole.bytes().await.unwrap().to_vec(), audio);
    let part = app.client.get(app.url(&url)).header(RANGE, "bytes=-44").send().await.unwrap();
    assert_eq!(part.status(), 206);
    assert_eq!(part.bytes().await.unwrap().to_vec(), audio[audio.len() - 44..].to_vec());

    // A changed token, or one of another shape, is refused with the key's 401.
    let forged = format!("{}{}", &url[..url.len() - 1], if url.ends_with('0') { '1' } else { '0' });
    let problem = assert_problem(app.client.get(app.url(&forged)).send().await.unwrap(), 401, "unauthorized").await;
    assert!(problem["detail"].as_str().unwrap().contains("audio link"), "{problem}");
    assert_problem(app.client.get(app.url("/audio/nonsense")).send().await.unwrap(), 401, "unauthorized").await;

    // A link made for a call that is not there is not made.
    let missing = format!("/v1/projects/{project}/calls/{}/audio/link", uuid::Uuid::now_v7());
    assert_problem(app.request(reqwest::Method::POST, &missing).send().await.unwrap(), 404, "not_found").await;

    // An hour later the link is spent; a new one works.
    clock.advance(TimeDelta::minutes(59));
    assert_eq!(app.client.get(app.url(&url)).send().await.unwrap().status(), 200, "still within the hour");
    clock.advance(TimeDelta::minutes(1));
    assert_problem(app.client.get(app.url(&url)).send().await.unwrap(), 401, "unauthorized").await;
    let fresh: Value = app.request(reqwest::Method::POST, &format!("{base}/link")).send().await.unwrap().json().await.unwrap();
    assert_eq!(app.client.get(app.url(fresh["url"].as_str().unwrap())).send().await.unwrap().status(), 200);

    // Revoking a key ends the links it made, and only those.
    let player = ApiKeySecret::generate();
    let player_key = app.store.create_api_key(app.org, "player", &player.digest()).await.unwrap().unwrap();
    let theirs: Value = app.request_as(player.expose(), reqwest::Method::POST, &format!("{base}/link")).send().await.unwrap().json().await.unwrap();
    let theirs = theirs["url"].as_str().unwrap().to_owned();
    assert_eq!(app.client.get(app.url(&theirs)).send().await.unwrap().status(), 200);
    app.store.revoke_api_key(player_key.id).await.unwrap();
    assert_problem(app.client.get(app.url(&theirs)).send().await.unwrap(), 401, "unauthorized").await;
    assert_eq!(app.client.get(app.url(fresh["url"].as_str().unwrap())).send().await.unwrap().status(), 200);

    // Another organization's link cannot be bent to this call: the call is in the signature,
    // and its key's organization is where the project is looked up.
    let (_, foreign_key) = app.other_org("intruder").await;
    let foreign_project = app.create_project_as(&foreign_key, "Theirs").await["id"].as_str().unwrap().to_owned();
    let foreign_call = call_with_audio(&app, &foreign_project, &wav_bytes(8_000, 1, 0.5)).await;
    let foreign_link = format!("/v1/projects/{foreign_project}/calls/{foreign_call}/audio/link");
    let foreign_link: Value = app.request_as(&foreign_key, reqwest::Method::POST, &foreign_link).send().await.unwrap().json().await.unwrap();
    let foreign_url = foreign_link["url"].as_str().unwrap();
    let bent = foreign_url.replace(&foreign_call.replace('-', ""), &call.replace('-', ""));
    assert_ne!(bent, foreign_url);
    assert_problem(app.client.get(app.url(&bent)).send().await.unwrap(), 401, "unauthorized").await;

    // Once the call is erased its link opens nothing.
    assert_eq!(app.request(reqwest::Method::DELETE, &format!("/v1/projects/{project}/calls/{call}")).send().await.unwrap().status(), 204);
    assert_problem(app.client.get(app.url(fresh["url"].as_str().unwrap())).send().await.unwrap(), 404, "not_found").await;
}
