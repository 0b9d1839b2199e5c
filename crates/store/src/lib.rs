//! Persistence behind one trait, [`Store`], with two backends: SQLite (the embedded default, a
//! file in the data directory) and PostgreSQL (for several processes and large deployments).
//!
//! [`Store`] is the sum of one trait per area: [`TenancyStore`] (organizations, keys, projects),
//! [`CategoryStore`], [`PresetStore`], [`TemplateStore`], [`JobStore`], [`CallStore`],
//! [`ActionItemStore`], [`WebhookStore`] (webhooks, the event outbox, deliveries) and
//! [`SearchSyncStore`]. Each area's trait and records are in the module of its name
//! (`src/jobs.rs`), and its SQL in the file of that name under `src/sql/` (`src/sql/jobs.rs`).
//!
//! Both backends run the same SQL, written once under `src/sql/` and compiled for each
//! database's concrete types, so they cannot drift apart (what differs, a handful of locking
//! clauses, is at the top of `sqlite.rs` and `postgres.rs`). The schema is written once too:
//! each `.sql` file under `migrations/` is rendered for the backend's native types (uuid, timestamptz
//! and jsonb on PostgreSQL) by `migrations.rs`; what only one backend runs is marked off in the file.
//! Every tenant-facing method takes the `OrgId` first: no query can forget the tenant.

use std::str::FromStr;
use std::sync::Arc;

use async_trait::async_trait;
use callscope_domain::Clock;

mod action_items;
mod calls;
mod categories;
mod item_index;
mod jobs;
mod migrations;
mod postgres;
mod presets;
mod rows;
mod rules;
mod search_sync;
mod sqlite;
mod templates;
mod tenancy;
mod vocabulary;
mod webhooks;

pub use action_items::{action_item_keys, ActionItemList, ActionItemPatch, ActionItemQuery, ActionItemSort, ActionItemStore};
pub use calls::{CallFilter, CallSort, CallStore};
pub use categories::CategoryStore;
pub use jobs::{CallAnalysisRecord, JobStore, NewCall};
pub use presets::PresetStore;
pub use rules::{RuleStore, RuleSweep};
pub use search_sync::{Erasures, SearchDocument, SearchSyncStore};
pub use templates::TemplateStore;
pub use tenancy::TenancyStore;
pub use vocabulary::VocabularyStore;
pub use webhooks::{ClaimLimits, ClaimedDelivery, DeliveryAttempt, WebhookStore};

/// Result of every store operation.
pub type StoreResult<T> = Result<T, StoreError>;

/// Why a store operation failed.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    // The wrapped errors are shown in the message and not offered as `source()` as well, so
    // that a report walking the chain (anyhow's `{:#}`) names each cause once.
    /// The database could not be reached or did not answer in time: worth retrying later.
    #[error("database unavailable: {0}")]
    Unavailable(sqlx::Error),
    /// A uniqueness rule was broken; the string names the constraint when the database told.
    #[error("conflicts with an existing row ({0})")]
    Conflict(String),
    /// The database URL is not one this build understands.
    #[error("unsupported database URL: {0}")]
    BadUrl(String),
    /// Applying migrations failed.
    #[error("migration failed: {0}")]
    Migrate(sqlx::migrate::MigrateError),
    /// A stored value this build cannot read (e.g. an enum value from a newer version).
    #[error("unreadable stored value: {0}")]
    Corrupt(String),
    /// The thing named does not exist (in the project the request is scoped to).
    #[error("{0} not found")]
    NotFound(&'static str),
    /// The change breaks a rule that only the stored data can tell.
    #[error("{0}")]
    Rejected(Rejection),
    /// Any other database error: a bug or a broken database.
    #[error("database error: {0}")]
    Other(sqlx::Error),
}

impl From<sqlx::migrate::MigrateError> for StoreError {
    fn from(err: sqlx::migrate::MigrateError) -> Self {
        StoreError::Migrate(err)
    }
}

impl From<sqlx::Error> for StoreError {
    fn from(err: sqlx::Error) -> Self {
        match &err {
            sqlx::Error::PoolTimedOut | sqlx::Error::PoolClosed | sqlx::Error::Io(_) | sqlx::Error::Tls(_) | sqlx::Error::WorkerCrashed => {
                StoreError::Unavailable(err)
            }
            sqlx::Error::Database(db) if db.is_unique_violation() => StoreError::Conflict(db.constraint().unwrap_or("unique").to_owned()),
            sqlx::Error::Database(db)
                if db.code().is_some_and(|code| is_transient(&code, db.try_downcast_ref::<sqlx::postgres::PgDatabaseError>().is_some())) =>
            {
                StoreError::Unavailable(err)
            }
            _ => StoreError::Other(err),
        }
    }
}

/// Whether a database error code says "try again": PostgreSQL's connection exceptions (class 08),
/// serialization failures and deadlocks (40001, 40P01), lack of resources (class 53) and
/// shutdowns (57P01–57P03); SQLite's busy and locked (5 and 6, extended codes included).
fn is_transient(code: &str, postgres: bool) -> bool {
    if postgres {
        code.starts_with("08") || code.starts_with("53") || matches!(code, "40001" | "40P01" | "57P01" | "57P02" | "57P03")
    } else {
        code.parse::<u32>().is_ok_and(|sqlite| matches!(sqlite & 0xff, 5 | 6))
    }
}

