//! Rows as the database returns them, and their conversion to domain types. Shared by both
//! backends: `FromRow` is derived generically and each backend decodes its own column types.

use callscope_domain::{AnalysisTemplate, ApiKey, Category, Job, Organization, Principal, Project, SpeakerPreset, TemplateField, Timestamp, Webhook};
use sqlx::types::Json;
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
        ApiKey { id: r.id.into(), org_id: r.organization_id.into(), name: r.name, created_at: r.created_at, revoked_at: r.revoked_at }
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
    pub time_zone: String,
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
            time_zone: parse_stored("projects.time_zone", &self.time_zone)?,
            created_at: self.created_at,
            updated_at: self.updated_at,
        })
    }
}

pub(crate) const PROJECT_COLUMNS: &str = "id, organization_id, name, description, default_language, pii_redaction, created_at, updated_at, time_zone";

#[derive(sqlx::FromRow, Clone)]
pub(crate) struct CategoryRow {
    pub id: Uuid,
    pub project_id: Uuid,
    pub taxonomy_id: Uuid,
    pub parent_id: Option<Uuid>,
    pub name: String,
    pub description: Option<String>,
    pub display_order: i32,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
}

impl From<CategoryRow> for Category {
    fn from(r: CategoryRow) -> Self {
        Category {
            id: r.id.into(),
            project_id: r.project_id.into(),
            taxonomy_id: r.taxonomy_id.into(),
            parent_id: r.parent_id.map(Into::into),
            name: r.name,
            description: r.description,
            display_order: r.display_order,
            created_at: r.created_at,
            updated_at: r.updated_at,
        }
    }
}

pub(crate) const CATEGORY_COLUMNS: &str = "id, project_id, taxonomy_id, parent_id, name, description, display_order, created_at, updated_at";

#[derive(sqlx::FromRow)]
pub(crate) struct PresetRow {
    pub id: Uuid,
    pub project_id: Uuid,
    pub name: String,
    pub speakers: Json<Vec<String>>,
    pub is_default: bool,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
}

impl From<PresetRow> for SpeakerPreset {
    fn from(r: PresetRow) -> Self {
        SpeakerPreset {
            id: r.id.into(),
            project_id: r.project_id.into(),
            name: r.name,
            speakers: r.speakers.0,
            is_default: r.is_default,
            created_at: r.created_at,
            updated_at: r.updated_at,
        }
    }
}

pub(crate) const PRESET_COLUMNS: &str = "id, project_id, name, speakers, is_default, created_at, updated_at";

#[derive(sqlx::FromRow)]
pub(crate) struct TemplateRow {
    pub id: Uuid,
    pub project_id: Uuid,
    pub user_id: Uuid,
    pub name: String,
    pub description: Option<String>,
    pub is_active: bool,
    pub fields: Json<Vec<TemplateField>>,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
}

impl From<TemplateRow> for AnalysisTemplate {
    fn from(r: TemplateRow) -> Self {
        AnalysisTemplate {
            id: r.id.into(),
            project_id: r.project_id.into(),
            user_id: r.user_id.into(),
            name: r.name,
            description: r.description,
            is_active: r.is_active,
            fields: r.fields.0,
            created_at: r.created_at,
            updated_at: r.updated_at,
        }
    }
}

pub(crate) const TEMPLATE_COLUMNS: &str = "id, project_id, user_id, name, description, is_active, fields, created_at, updated_at";

#[derive(sqlx::FromRow)]
pub(crate) struct WebhookRow {
    pub id: Uuid,
    pub project_id: Uuid,
    pub url: String,
    pub events: Json<Vec<String>>,
    pub active: bool,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
}

impl From<WebhookRow> for Webhook {
    fn from(r: WebhookRow) -> Self {
        Webhook {
            id: r.id.into(),
            project_id: r.project_id.into(),
            url: r.url,
            events: r.events.0,
            active: r.active,
            created_at: r.created_at,
            updated_at: r.updated_at,
        }
    }
}

pub(crate) const WEBHOOK_COLUMNS: &str = "id, project_id, url, events, active, created_at, updated_at";

#[derive(sqlx::FromRow)]
pub(crate) struct JobRow {
    pub id: Uuid,
    pub project_id: Uuid,
    pub kind: String,
    pub template_id: Option<Uuid>,
    pub status: String,
    pub stage: String,
    pub progress: f64,
    pub attempts: i32,
    pub error_message: Option<String>,
    pub original_filename: String,
    pub content_type: String,
    pub size_bytes: i64,
    pub sha256: String,
    pub storage_path: String,
    pub language: String,
    pub channel_roles: Option<Json<Vec<String>>>,
    pub recorded_at: Option<Timestamp>,
    pub transcript_id: Option<Uuid>,
    pub submitted_at: Timestamp,
    pub started_at: Option<Timestamp>,
    pub completed_at: Option<Timestamp>,
    pub updated_at: Timestamp,
}

impl JobRow {
    pub fn into_domain(self) -> StoreResult<Job> {
        Ok(Job {
            id: self.id.into(),
            project_id: self.project_id.into(),
            kind: parse_stored("jobs.kind", &self.kind)?,
            template_id: self.template_id.map(callscope_domain::TemplateId),
            status: parse_stored("jobs.status", &self.status)?,
            stage: parse_stored("jobs.stage", &self.stage)?,
            progress: self.progress,
            attempts: self.attempts,
            error_message: self.error_message,
            original_filename: self.original_filename,
            content_type: self.content_type,
            size_bytes: self.size_bytes,
            sha256: self.sha256,
            storage_path: self.storage_path,
            language: parse_stored("jobs.language", &self.language)?,
            channel_roles: self.channel_roles.map(|r| r.0),
            recorded_at: self.recorded_at,
            transcript_id: self.transcript_id.map(Into::into),
            submitted_at: self.submitted_at,
            started_at: self.started_at,
            completed_at: self.completed_at,
            updated_at: self.updated_at,
        })
    }
}

pub(crate) const JOB_COLUMNS: &str = "id, project_id, kind, template_id, status, stage, progress, attempts, error_message, \
    original_filename, content_type, size_bytes, sha256, storage_path, language, channel_roles, recorded_at, \
    transcript_id, submitted_at, started_at, completed_at, updated_at";

/// A call as lists show it: [`CallSummary`](callscope_domain::CallSummary)'s columns.
#[derive(sqlx::FromRow)]
pub(crate) struct CallSummaryRow {
    pub id: Uuid,
    pub project_id: Uuid,
    pub filename: String,
    pub language: String,
    pub size_bytes: i64,
    pub duration_s: Option<f64>,
    pub sentiment_level: String,
    pub primary_category: Option<String>,
    pub action_items_count: i64,
    pub created_at: Timestamp,
    pub recorded_at: Option<Timestamp>,
    pub updated_at: Timestamp,
    pub title: Option<String>,
    pub storage_path: String,
    pub non_talk_ms: Option<i64>,
    pub longest_non_talk_ms: Option<i64>,
    pub music_ms: Option<i64>,
    pub interruption_count: Option<i64>,
    pub words_per_minute: Option<f64>,
    /// The labels of the rules the call matched, in order, joined by `LABEL_SEPARATOR`.
    pub rule_labels: Option<String>,
}
