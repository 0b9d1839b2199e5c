//! Uploads (decisions §2/§4): accepted audio is stored and queued; anything refused leaves
//! nothing behind.

use callscope_store::Backend;
use serde_json::{json, Value};
use sha2::{Digest, Sha256};

use crate::helpers::{assert_problem, spawn_app, spawn_app_with, wav_bytes};

both_backends!(
    an_upload_is_stored_and_queued,
    query_options_are_checked_before_the_body,
    bytes_that_are_not_audio_are_415_and_not_kept,
    uploads_over_the_limit_are_413_and_not_kept,
    the_same_bytes_twice_are_409_unless_forced,
    malformed_bodies_are_400,
    uploads_have_their_own_rate_limit,
    a_refused_upload_tells_a_keep_alive_client_to_reconnect,
    an_upload_sent_a_byte_at_a_time_is_cut_off,
    requests_past_the_in_flight_cap_are_503_and_the_probes_still_answer,
);

async fn an_upload_is_stored_and_queued(backend: Backend) {
    let app = spawn_app(backend).await;
    let project: Value = app.post_json("/v1/projects", &json!({"name": "PL", "defaultLanguage": "pl"})).await.json().await.unwrap();
    let project_id = project["id"].as_str().unwrap();
    let audio = wav_bytes(8_000, 2, 1.5);
    let response =
        app.upload(project_id, "channel_roles=agent,customer&recorded_at=2026-11-20T09:30:00%2B01:00", "../rozmowa 17.wav", audio.clone()).await;
    assert_eq!(response.status(), 202);
    let location = response.headers()["location"].to_str().unwrap().to_owned();
    let accepted: Value = response.json().await.unwrap();
    let job_id = accepted["jobId"].as_str().unwrap();
    assert_eq!(location, format!("/v1/projects/{project_id}/calls/jobs/{job_id}"));
    assert_eq!(accepted["status"], "PENDING");
    assert!(accepted["submittedAt"].as_str().unwrap().ends_with('Z'));

    let job: Value = app.get(&location).await.json().await.unwrap();
    assert_eq!(job["jobId"], job_id);
    assert_eq!(job["status"], "PENDING");
    assert_eq!(job["stage"], "QUEUED");
    assert_eq!(job["progress"], 0.0);
    assert_eq!(job["attempts"], 0);
    assert_eq!(job["originalFilename"], "rozmowa 17.wav", "directories are dropped from names");
    assert_eq!(job["contentType"], "audio/wav");
    assert_eq!(job["sizeBytes"], audio.len());
    assert_eq!(job["sha256"], hex::encode(Sha256::digest(&audio)));
    assert_eq!(job["language"], "pl", "the project's default language");
    assert_eq!(job["channelRoles"], json!(["agent", "customer"]));
    assert_eq!(job["recordedAt"], "2026-11-20T08:30:00.000Z");
    for absent in ["errorMessage", "transcriptId", "startedAt", "completedAt"] {
        assert_eq!(job[absent], Value::Null, "{absent}");
    }
    let stored = app.config.data_dir.join("audio").join(job["storagePath"].as_str().unwrap());
    assert_eq!(std::fs::read(stored).unwrap(), audio, "the stored object is the upload, byte for byte");

    let english: Value = app.upload(project_id, "language=en", "b.wav", wav_bytes(16_000, 1, 0.5)).await.json().await.unwrap();
    let job: Value = app.get(&format!("/v1/projects/{project_id}/calls/jobs/{}", english["jobId"].as_str().unwrap())).await.json().await.unwrap();
    assert_eq!(job["language"], "en");
    assert_eq!(job["channelRoles"], Value::Null);
    assert_problem(app.get(&format!("/v1/projects/{project_id}/calls/jobs/{}", uuid::Uuid::now_v7())).await, 404, "not_found").await;
}

async fn query_options_are_checked_before_the_body(backend: Backend) {
    let app = spawn_app(backend).await;
    let project = app.create_project("p").await;
    let id = project["id"].as_str().unwrap();
    for (query, field) in [
        ("language=de", "language"),
        ("language=", "language"),
        ("channel_roles=agent,,customer", "channel_roles"),
        ("recorded_at=yesterday", "recorded_at"),
    ] {
        let problem = assert_problem(app.upload(id, query, "a.wav", wav_bytes(8_000, 1, 0.2)).await, 422, "validation_failed").await;
        assert_eq!(problem["errors"][0]["field"], field, "{query}");
    }
    assert_problem(app.upload(id, "force=maybe", "a.wav", wav_bytes(8_000, 1, 0.2)).await, 400, "bad_request").await;
    assert!(app.stored_files().is_empty());
}