/// A change refused because of what is already stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum Rejection {
    /// `parentId` is not a category of the project.
    #[error("parentId is not a category of this project")]
    ParentNotFound,
    /// A sibling has the same name, ignoring case.
    #[error("a sibling category has the same name")]
    DuplicateCategory,
    /// The move would put a category under itself or a descendant.
    #[error("a category cannot move under itself or its descendants")]
    CategoryCycle,
    /// The tree would have more than `CATEGORY_LEVELS_MAX` levels.
    #[error("the category tree would have more than {} levels", callscope_domain::CATEGORY_LEVELS_MAX)]
    TooDeep,
    /// `categoryId` is not a category of the project.
    #[error("categoryId is not a category of this project")]
    UnknownCategory,
    /// Items can be merged only with another item of the same call.
    #[error("into must be another action item of the same call")]
    MergeAcrossCalls,
    /// A `speakerId` that is not a speaker of the call.
    #[error("speakerId is not a speaker of this call")]
    UnknownSpeaker,
    /// Another rule of the project has the name, ignoring case.
    #[error("another rule of this project has the same name")]
    DuplicateRule,
    /// The project has as many rules as it may.
    #[error("the project has {} rules, as many as it may", callscope_domain::RULES_PER_PROJECT_MAX)]
    TooManyRules,
}

/// Which database a store talks to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backend {
    /// Embedded SQLite file.
    Sqlite,
    /// PostgreSQL server.
    Postgres,
}

impl Backend {
    /// `sqlite` or `postgres`.
    pub fn name(self) -> &'static str {
        match self {
            Backend::Sqlite => "sqlite",
            Backend::Postgres => "postgres",
        }
    }

    /// Picks the backend from a URL's scheme.
    ///
    /// # Errors
    /// [`StoreError::BadUrl`] for any other scheme.
    pub fn from_url(url: &str) -> StoreResult<Self> {
        let scheme = url.split(':').next().unwrap_or_default().to_ascii_lowercase();
        match scheme.as_str() {
            "sqlite" => Ok(Backend::Sqlite),
            "postgres" | "postgresql" => Ok(Backend::Postgres),
            _ => Err(StoreError::BadUrl(format!("{scheme:?}: expected sqlite://… or postgres://…"))),
        }
    }
}

/// How to reach the database.
#[derive(Debug, Clone)]
pub struct StoreOptions {
    /// `sqlite://path/to/file.db` or `postgres://user@host/db`.
    pub url: String,
    /// Connection pool size.
    pub max_connections: u32,
}

/// Opens a store for the URL's backend. Does not migrate: call [`Store::migrate`].
///
/// # Errors
/// A bad URL, or a database that cannot be reached.
pub async fn connect(options: &StoreOptions, clock: Arc<dyn Clock>) -> StoreResult<Arc<dyn Store>> {
    Ok(match Backend::from_url(&options.url)? {
        Backend::Sqlite => Arc::new(sqlite::connect(options, clock).await?),
        Backend::Postgres => Arc::new(postgres::connect(options, clock).await?),
    })
}

/// Everything callscope keeps in its database, one handle for all of its areas; each area's
/// methods are in its own trait (and its SQL in `sql/` under the same name). Each method is one
/// transaction.
#[async_trait]
pub trait Store:
    TenancyStore
    + CategoryStore
    + PresetStore
    + TemplateStore
    + RuleStore
    + VocabularyStore
    + JobStore
    + CallStore
    + ActionItemStore
    + WebhookStore
    + SearchSyncStore
    + Send
    + Sync
    + 'static
{
    /// Which database this is.
    fn backend(&self) -> Backend;

    /// Applies pending migrations.
    async fn migrate(&self) -> StoreResult<()>;

    /// Answers when the database is reachable.
    async fn ping(&self) -> StoreResult<()>;

    /// Closes the pool, waiting for connections in use to come back.
    async fn close(&self);
}

fn parse_stored<T: FromStr>(column: &str, value: &str) -> StoreResult<T> {
    value.parse().map_err(|_| StoreError::Corrupt(format!("{column} = {value:?}")))
}

#[cfg(feature = "testing")]
pub mod testing;

#[cfg(test)]
mod transient_tests {
    use super::is_transient;

    #[test]
    fn errors_worth_retrying_are_told_from_the_rest() {
        for code in ["08006", "08001", "40001", "40P01", "53300", "57P01"] {
            assert!(is_transient(code, true), "{code}");
        }
        for code in ["23505", "42703", "22P02", "57014"] {
            assert!(!is_transient(code, true), "{code}");
        }
        for code in ["5", "6", "517", "262"] {
            assert!(is_transient(code, false), "{code}");
        }
        for code in ["19", "2067", "1", "14"] {
            assert!(!is_transient(code, false), "{code}");
        }
    }
}
