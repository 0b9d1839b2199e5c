//! Operations: probes, the per-key rate limit, graceful shutdown.

use std::time::Duration;

use callscope_store::Backend;
use futures::StreamExt;
use serde_json::Value;

use crate::helpers::{assert_problem, spawn_app, spawn_app_with, TestApp};

both_backends!(
    probes_need_no_key,
    readiness_needs_a_live_worker_where_workers_should_run,
    the_rate_limit_is_per_key_with_retry_after,
    a_flood_of_unknown_keys_is_limited_by_address,
    a_rate_limit_of_zero_is_off,
    behind_a_trusted_proxy_each_forwarded_client_has_its_own_budget,
    a_request_not_answered_within_its_time_limit_is_503,
    shutdown_lets_requests_in_flight_finish,
);

async fn probes_need_no_key(backend: Backend) {
    let app = spawn_app(backend).await;
    let health: Value = app.client.get(app.url("/healthz")).send().await.unwrap().json().await.unwrap();
    assert_eq!(health["status"], "ok");
    let ready: Value = app.client.get(app.url("/readyz")).send().await.unwrap().json().await.unwrap();
    assert_eq!(ready["status"], "ready");
}

async fn readiness_needs_a_live_worker_where_workers_should_run(backend: Backend) {
    use std::sync::Arc;

    use callscope_api::{ApiSettings, AppState};
    use callscope_domain::{SystemClock, WorkerHealth};

    let app = spawn_app_with(backend, |c| c.workers = 1).await;
    let ready = app.client.get(app.url("/readyz")).send().await.unwrap();
    assert_eq!(ready.status(), 200, "its worker runs");

    // The same service over the same database, in a process whose one worker has died.
    let health = Arc::new(WorkerHealth::new(1));
    let storage = callscope_storage::Storage::local(&app.config.data_dir.join("audio")).unwrap();
    let settings = ApiSettings {
        rate_limit_per_minute: 0,
        webhooks_allow_private: false,
        max_upload_bytes: 1 << 20,
        uploads_per_minute: 0,
        audio_link_secret: callscope_api::AudioLinkSecret::new(*b"test"),
        max_requests_in_flight: 0,
        trusted_proxies: callscope_api::TrustedProxies::default(),
        request_time_limit: std::time::Duration::ZERO,
        upload_min_bytes_per_second: 0,
        upload_pace_window: std::time::Duration::from_secs(30),
    };
    let state = AppState::new(app.store.clone(), storage, Arc::new(SystemClock), &settings).with_worker_health(health.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/readyz", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, callscope_api::router(state, axum::Router::new())).await.unwrap() });
    assert_problem(app.client.get(&url).send().await.unwrap(), 503, "unavailable").await;
    health.started();
    assert_eq!(app.client.get(&url).send().await.unwrap().status(), 200, "ready again once a worker runs");
}

async fn the_rate_limit_is_per_key_with_retry_after(backend: Backend) {
    let app = spawn_app_with(backend, |c| c.rate_limit_per_minute = 3).await;
    for _ in 0..3 {
        assert_eq!(app.get("/v1/projects").await.status(), 200);
    }
    let limited = app.get("/v1/projects").await;
    let retry_after: u64 = limited.headers()["retry-after"].to_str().unwrap().parse().unwrap();
    assert!((1..=20).contains(&retry_after), "3 a minute refill one every 20 s: {retry_after}");
    assert_problem(limited, 429, "rate_limited").await;

    let (_, other_key) = app.other_org("other").await;
    let other = app.client.get(app.url("/v1/projects")).header("X-API-Key", &other_key).send().await.unwrap();
    assert_eq!(other.status(), 200, "another key has its own budget");
    assert_eq!(app.client.get(app.url("/healthz")).send().await.unwrap().status(), 200, "probes are not limited");
}

async fn a_flood_of_unknown_keys_is_limited_by_address(backend: Backend) {
    let app = spawn_app_with(backend, |c| c.rate_limit_per_minute = 10).await;
    let (mut unauthorized, mut limited) = (0, 0);
    for i in 0..100 {
        let made_up = format!("csk_made_up_{i:04}");
        let response = app.client.get(app.url("/v1/projects")).header("X-API-Key", made_up).send().await.unwrap();
        match response.status().as_u16() {
            401 => unauthorized += 1,
            429 => limited += 1,
            other => panic!("a made-up key got {other}"),
        }
    }
    // Each 401 is one key looked up in the database: no more than the address's budget.
    assert!(unauthorized <= 10, "{unauthorized} lookups for 100 made-up keys");
    assert_eq!(unauthorized + limited, 100);
    // The app's key existed when the service started: it has a budget of its own from its first
    // request, though the flood spent its address's.
    assert_eq!(app.get("/v1/projects").await.status(), 200, "a key in use is not held out by the flood");
    // Audio links carry no key: a flood of made-up ones is held to the same address's budget,
    // which the flood above has spent.
    let mut statuses = Vec::new();
    for _ in 0..5 {
        statuses.push(app.client.get(app.url("/audio/v1.made.up")).send().await.unwrap().status().as_u16());
    }
    // The budget refills a request every six seconds: one may have come back meanwhile.
    assert!(statuses.iter().filter(|&&s| s == 429).count() >= 4 && statuses.iter().all(|&s| s == 429 || s == 401), "{statuses:?}");
    // Other routes without a key are refused before any lookup, and not counted.
    assert_problem(app.client.get(app.url("/v1/projects")).send().await.unwrap(), 401, "unauthorized").await;
}

async fn a_rate_limit_of_zero_is_off(backend: Backend) {
    let app = spawn_app_with(backend, |c| c.rate_limit_per_minute = 0).await;
    for _ in 0..50 {
        assert_eq!(app.get("/v1/projects").await.status(), 200);
    }
}

async fn shutdown_lets_requests_in_flight_finish(backend: Backend) {
    let mut app = spawn_app(backend).await;
    // A request whose body is still arriving when shutdown starts.
    let (tx, rx) = tokio::sync::mpsc::channel::<Result<&'static str, std::io::Error>>(4);
    let body = reqwest::Body::wrap_stream(tokio_stream(rx));
    let request = app.request(reqwest::Method::POST, "/v1/projects").header("content-type", "application/json").body(body).send();
    let in_flight = tokio::spawn(request);
    tx.send(Ok("{\"name\": ")).await.unwrap();
    tokio::time::sleep(Duration::from_millis(200)).await;

    let shutdown = tokio::spawn({
        let stop = app.stop_signal();
        async move { stop() }
    });
    shutdown.await.unwrap();
    tokio::time::sleep(Duration::from_millis(200)).await;
    tx.send(Ok("\"late\"}")).await.unwrap();
    drop(tx);

    let response = in_flight.await.unwrap().expect("the request in flight is answered");
    assert_eq!(response.status(), 201);
    app.stop().await.expect("the server stops cleanly");
    assert!(app.client.get(app.url("/healthz")).send().await.is_err(), "no new connections after shutdown");
}

fn tokio_stream<T: Send + 'static>(mut rx: tokio::sync::mpsc::Receiver<T>) -> impl futures::Stream<Item = T> + Send + 'static {
    futures::stream::poll_fn(move |cx| rx.poll_recv(cx)).boxed()
}

/// Statuses of `n` requests with made-up keys from `client`, as a proxy forwards them.
async fn made_up_keys_from(app: &TestApp, client: &str, n: usize) -> Vec<u16> {
    let mut statuses = Vec::new();
    for i in 0..n {
        let request = app.client.get(app.url("/v1/projects")).header("X-API-Key", format!("csk_made_up_{i}")).header("X-Forwarded-For", client);
        statuses.push(request.send().await.unwrap().status().as_u16());
    }
    statuses
}

async fn behind_a_trusted_proxy_each_forwarded_client_has_its_own_budget(backend: Backend) {
    // The tests' requests come from 127.0.0.1: here, the proxy.
    let app = spawn_app_with(backend, |c| {
        c.rate_limit_per_minute = 3;
        c.trusted_proxies = "127.0.0.1".into();
    })
    .await;
    assert_eq!(made_up_keys_from(&app, "203.0.113.9", 4).await, [401, 401, 401, 429], "one flooding client spends its own budget");
    assert_eq!(made_up_keys_from(&app, "198.51.100.4", 1).await, [401], "and no one else's");

    // Without the setting the header is anyone's to write, and counts for nothing.
    let app = spawn_app_with(backend, |c| c.rate_limit_per_minute = 3).await;
    assert_eq!(made_up_keys_from(&app, "203.0.113.9", 3).await, [401, 401, 401]);
    assert_eq!(made_up_keys_from(&app, "198.51.100.4", 1).await, [429], "the peer's address counts");
}

async fn a_request_not_answered_within_its_time_limit_is_503(backend: Backend) {
    use sqlx::Connection;
    let app = spawn_app_with(backend, |c| c.request_timeout_seconds = 1).await;
    // Another client holds the projects table for writing, so that creating a project waits.
    let release = match backend {
        Backend::Sqlite => {
            let mut holder = sqlx::SqliteConnection::connect(app.db.url()).await.unwrap();
            sqlx::query("begin immediate").execute(&mut holder).await.unwrap();
            Box::new(move || drop(holder)) as Box<dyn FnOnce()>
        }
        Backend::Postgres => {
            let mut holder = sqlx::PgConnection::connect(app.db.url()).await.unwrap();
            sqlx::query("begin").execute(&mut holder).await.unwrap();
            sqlx::query("lock table projects in exclusive mode").execute(&mut holder).await.unwrap();
            Box::new(move || drop(holder)) as Box<dyn FnOnce()>
        }
    };
    let started = std::time::Instant::now();
    let waited = app.post_json("/v1/projects", &serde_json::json!({"name": "Late"})).await;
    assert!(started.elapsed() < Duration::from_secs(5), "answered at its limit, not the database's: {:?}", started.elapsed());
    assert!(waited.headers().contains_key("retry-after"));
    let problem = assert_problem(waited, 503, "unavailable").await;
    assert!(problem["detail"].as_str().unwrap().contains("not answered within 1 s"), "{problem}");
    release();
    assert_eq!(app.post_json("/v1/projects", &serde_json::json!({"name": "On time"})).await.status(), 201, "the next one is answered");
}