async fn bytes_that_are_not_audio_are_415_and_not_kept(backend: Backend) {
    let app = spawn_app(backend).await;
    let project = app.create_project("p").await;
    let id = project["id"].as_str().unwrap();
    for bytes in [b"%PDF-1.7 not a call at all, but named like one".to_vec(), b"RIFF".to_vec(), Vec::new(), vec![0u8; 4096]] {
        let problem = assert_problem(app.upload(id, "", "call.wav", bytes).await, 415, "unsupported_media_type").await;
        assert!(problem["detail"].as_str().unwrap().contains("not audio"));
    }
    assert!(app.stored_files().is_empty(), "nothing of a refused upload is kept");
}

async fn uploads_over_the_limit_are_413_and_not_kept(backend: Backend) {
    let app = spawn_app_with(backend, |c| c.max_upload_bytes = 100_000).await;
    let project = app.create_project("p").await;
    let id = project["id"].as_str().unwrap();
    let big = wav_bytes(16_000, 1, 4.0); // 128 kB
    assert!(big.len() > 100_000);
    let problem = assert_problem(app.upload(id, "", "big.wav", big).await, 413, "payload_too_large").await;
    assert!(problem["detail"].as_str().unwrap().contains("100000"));
    let huge = wav_bytes(16_000, 2, 8.0); // 512 kB: refused from Content-Length alone
    assert_problem(app.upload(id, "", "huge.wav", huge).await, 413, "payload_too_large").await;
    assert!(app.stored_files().is_empty());
    assert_eq!(app.upload(id, "", "small.wav", wav_bytes(16_000, 1, 2.0)).await.status(), 202);
    assert_eq!(app.stored_files().len(), 1);
}

async fn the_same_bytes_twice_are_409_unless_forced(backend: Backend) {
    let app = spawn_app(backend).await;
    let project = app.create_project("p").await;
    let id = project["id"].as_str().unwrap();
    let audio = wav_bytes(8_000, 1, 1.0);
    let first: Value = app.upload(id, "", "a.wav", audio.clone()).await.json().await.unwrap();
    let problem = assert_problem(app.upload(id, "", "again.wav", audio.clone()).await, 409, "duplicate_upload").await;
    assert_eq!(problem["existingJobId"], first["jobId"]);
    assert_eq!(problem["transcriptId"], Value::Null, "present, and null until the job completes");
    assert_eq!(app.stored_files().len(), 1, "the duplicate was not kept");
    let forced = app.upload(id, "force=true", "again.wav", audio.clone()).await;
    assert_eq!(forced.status(), 202);
    let forced: Value = forced.json().await.unwrap();
    assert_ne!(forced["jobId"], first["jobId"]);
    let other = app.create_project("other").await;
    assert_eq!(app.upload(other["id"].as_str().unwrap(), "", "a.wav", audio).await.status(), 202, "duplicates are per project");
}

async fn malformed_bodies_are_400(backend: Backend) {
    let app = spawn_app(backend).await;
    let project = app.create_project("p").await;
    let path = format!("/v1/projects/{}/calls/upload", project["id"].as_str().unwrap());
    let json_body = app.post_json(&path, &json!({"file": "x"})).await;
    assert_problem(json_body, 400, "bad_request").await;
    let form = reqwest::multipart::Form::new().text("audio", "not the right part");
    let wrong_part = app.request(reqwest::Method::POST, &path).multipart(form).send().await.unwrap();
    let problem = assert_problem(wrong_part, 400, "bad_request").await;
    assert!(problem["detail"].as_str().unwrap().contains("file"));
}

