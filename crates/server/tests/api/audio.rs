//! A call's audio: its facts, and the original bytes with HTTP Range.

use callscope_store::Backend;
use reqwest::header::RANGE;
use serde_json::Value;
use sha2::{Digest, Sha256};

use crate::helpers::{assert_problem, spawn_app, wav_bytes};

both_backends!(the_original_audio_is_served_whole_or_in_ranges);

async fn the_original_audio_is_served_whole_or_in_ranges(backend: Backend) {
    let app = spawn_app(backend).await;
    let project = app.create_project("Support").await;
    let project_id = project["id"].as_str().unwrap();
    let audio = wav_bytes(8_000, 2, 2.0);
    let accepted: Value = app.upload(project_id, "", "rozmowa.wav", audio.clone()).await.json().await.unwrap();
    let job = app.wait_for_job(project_id, accepted["jobId"].as_str().unwrap()).await;
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
