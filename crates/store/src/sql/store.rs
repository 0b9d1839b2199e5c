// The store's SQL, written once and compiled into both backend modules with `include!`: each
// includer defines `Db` (the sqlx database), `BACKEND`, `BOOTSTRAP_LOCK`, `CLAIM_LOCK`,
// `ROW_LOCK` and `NO_KEY_LOCK`, which are all the backends differ in, and then includes `sql/all.rs`:
// this file and one file per area (`sql/jobs.rs` for `JobStore`, and so on). Placeholders are `$N`, which
// both PostgreSQL and sqlx's SQLite driver understand. The imports below serve every area.

use std::collections::HashMap;

use async_trait::async_trait;
use callscope_domain::{
    insert_at, level_of, name_key, subtree_levels, would_cycle, CATEGORY_LEVELS_MAX, ActionItem, CallAudio, CallCharacteristics, CallFigures, CallSummary, CallText, CallTranscript, StoredAnalysis, Classification, StoredSummary, TemplateAnalysis, ActionItemView, WebhookDelivery, ActionItemId, NewActionItem, CategoryChange, Event, AnalysisTemplate, ApiKey, ApiKeyId, CallId, Category, CategoryId, CategoryMove, CategoryPatch,
    Job, JobId, JobKind, JobStage, JobStatus, KeyDigest, NewCategory, NewJob, NewProject, OrgId, Organization, Page, PageRequest, PiiSpan,
    PiiStatistics, PresetInput, SentimentLevel, Principal, Project, ProjectId, ProjectPatch, SpeakerPreset, SpeakerPresetId, SpeakerStats, TemplateId,
    TemplateInput, TimedWord, Timestamp, TranscriptQuality, Turn, Webhook, WebhookDeliveryId, WebhookId, Rule, RuleEvidence, RuleId,
    RuleInput, RuleMatch, Vocabulary,
};
use sqlx::types::Json;
use uuid::Uuid;

use crate::rows::{
    ApiKeyRow, CallSummaryRow, CategoryRow, JobRow, OrganizationRow, PresetRow, PrincipalRow, ProjectRow, TemplateRow, WebhookRow, CATEGORY_COLUMNS, JOB_COLUMNS,
    PRESET_COLUMNS, PROJECT_COLUMNS, TEMPLATE_COLUMNS, WEBHOOK_COLUMNS,
};
use crate::{
    action_item_keys, ActionItemList, ActionItemPatch, ActionItemQuery, ActionItemStore, CallAnalysisRecord, CallFilter, CallStore,
    JobStore, NewCall, Rejection, CategoryStore, PresetStore, RuleStore, RuleSweep, TemplateStore, VocabularyStore, Erasures, SearchDocument, SearchSyncStore, Store, StoreError,
    TenancyStore, WebhookStore,
};

type Tx<'a> = sqlx::Transaction<'a, Db>;

/// The store over one database pool.
pub struct SqlStore {
    pool: sqlx::Pool<Db>,
    clock: Arc<dyn Clock>,
    /// The action item list's index, per project (see `item_index`).
    items: crate::item_index::ItemIndex,
}

impl SqlStore {
    fn new(pool: sqlx::Pool<Db>, clock: Arc<dyn Clock>) -> Self {
        Self { pool, clock, items: crate::item_index::ItemIndex::new(crate::item_index::DEFAULT_CAPACITY) }
    }
}

#[async_trait]
impl Store for SqlStore {
    fn backend(&self) -> Backend {
        BACKEND
    }

    async fn migrate(&self) -> StoreResult<()> {
        crate::migrations::migrator(BACKEND).await?.run(&self.pool).await?;
        backfill_action_item_keys(&self.pool).await?;
        Ok(())
    }

    async fn ping(&self) -> StoreResult<()> {
        sqlx::query("select 1").execute(&self.pool).await?;
        Ok(())
    }

    async fn close(&self) {
        self.pool.close().await;
    }
}

/// Deletes one row of a project-scoped table.
async fn delete_scoped(
    pool: &sqlx::Pool<Db>,
    table: &'static str,
    project: ProjectId,
    id: Uuid,
    what: &'static str,
) -> StoreResult<()> {
    let done = sqlx::query(&format!("delete from {table} where id = $1 and project_id = $2"))
        .bind(id)
        .bind(project.0)
        .execute(pool)
        .await?;
    if done.rows_affected() == 0 {
        return Err(StoreError::NotFound(what));
    }
    Ok(())
}
