//! Databases for tests (feature `testing`): a SQLite file in a temporary directory, or a fresh
//! PostgreSQL database created on the server named by `CALLSCOPE_TEST_POSTGRES_URL` (default
//! `postgres://postgres@127.0.0.1:5432/postgres`) and dropped when the test ends.

use std::time::Duration;

/// Runs each named `async fn(Backend)` once on SQLite and once on PostgreSQL, as the tests
/// `NAME::sqlite` and `NAME::postgres`.
#[macro_export]
macro_rules! both_backends {
    ($($test:ident),* $(,)?) => {$(
        mod $test {
            #[tokio::test]
            async fn sqlite() {
                super::$test($crate::Backend::Sqlite).await
            }
            #[tokio::test]
            async fn postgres() {
                super::$test($crate::Backend::Postgres).await
            }
        }
    )*};
}

use sqlx::Connection;

use crate::Backend;

/// Server on which test databases are created when `CALLSCOPE_TEST_POSTGRES_URL` is not set.
pub const DEFAULT_POSTGRES_URL: &str = "postgres://postgres@127.0.0.1:5432/postgres";

/// A database that exists for one test.
pub struct TestDatabase {
    url: String,
    backend: Backend,
    dir: tempfile::TempDir,
    postgres: Option<(String, String)>, // (admin url, database name)
}

impl TestDatabase {
    /// A new, empty database of the given backend.
    ///
    /// # Panics
    /// When PostgreSQL is asked for and cannot be reached: the test suite needs it (the
    /// project's test script starts one).
    pub async fn new(backend: Backend) -> Self {
        let dir = tempfile::tempdir().expect("temporary directory");
        match backend {
            Backend::Sqlite => {
                let url = format!("sqlite://{}", dir.path().join("callscope.db").display());
                Self { url, backend, dir, postgres: None }
            }
            Backend::Postgres => {
                let admin = std::env::var("CALLSCOPE_TEST_POSTGRES_URL").unwrap_or_else(|_| DEFAULT_POSTGRES_URL.into());
                let name = format!("callscope_test_{}", uuid::Uuid::now_v7().simple());
                let mut conn = sqlx::PgConnection::connect(&admin).await.unwrap_or_else(|e| {
                    panic!("PostgreSQL for tests is not reachable at {admin} ({e}); run ./scripts/test, or set CALLSCOPE_TEST_POSTGRES_URL")
                });
                sqlx::query(&format!("create database {name}")).execute(&mut conn).await.expect("create test database");
                conn.close().await.ok();
                let mut url = url::Url::parse(&admin).expect("CALLSCOPE_TEST_POSTGRES_URL is a URL");
                url.set_path(&name);
                Self { url: url.into(), backend, dir, postgres: Some((admin, name)) }
            }
        }
    }

    /// Connection URL of the database.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// Its backend.
    pub fn backend(&self) -> Backend {
        self.backend
    }

    /// A scratch directory that lives as long as the database.
    pub fn dir(&self) -> &std::path::Path {
        self.dir.path()
    }
}

impl Drop for TestDatabase {
    fn drop(&mut self) {
        let Some((admin, name)) = self.postgres.take() else { return };
        // Drop runs inside a test's runtime, which must not block; a thread with its own small
        // runtime removes the database (forcefully: pools may still hold connections).
        let done = std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("runtime");
            runtime.block_on(async {
                if let Ok(mut conn) = sqlx::PgConnection::connect(&admin).await {
                    let _ = sqlx::query(&format!("drop database if exists {name} with (force)")).execute(&mut conn).await;
                }
            });
        });
        let deadline = std::time::Instant::now() + Duration::from_secs(10);
        while !done.is_finished() && std::time::Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(10));
        }
    }
}

/// A call with the given text, as the pipeline would store it: one speaker turn per line of
/// `transcript`, a title, and a summary whose executive summary is `summary`.
pub fn text_call(language: callscope_domain::Language, title: &str, transcript: &str, summary: &str) -> crate::NewCall {
    let turns: Vec<callscope_domain::Turn> = transcript
        .lines()
        .enumerate()
        .map(|(i, line)| callscope_domain::Turn {
            speaker_id: format!("speaker_{}", i % 2 + 1),
            text: line.to_owned(),
            start_ms: i64::try_from(i).unwrap_or(0) * 5_000,
            end_ms: i64::try_from(i).unwrap_or(0) * 5_000 + 4_500,
        })
        .collect();
    let id = callscope_domain::CallId::new();
    crate::NewCall {
        id,
        filename: format!("{id}.wav"),
        language,
        size_bytes: 64_000,
        duration_s: turns.len() as f64 * 5.0,
        storage_path: format!("test/{id}.wav"),
        sha256: id.0.simple().to_string(),
        content_type: "audio/wav".into(),
        sample_rate: 8_000,
        channels: 2,
        codec: "pcm_s16le".into(),
        recorded_at: None,
        created_at: callscope_domain::Clock::now(&callscope_domain::SystemClock),
        transcript: callscope_domain::CallTranscript { full_text: transcript.to_owned(), turns, ..callscope_domain::CallTranscript::default() },
        analysis: Some(crate::CallAnalysisRecord {
            title: Some(title.to_owned()),
            sentiment_level: callscope_domain::SentimentLevel::Neutral,
            summary: Some(summary_saying(summary)),
            ..crate::CallAnalysisRecord::default()
        }),
    }
}

/// A stored summary block that says `executive_summary` and little else (a neutral call).
pub fn summary_saying(executive_summary: &str) -> callscope_domain::StoredSummary {
    callscope_domain::StoredSummary {
        summary: callscope_domain::SummaryText { executive_summary: executive_summary.to_owned(), ..callscope_domain::SummaryText::default() },
        sentiment: callscope_domain::SentimentReading {
            overall_sentiment: callscope_domain::OverallSentiment::Neutral,
            sentiment_progression: String::new(),
            confidence: 0.5,
            evidence: String::new(),
            turn_scores: Vec::new(),
        },
        sentiment_level: callscope_domain::SentimentLevel::Neutral,
        model_used: "rules".into(),
    }
}

/// Stores `call` in `project` the way a worker does: an upload job is queued, claimed and
/// completed with it. Returns the call's id. No other job may be runnable (the claim takes the
/// oldest), so tests that use it run without workers.
///
/// # Panics
/// When the store refuses: a test database is expected to work.
pub async fn store_call(store: &dyn crate::Store, project: callscope_domain::ProjectId, call: &crate::NewCall) -> callscope_domain::CallId {
    let job = callscope_domain::NewJob {
        id: callscope_domain::JobId::new(),
        original_filename: call.filename.clone(),
        content_type: call.content_type.clone(),
        size_bytes: call.size_bytes,
        sha256: call.sha256.clone(),
        storage_path: call.storage_path.clone(),
        language: call.language,
        channel_roles: None,
        recorded_at: call.recorded_at,
    };
    let worker = format!("test-{}", job.id.0.simple());
    store.create_job(project, &job).await.expect("job queued");
    let claimed = store.claim_job(&worker, Duration::from_secs(60)).await.expect("claim").expect("the job just queued");
    assert!(store.complete_job(claimed.id, &worker, call, &[]).await.expect("complete"), "the job completes");
    call.id
}
