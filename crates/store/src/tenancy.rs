//! Organizations, their API keys and their projects: the tenancy every other area is scoped by.
//! Administration methods (organizations, keys) are not tenant-scoped; the others take the
//! [`OrgId`] first, so no query can forget the tenant.

use async_trait::async_trait;
use callscope_domain::{
    ApiKey, ApiKeyId, KeyDigest, NewProject, OrgId, Organization, Page, PageRequest, Principal, Project, ProjectId, ProjectPatch,
};

use crate::StoreResult;

/// Organizations, API keys and projects. The SQL is in `sql/tenancy.rs`.
#[async_trait]
pub trait TenancyStore: Send + Sync {
    /// Creates an organization.
    async fn create_organization(&self, name: &str) -> StoreResult<Organization>;

    /// All organizations, oldest first.
    async fn list_organizations(&self) -> StoreResult<Vec<Organization>>;

    /// On an empty database only, creates organization `org_name` with one key; `None` when any
    /// organization already exists. Safe when several processes start at once.
    async fn bootstrap(&self, org_name: &str, key_name: &str, digest: &KeyDigest) -> StoreResult<Option<(Organization, ApiKey)>>;

    /// Stores a new key of `org`; `None` when there is no such organization.
    async fn create_api_key(&self, org: OrgId, name: &str, digest: &KeyDigest) -> StoreResult<Option<ApiKey>>;

    /// The organization's keys, oldest first (revoked ones too).
    async fn list_api_keys(&self, org: OrgId) -> StoreResult<Vec<ApiKey>>;

    /// Revokes a key; revoking twice keeps the first time. `None` when there is no such key.
    async fn revoke_api_key(&self, id: ApiKeyId) -> StoreResult<Option<ApiKey>>;

    /// The principal of a valid (known, not revoked) key.
    async fn authenticate(&self, digest: &KeyDigest) -> StoreResult<Option<Principal>>;

    /// The organization and digest of a key that is not revoked, found by its id: what an audio
    /// link, signed with that digest, is checked against. `None` for unknown and revoked keys.
    async fn active_key_digest(&self, id: ApiKeyId) -> StoreResult<Option<(OrgId, KeyDigest)>>;

    /// The digests of every key not revoked, of every organization: what the rate limiter
    /// starts from to tell keys it may give budgets of their own.
    async fn active_key_digests(&self) -> StoreResult<Vec<KeyDigest>>;

    /// Creates a project in `org`.
    async fn create_project(&self, org: OrgId, new: &NewProject) -> StoreResult<Project>;

    /// One project of `org`; `None` when it does not exist there.
    async fn get_project(&self, org: OrgId, id: ProjectId) -> StoreResult<Option<Project>>;

    /// A project by id alone, for workers, which act for whichever organization owns the job.
    async fn project_of_job(&self, id: ProjectId) -> StoreResult<Option<Project>>;

    /// The organization's projects, newest first.
    async fn list_projects(&self, org: OrgId, page: PageRequest) -> StoreResult<Page<Project>>;

    /// Applies a patch; `None` when the project does not exist in `org`.
    async fn update_project(&self, org: OrgId, id: ProjectId, patch: &ProjectPatch) -> StoreResult<Option<Project>>;
}