async fn uploads_have_their_own_rate_limit(backend: Backend) {
    let app = spawn_app_with(backend, |c| c.rate_limit_uploads_per_minute = 2).await;
    let project = app.create_project("p").await;
    let id = project["id"].as_str().unwrap();
    for i in 0..2 {
        assert_eq!(app.upload(id, "", "a.wav", wav_bytes(8_000, 1, 0.1 + i as f32 * 0.1)).await.status(), 202);
    }
    let limited = app.upload(id, "", "a.wav", wav_bytes(8_000, 1, 0.5)).await;
    assert!(limited.headers().contains_key("retry-after"));
    assert_problem(limited, 429, "rate_limited").await;
    assert_eq!(app.get("/v1/projects").await.status(), 200, "other requests still pass");
}

/// Sends an upload on `stream` as one HTTP/1.1 request that keeps the connection alive, and
/// reads the answer: its status and headers (names in lower case).
async fn raw_upload(stream: &mut tokio::net::TcpStream, app: &crate::helpers::TestApp, project: &str, bytes: &[u8]) -> (u16, Vec<(String, String)>) {
    use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
    let boundary = "callscope-test-boundary";
    let mut body =
        format!("--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.wav\"\r\nContent-Type: audio/wav\r\n\r\n").into_bytes();
    body.extend_from_slice(bytes);
    body.extend_from_slice(format!("\r\n--{boundary}--\r\n").as_bytes());
    let head = format!(
        "POST /v1/projects/{project}/calls/upload HTTP/1.1\r\nHost: test\r\nX-API-Key: {}\r\nContent-Type: multipart/form-data; boundary={boundary}\r\nContent-Length: {}\r\n\r\n",
        app.key,
        body.len()
    );
    stream.write_all(head.as_bytes()).await.unwrap();
    // A server that answers early stops reading: what it does not take is not waited for.
    let _ = tokio::time::timeout(std::time::Duration::from_secs(2), stream.write_all(&body)).await;
    let mut reader = BufReader::new(stream);
    let mut status_line = String::new();
    reader.read_line(&mut status_line).await.unwrap();
    let status = status_line.split_whitespace().nth(1).expect("a status line").parse().unwrap();
    let mut headers = Vec::new();
    loop {
        let mut line = String::new();
        reader.read_line(&mut line).await.unwrap();
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        let (name, value) = line.split_once(':').unwrap();
        headers.push((name.to_ascii_lowercase(), value.trim().to_owned()));
    }
    let length: usize = headers.iter().find(|(n, _)| n == "content-length").map_or(0, |(_, v)| v.parse().unwrap());
    let mut answer = vec![0; length];
    reader.read_exact(&mut answer).await.unwrap();
    (status, headers)
}

async fn a_refused_upload_tells_a_keep_alive_client_to_reconnect(backend: Backend) {
    let app = spawn_app(backend).await;
    let project = app.create_project("p").await;
    let id = project["id"].as_str().unwrap();
    let address = app.address.trim_start_matches("http://").to_owned();
    let closes = |headers: &[(String, String)]| headers.iter().any(|(n, v)| n == "connection" && v.eq_ignore_ascii_case("close"));

    // 200 kB of noise is refused from its first bytes, before the rest is read: the answer says
    // the connection ends, so a client does not send its next request into a closed one.
    let noise: Vec<u8> = (0u32..200_000).map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8).collect();
    let mut stream = tokio::net::TcpStream::connect(&address).await.unwrap();
    let (status, headers) = raw_upload(&mut stream, &app, id, &noise).await;
    assert_eq!(status, 415);
    assert!(closes(&headers), "the early answer announces the close: {headers:?}");

    // Uploads read to the end keep the connection: two of them share one.
    let mut stream = tokio::net::TcpStream::connect(&address).await.unwrap();
    for seconds in [0.5, 0.6] {
        let (status, headers) = raw_upload(&mut stream, &app, id, &wav_bytes(8_000, 1, seconds)).await;
        assert_eq!(status, 202);
        assert!(!closes(&headers), "a fully read upload keeps its connection: {headers:?}");
    }
}

/// Opens a connection and starts an upload of `length` body bytes, sending only the head and
/// the start of the body: the rest is the caller's to send (or not).
async fn open_upload(app: &crate::helpers::TestApp, project: &str, length: usize, body_start: &str) -> tokio::net::TcpStream {
    use tokio::io::AsyncWriteExt;
    let address = app.address.trim_start_matches("http://").to_owned();
    let mut stream = tokio::net::TcpStream::connect(&address).await.unwrap();
    let head = format!(
        "POST /v1/projects/{project}/calls/upload HTTP/1.1\r\nHost: test\r\nX-API-Key: {}\r\nContent-Type: multipart/form-data; boundary=b\r\nContent-Length: {length}\r\n\r\n{body_start}",
        app.key
    );
    stream.write_all(head.as_bytes()).await.unwrap();
    stream
}

