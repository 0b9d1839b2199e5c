//! The embedded SQLite backend: one file, WAL journal so readers never wait for the writer,
//! commits synced to disk before they return, foreign keys on, a busy timeout so concurrent writers queue instead of failing, and a larger
//! page cache with memory-mapped reads.

use std::str::FromStr;
use std::sync::Arc;
use std::time::Duration;

use callscope_domain::Clock;
use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePoolOptions, SqliteSynchronous};

use crate::{Backend, StoreOptions, StoreResult};

type Db = sqlx::Sqlite;
const BACKEND: Backend = Backend::Sqlite;
/// SQLite lets one writer in at a time, and the bootstrap's first statement is a conditional
/// insert, so no extra lock is needed.
const BOOTSTRAP_LOCK: Option<&str> = None;
/// SQLite has one writer at a time, so the claiming UPDATE is atomic without row locks.
const CLAIM_LOCK: &str = "";
/// A writing transaction already holds the whole database.
const ROW_LOCK: &str = "";
/// Likewise.
const NO_KEY_LOCK: &str = "";
/// The labels of the rules a call (`c`) matched, in order, joined by the unit separator.
const RULE_LABELS: &str = "(select group_concat(label, char(31)) from (select label from rule_matches m where m.call_id = c.id order by label))";

include!("sql/all.rs");

pub(crate) async fn connect(options: &StoreOptions, clock: Arc<dyn Clock>) -> StoreResult<SqlStore> {
    let connect = SqliteConnectOptions::from_str(&options.url)
        .map_err(|e| StoreError::BadUrl(e.to_string()))?
        .create_if_missing(true)
        .journal_mode(SqliteJournalMode::Wal)
        // Each commit syncs the log: an upload answered 202 (its job row) and a finished call
        // survive a power cut. NORMAL would keep the file consistent but could lose the last
        // commits; the cost is one fsync per commit (measured in the README's Reliability).
        .synchronous(SqliteSynchronous::Full)
        .foreign_keys(true)
        .busy_timeout(Duration::from_secs(10))
        // A page cache of 32 MiB per connection and reads through mmap: the lists count over
        // indexes of a size SQLite's default 2 MiB cache does not hold at 100,000 calls.
        .pragma("cache_size", "-32768")
        .pragma("mmap_size", "1073741824");
    let pool = SqlitePoolOptions::new()
        .max_connections(options.max_connections.max(1))
        .acquire_timeout(Duration::from_secs(10))
        .connect_with(connect)
        .await?;
    Ok(SqlStore::new(pool, clock))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn every_connection_syncs_its_commits() {
        let dir = tempfile::tempdir().unwrap();
        let url = format!("sqlite://{}", dir.path().join("t.db").display());
        let store = connect(&StoreOptions { url, max_connections: 3 }, Arc::new(callscope_domain::SystemClock)).await.unwrap();
        for _ in 0..3 {
            let mut connection = store.pool.acquire().await.unwrap();
            let level: i64 = sqlx::query_scalar("PRAGMA synchronous").fetch_one(&mut *connection).await.unwrap();
            assert_eq!(level, 2, "FULL: a commit is on disk when it returns");
        }
    }
}
