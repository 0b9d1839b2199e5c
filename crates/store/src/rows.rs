//! Rows as the database returns them, and their conversion to domain types. Shared by both
//! backends: `FromRow` is derived generically and each backend decodes its own column types.

use callscope_domain::{ApiKey, Organization, Principal, Project, Timestamp};
use uuid::Uuid;

use crate::{parse_stored, StoreResult};

#[derive(sqlx::FromRow)]
pub(crate) struct OrganizationRow {
    pub id: Uuid,
    pub name: String,
    pub created_at: Timestamp,
}

impl From<OrganizationRow> for Organization {
    fn from(r: OrganizationRow) -> Self {
        Organization { id: r.id.into(), name: r.name, created_at: r.created_at }
    }
}

#[derive(sqlx::FromRow)]
pub(crate) struct ApiKeyRow {
    pub id: Uuid,
    pub organization_id: Uuid,
    pub name: String,
    pub created_at: Timestamp,
    pub revoked_at: Option<Timestamp>,
}

impl From<ApiKeyRow> for ApiKey {
    fn from(r: ApiKeyRow) -> Self {
        ApiKey {
            id: r.id.into(),
            org_id: r.organization_id.into(),
            name: r.name,
            created_at: r.created_at,
            revoked_at: r.revoked_at,
        }
    }
}

#[derive(sqlx::FromRow)]
pub(crate) struct PrincipalRow {
    pub id: Uuid,
    pub organization_id: Uuid,
}

impl From<PrincipalRow> for Principal {
    fn from(r: PrincipalRow) -> Self {
        Principal { org_id: r.organization_id.into(), key_id: r.id.into() }
    }
}

#[derive(sqlx::FromRow)]
pub(crate) struct ProjectRow {
    pub id: Uuid,
    pub organization_id: Uuid,
    pub name: String,
    pub description: Option<String>,
    pub default_language: String,
    pub pii_redaction: String,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
}

impl ProjectRow {
    pub fn into_domain(self) -> StoreResult<Project> {
        Ok(Project {
            id: self.id.into(),
            org_id: self.organization_id.into(),
            name: self.name,
            description: self.description,
            default_language: parse_stored("projects.default_language", &self.default_language)?,
            pii_redaction: parse_stored("projects.pii_redaction", &self.pii_redaction)?,
            created_at: self.created_at,
            updated_at: self.updated_at,
        })
    }
}

pub(crate) const PROJECT_COLUMNS: &str =
    "id, organization_id, name, description, default_language, pii_redaction, created_at, updated_at";
