//! Black-box tests of the HTTP API: a real server on a loopback port, a real database per test
//! (SQLite and PostgreSQL), requests over HTTP.

/// Runs each named `async fn(Backend)` once on SQLite and once on PostgreSQL.
macro_rules! both_backends {
    ($($test:ident),* $(,)?) => {$(
        mod $test {
            #[tokio::test]
            async fn sqlite() {
                super::$test(callscope_store::Backend::Sqlite).await
            }
            #[tokio::test]
            async fn postgres() {
                super::$test(callscope_store::Backend::Postgres).await
            }
        }
    )*};
}

mod helpers;

mod auth;
mod categories;
mod errors;
mod openapi;
mod presets;
mod templates;
mod webhooks;
mod ops;
mod projects;
mod tenancy;
