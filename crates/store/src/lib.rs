//! Persistence behind one trait, [`Store`], with two backends: SQLite (the embedded default, a
//! file in the data directory) and PostgreSQL (for several processes and large deployments).
//!
//! Both backends run the same SQL, written once in `sql_common.rs` and compiled for each
//! database's concrete types, so they cannot drift apart; each has its own migrations because
//! the schemas use each database's native types (uuid/timestamptz/jsonb on PostgreSQL).
//! Every tenant-facing method takes the [`OrgId`] first: no query can forget the tenant.

use std::str::FromStr;
use std::sync::Arc;

use async_trait::async_trait;
use callscope_domain::{
    ApiKey, ApiKeyId, Clock, KeyDigest, NewProject, OrgId, Organization, Page, PageRequest, Principal, Project,
    ProjectId, ProjectPatch,
};

mod postgres;
mod rows;
mod sqlite;

/// Result of every store operation.
pub type StoreResult<T> = Result<T, StoreError>;

/// Why a store operation failed.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// The database could not be reached or did not answer in time: worth retrying later.
    #[error("database unavailable: {0}")]
    Unavailable(#[source] sqlx::Error),
    /// A uniqueness rule was broken; the string names the constraint when the database told.
    #[error("conflicts with an existing row ({0})")]
    Conflict(String),
    /// The database URL is not one this build understands.
    #[error("unsupported database URL: {0}")]
    BadUrl(String),
    /// Applying migrations failed.
    #[error("migration failed: {0}")]
    Migrate(#[from] sqlx::migrate::MigrateError),
    /// A stored value this build cannot read (e.g. an enum value from a newer version).
    #[error("unreadable stored value: {0}")]
    Corrupt(String),
    /// Any other database error: a bug or a broken database.
    #[error("database error: {0}")]
    Other(#[source] sqlx::Error),
}

impl From<sqlx::Error> for StoreError {
    fn from(err: sqlx::Error) -> Self {
        match &err {
            sqlx::Error::PoolTimedOut
            | sqlx::Error::PoolClosed
            | sqlx::Error::Io(_)
            | sqlx::Error::Tls(_)
            | sqlx::Error::WorkerCrashed => StoreError::Unavailable(err),
            sqlx::Error::Database(db) if db.is_unique_violation() => {
                StoreError::Conflict(db.constraint().unwrap_or("unique").to_owned())
            }
            _ => StoreError::Other(err),
        }
    }
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
            _ => Err(StoreError::BadUrl(format!(
                "{scheme:?}: expected sqlite://… or postgres://…"
            ))),
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

/// Everything callscope keeps in its database. Each method is one transaction.
#[async_trait]
pub trait Store: Send + Sync + 'static {
    /// Which database this is.
    fn backend(&self) -> Backend;

    /// Applies pending migrations.
    async fn migrate(&self) -> StoreResult<()>;

    /// Answers when the database is reachable.
    async fn ping(&self) -> StoreResult<()>;

    /// Closes the pool, waiting for connections in use to come back.
    async fn close(&self);

    // --- organizations and keys (administration, not tenant-scoped) ---

    /// Creates an organization.
    async fn create_organization(&self, name: &str) -> StoreResult<Organization>;

    /// All organizations, oldest first.
    async fn list_organizations(&self) -> StoreResult<Vec<Organization>>;

    /// On an empty database only, creates organization `org_name` with one key; `None` when any
    /// organization already exists. Safe when several processes start at once.
    async fn bootstrap(
        &self,
        org_name: &str,
        key_name: &str,
        digest: &KeyDigest,
    ) -> StoreResult<Option<(Organization, ApiKey)>>;

    /// Stores a new key of `org`; `None` when there is no such organization.
    async fn create_api_key(&self, org: OrgId, name: &str, digest: &KeyDigest) -> StoreResult<Option<ApiKey>>;

    /// The organization's keys, oldest first (revoked ones too).
    async fn list_api_keys(&self, org: OrgId) -> StoreResult<Vec<ApiKey>>;

    /// Revokes a key; revoking twice keeps the first time. `None` when there is no such key.
    async fn revoke_api_key(&self, id: ApiKeyId) -> StoreResult<Option<ApiKey>>;

    /// The principal of a valid (known, not revoked) key.
    async fn authenticate(&self, digest: &KeyDigest) -> StoreResult<Option<Principal>>;

    // --- projects ---

    /// Creates a project in `org`.
    async fn create_project(&self, org: OrgId, new: &NewProject) -> StoreResult<Project>;

    /// One project of `org`; `None` when it does not exist there.
    async fn get_project(&self, org: OrgId, id: ProjectId) -> StoreResult<Option<Project>>;

    /// The organization's projects, newest first.
    async fn list_projects(&self, org: OrgId, page: PageRequest) -> StoreResult<Page<Project>>;

    /// Applies a patch; `None` when the project does not exist in `org`.
    async fn update_project(&self, org: OrgId, id: ProjectId, patch: &ProjectPatch) -> StoreResult<Option<Project>>;
}

fn parse_stored<T: FromStr>(column: &str, value: &str) -> StoreResult<T> {
    value.parse().map_err(|_| StoreError::Corrupt(format!("{column} = {value:?}")))
}

#[cfg(feature = "testing")]
pub mod testing;