/// An upload of `length` body bytes started up to the first bytes of its file.
async fn start_upload(app: &crate::helpers::TestApp, project: &str, length: usize) -> tokio::net::TcpStream {
    let file = "--b\r\nContent-Disposition: form-data; name=\"file\"; filename=\"slow.wav\"\r\n\r\nRIFF\x24\x00\x00\x00WAVEfmt ";
    open_upload(app, project, length, file).await
}

/// Sends a byte every 100 ms on `stream` and reads the answer's head: what it says, and when.
async fn answer_to_a_trickle(stream: tokio::net::TcpStream) -> (String, std::time::Duration) {
    let (mut reader, mut writer) = stream.into_split();
    let trickle = tokio::spawn(async move {
        use tokio::io::AsyncWriteExt;
        for _ in 0..100 {
            if writer.write_all(b"\x00").await.is_err() {
                return;
            }
            tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        }
    });
    let started = std::time::Instant::now();
    let mut head = Vec::new();
    let mut byte = [0u8; 1];
    tokio::time::timeout(std::time::Duration::from_secs(8), async {
        use tokio::io::AsyncReadExt;
        while !head.ends_with(b"\r\n\r\n") && reader.read(&mut byte).await.unwrap() == 1 {
            head.push(byte[0]);
        }
    })
    .await
    .expect("cut off, not waited for");
    trickle.abort();
    (String::from_utf8_lossy(&head).to_ascii_lowercase(), started.elapsed())
}

async fn an_upload_sent_a_byte_at_a_time_is_cut_off(backend: Backend) {
    let app = spawn_app_with(backend, |c| {
        c.upload_min_bytes_per_second = 1_000;
        c.upload_pace_window_seconds = 1;
    })
    .await;
    let project = app.create_project("p").await;
    let id = project["id"].as_str().unwrap();
    let (head, took) = answer_to_a_trickle(start_upload(&app, id, 100_000).await).await;
    assert!(head.starts_with("http/1.1 408"), "{head}");
    assert!(head.contains("connection: close"), "{head}");
    assert!(took < std::time::Duration::from_secs(4), "{took:?}");

    // A part before the file, trickled, is cut off too.
    let note = open_upload(&app, id, 100_000, "--b\r\nContent-Disposition: form-data; name=\"note\"\r\n\r\n").await;
    let (head, took) = answer_to_a_trickle(note).await;
    assert!(head.starts_with("http/1.1 408"), "{head}");
    assert!(took < std::time::Duration::from_secs(4), "{took:?}");
    assert!(app.stored_files().is_empty(), "nothing of either is kept");
}

async fn requests_past_the_in_flight_cap_are_503_and_the_probes_still_answer(backend: Backend) {
    let app = spawn_app_with(backend, |c| c.max_requests_in_flight = 1).await;
    let project = app.create_project("p").await;
    let id = project["id"].as_str().unwrap();
    // An upload that stalls holds the one slot.
    let mut stalled = start_upload(&app, id, 100_000).await;
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
    let refused = loop {
        let response = app.get("/v1/projects").await;
        if response.status() == 503 || std::time::Instant::now() > deadline {
            break response;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    };
    assert_eq!(refused.status(), 503);
    assert!(refused.headers().contains_key("retry-after"), "{:?}", refused.headers());
    let problem = assert_problem(refused, 503, "unavailable").await;
    assert!(problem["detail"].as_str().unwrap().contains("as many requests"), "{problem}");
    assert_eq!(app.get("/healthz").await.status(), 200, "the probes are answered");

    // The slot comes back when the stalled request ends.
    use tokio::io::AsyncWriteExt;
    stalled.shutdown().await.unwrap();
    drop(stalled);
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
    loop {
        let status = app.get("/v1/projects").await.status();
        if status == 200 {
            break;
        }
        assert!(std::time::Instant::now() < deadline, "still {status}");
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
}
