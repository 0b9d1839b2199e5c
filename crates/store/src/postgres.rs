//! The PostgreSQL backend, for deployments with several worker processes or much data.

use std::sync::Arc;
use std::time::Duration;

use callscope_domain::Clock;
use sqlx::postgres::PgPoolOptions;

use crate::{Backend, StoreOptions, StoreResult};

type Db = sqlx::Postgres;
const BACKEND: Backend = Backend::Postgres;
/// Two processes starting on one empty database must not both create the default
/// organization; a transaction-scoped advisory lock serialises them.
const BOOTSTRAP_LOCK: Option<&str> = Some("select pg_advisory_xact_lock(7361601)");
/// Claims skip rows another worker's transaction holds instead of waiting for them.
/// The job claim's query joins the job `j` to its project: only the job is locked.
const CLAIM_LOCK: &str = "for update of j skip locked";
/// Reads that must hold their row until the transaction ends.
const ROW_LOCK: &str = "for update";
/// Holds a row against other writers that take it so, without blocking the inserts that only
/// reference it (their foreign-key check takes a key-share lock).
const NO_KEY_LOCK: &str = "for no key update";
/// The labels of the rules a call (`c`) matched, in order, joined by the unit separator.
const RULE_LABELS: &str = "(select string_agg(label, chr(31) order by label) from rule_matches m where m.call_id = c.id)";

include!("sql/all.rs");

pub(crate) async fn connect(options: &StoreOptions, clock: Arc<dyn Clock>) -> StoreResult<SqlStore> {
    let pool =
        PgPoolOptions::new().max_connections(options.max_connections.max(1)).acquire_timeout(Duration::from_secs(5)).connect(&options.url).await?;
    Ok(SqlStore::new(pool, clock))
}
