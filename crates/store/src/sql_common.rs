// The store's SQL, written once and compiled into both backend modules with `include!`: each
// includer defines `Db` (the sqlx database), `BACKEND`, `BOOTSTRAP_LOCK` and `MIGRATOR`.
// Placeholders are `$N`, which both PostgreSQL and sqlx's SQLite driver understand.

use std::collections::HashMap;

use async_trait::async_trait;
use callscope_domain::{
    insert_at, name_key, would_cycle, AnalysisTemplate, ApiKey, ApiKeyId, Category, CategoryId, CategoryMove,
    CallId, CategoryPatch, Job, JobId, JobKind, JobStage, JobStatus, KeyDigest, NewJob, NewCategory, NewProject, OrgId, Organization, Page, PageRequest, PresetInput, Principal,
    Project, ProjectId, ProjectPatch, SpeakerPreset, SpeakerPresetId, TemplateId, TemplateInput, Timestamp, Webhook,
    WebhookDeliveryId, WebhookId,
};
use sqlx::types::Json;
use uuid::Uuid;

use crate::rows::{
    ApiKeyRow, CategoryRow, JobRow, OrganizationRow, PresetRow, PrincipalRow, ProjectRow, TemplateRow, WebhookRow,
    CATEGORY_COLUMNS, JOB_COLUMNS, PRESET_COLUMNS, PROJECT_COLUMNS, TEMPLATE_COLUMNS, WEBHOOK_COLUMNS,
};
use callscope_domain::{ActionItemId, PiiSpan, PiiStatistics, SpeakerStats, TimedWord, Turn};
use crate::{action_item_keys, ActionItem, ActionItemList, ActionItemPatch, ActionItemQuery, ACTION_ITEM_PRIORITIES, ACTION_ITEM_STATUSES, CallAnalysisRecord, CallAudio, CallSummary, SearchDocument, CallTranscript, NewCall, NewEvent, Rejection, Store, StoreError, StoredAnalysis};

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

    /// Brings the project's item index up to the database's change log: every item on first
    /// use, after that only the items changed since the version the index holds.
    async fn refresh_items(&self, project: Uuid, slot: &crate::item_index::Slot) -> StoreResult<()> {
        // Read before the items, so the items are at least this new; a change read early is
        // read again with the next version, and applying it twice is harmless.
        let version: Option<(i64,)> = sqlx::query_as("select version from action_item_versions where project_id = $1")
            .bind(project)
            .fetch_optional(&self.pool)
            .await?;
        let version = version.map_or(0, |(v,)| v);
        if slot.version().is_some_and(|held| held >= version) {
            return Ok(());
        }
        // One request at a time reads the changes; the others then find the index current.
        let _reading = slot.refresh.lock().await;
        let held = slot.version();
        if held.is_some_and(|held| held >= version) {
            return Ok(());
        }
        let columns = "a.call_id, a.status, a.priority, a.responsible_key, a.call_date, a.due_at, a.created_at, a.search_text";
        match held {
            None => {
                let started = std::time::Instant::now();
                let rows: Vec<IndexedItemRow> =
                    sqlx::query_as(&format!("select a.id as item_id, {columns} from action_items a where a.project_id = $1"))
                        .bind(project)
                        .fetch_all(&self.pool)
                        .await?;
                let items: Vec<_> = rows.into_iter().filter_map(|row| row.into_change().1).collect();
                tracing::info!(project = %project, items = items.len(), ms = started.elapsed().as_millis() as u64, "action item index read");
                slot.install(crate::item_index::ProjectItems::new(version, items));
                self.items.evict(project);
            }
            Some(held) => {
                let rows: Vec<IndexedItemRow> = sqlx::query_as(&format!(
                    "select c.item_id, {columns} from action_item_changes c \
                     left join action_items a on a.id = c.item_id and a.project_id = c.project_id \
                     where c.project_id = $1 and c.version > $2"
                ))
                .bind(project)
                .bind(held)
                .fetch_all(&self.pool)
                .await?;
                slot.apply(version, rows.into_iter().map(IndexedItemRow::into_change).collect());
            }
        }
        Ok(())
    }
}

/// An action item's columns the list index holds; all but the id are empty for a changed item
/// that was deleted.
#[derive(sqlx::FromRow)]
struct IndexedItemRow {
    item_id: Uuid,
    call_id: Option<Uuid>,
    status: Option<String>,
    priority: Option<String>,
    responsible_key: Option<String>,
    call_date: Option<Timestamp>,
    due_at: Option<Timestamp>,
    created_at: Option<Timestamp>,
    search_text: Option<String>,
}

impl IndexedItemRow {
    /// The item's id, and the item unless it was deleted.
    fn into_change(self) -> (Uuid, Option<crate::item_index::IndexedItem>) {
        let item = match (self.call_id, self.status, self.priority, self.call_date, self.created_at) {
            (Some(call_id), Some(status), Some(priority), Some(call_date), Some(created_at)) => Some(
                crate::item_index::IndexedItem::new(
                    self.item_id,
                    call_id,
                    &status,
                    &priority,
                    self.responsible_key,
                    call_date,
                    self.due_at,
                    created_at,
                    self.search_text,
                ),
            ),
            _ => None,
        };
        (self.item_id, item)
    }
}

#[async_trait]
impl Store for SqlStore {
    fn backend(&self) -> Backend {
        BACKEND
    }

    async fn migrate(&self) -> StoreResult<()> {
        MIGRATOR.run(&self.pool).await?;
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

    async fn create_organization(&self, name: &str) -> StoreResult<Organization> {
        let row: OrganizationRow = sqlx::query_as(
            "insert into organizations (id, name, created_at) values ($1, $2, $3) returning id, name, created_at",
        )
        .bind(Uuid::now_v7())
        .bind(name)
        .bind(self.clock.now())
        .fetch_one(&self.pool)
        .await?;
        Ok(row.into())
    }

    async fn list_organizations(&self) -> StoreResult<Vec<Organization>> {
        let rows: Vec<OrganizationRow> =
            sqlx::query_as("select id, name, created_at from organizations order by created_at, id")
                .fetch_all(&self.pool)
                .await?;
        Ok(rows.into_iter().map(Into::into).collect())
    }

    async fn bootstrap(
        &self,
        org_name: &str,
        key_name: &str,
        digest: &KeyDigest,
    ) -> StoreResult<Option<(Organization, ApiKey)>> {
        let now = self.clock.now();
        let mut tx = self.pool.begin().await?;
        if let Some(lock) = BOOTSTRAP_LOCK {
            sqlx::query(lock).execute(&mut *tx).await?;
        }
        let org: Option<OrganizationRow> = sqlx::query_as(
            "insert into organizations (id, name, created_at) select $1, $2, $3 \
             where not exists (select 1 from organizations) returning id, name, created_at",
        )
        .bind(Uuid::now_v7())
        .bind(org_name)
        .bind(now)
        .fetch_optional(&mut *tx)
        .await?;
        let Some(org) = org else {
            return Ok(None);
        };
        let key = insert_api_key(&mut tx, org.id, key_name, digest, now).await?;
        tx.commit().await?;
        Ok(Some((org.into(), key)))
    }

    async fn create_api_key(&self, org: OrgId, name: &str, digest: &KeyDigest) -> StoreResult<Option<ApiKey>> {
        let mut tx = self.pool.begin().await?;
        let exists: Option<(Uuid,)> = sqlx::query_as("select id from organizations where id = $1")
            .bind(org.0)
            .fetch_optional(&mut *tx)
            .await?;
        if exists.is_none() {
            return Ok(None);
        }
        let key = insert_api_key(&mut tx, org.0, name, digest, self.clock.now()).await?;
        tx.commit().await?;
        Ok(Some(key))
    }

    async fn list_api_keys(&self, org: OrgId) -> StoreResult<Vec<ApiKey>> {
        let rows: Vec<ApiKeyRow> = sqlx::query_as(
            "select id, organization_id, name, created_at, revoked_at from api_keys \
             where organization_id = $1 order by created_at, id",
        )
        .bind(org.0)
        .fetch_all(&self.pool)
        .await?;
        Ok(rows.into_iter().map(Into::into).collect())
    }

    async fn revoke_api_key(&self, id: ApiKeyId) -> StoreResult<Option<ApiKey>> {
        let row: Option<ApiKeyRow> = sqlx::query_as(
            "update api_keys set revoked_at = coalesce(revoked_at, $2) where id = $1 \
             returning id, organization_id, name, created_at, revoked_at",
        )
        .bind(id.0)
        .bind(self.clock.now())
        .fetch_optional(&self.pool)
        .await?;
        Ok(row.map(Into::into))
    }

    async fn authenticate(&self, digest: &KeyDigest) -> StoreResult<Option<Principal>> {
        let row: Option<PrincipalRow> = sqlx::query_as(
            "select id, organization_id from api_keys where key_hash = $1 and revoked_at is null",
        )
        .bind(digest.as_str())
        .fetch_optional(&self.pool)
        .await?;
        Ok(row.map(Into::into))
    }

    async fn active_key_digests(&self) -> StoreResult<Vec<KeyDigest>> {
        let rows: Vec<(String,)> =
            sqlx::query_as("select key_hash from api_keys where revoked_at is null").fetch_all(&self.pool).await?;
        Ok(rows.into_iter().map(|(digest,)| KeyDigest::from_hex(digest)).collect())
    }

    async fn create_project(&self, org: OrgId, new: &NewProject) -> StoreResult<Project> {
        let now = self.clock.now();
        let row: ProjectRow = sqlx::query_as(&format!(
            "insert into projects ({PROJECT_COLUMNS}) values ($1, $2, $3, $4, $5, $6, $7, $8) returning {PROJECT_COLUMNS}"
        ))
        .bind(ProjectId::new().0)
        .bind(org.0)
        .bind(&new.name)
        .bind(&new.description)
        .bind(new.default_language.as_str())
        .bind(new.pii_redaction.as_str())
        .bind(now)
        .bind(now)
        .fetch_one(&self.pool)
        .await?;
        row.into_domain()
    }

    async fn get_project(&self, org: OrgId, id: ProjectId) -> StoreResult<Option<Project>> {
        let row: Option<ProjectRow> = sqlx::query_as(&format!(
            "select {PROJECT_COLUMNS} from projects where id = $1 and organization_id = $2"
        ))
        .bind(id.0)
        .bind(org.0)
        .fetch_optional(&self.pool)
        .await?;
        row.map(ProjectRow::into_domain).transpose()
    }

    async fn project_of_job(&self, id: ProjectId) -> StoreResult<Option<Project>> {
        let row: Option<ProjectRow> = sqlx::query_as(&format!("select {PROJECT_COLUMNS} from projects where id = $1"))
            .bind(id.0)
            .fetch_optional(&self.pool)
            .await?;
        row.map(ProjectRow::into_domain).transpose()
    }

    async fn list_projects(&self, org: OrgId, page: PageRequest) -> StoreResult<Page<Project>> {
        let (total,): (i64,) = sqlx::query_as("select count(*) from projects where organization_id = $1")
            .bind(org.0)
            .fetch_one(&self.pool)
            .await?;
        let rows: Vec<ProjectRow> = sqlx::query_as(&format!(
            "select {PROJECT_COLUMNS} from projects where organization_id = $1 \
             order by created_at desc, id desc limit $2 offset $3"
        ))
        .bind(org.0)
        .bind(i64::from(page.page_size))
        .bind(i64::try_from(page.offset()).unwrap_or(i64::MAX))
        .fetch_all(&self.pool)
        .await?;
        let items = rows.into_iter().map(ProjectRow::into_domain).collect::<StoreResult<_>>()?;
        Ok(Page { items, total: u64::try_from(total).unwrap_or_default() })
    }

    async fn update_project(&self, org: OrgId, id: ProjectId, patch: &ProjectPatch) -> StoreResult<Option<Project>> {
        // One conditional UPDATE rather than read-modify-write: no lost update between two PATCHes
        // and no lock upgrade on SQLite.
        let row: Option<ProjectRow> = sqlx::query_as(&format!(
            "update projects set \
               name = coalesce($3, name), \
               description = case when $4 then $5 else description end, \
               default_language = coalesce($6, default_language), \
               pii_redaction = coalesce($7, pii_redaction), \
               updated_at = $8 \
             where id = $1 and organization_id = $2 returning {PROJECT_COLUMNS}"
        ))
        .bind(id.0)
        .bind(org.0)
        .bind(patch.name.as_deref())
        .bind(patch.description.is_some())
        .bind(patch.description.clone().flatten())
        .bind(patch.default_language.map(|l| l.as_str()))
        .bind(patch.pii_redaction.map(|p| p.as_str()))
        .bind(self.clock.now())
        .fetch_optional(&self.pool)
        .await?;
        row.map(ProjectRow::into_domain).transpose()
    }

    async fn list_categories(&self, project: ProjectId) -> StoreResult<Vec<Category>> {
        let mut conn = self.pool.acquire().await?;
        Ok(load_categories(&mut conn, project).await?.into_iter().map(Into::into).collect())
    }

    async fn category_call_counts(&self, project: ProjectId) -> StoreResult<HashMap<CategoryId, u64>> {
        let rows: Vec<(Uuid, i64)> = sqlx::query_as(
            "select primary_category_id, count(*) from calls \
             where project_id = $1 and primary_category_id is not null group by primary_category_id",
        )
        .bind(project.0)
        .fetch_all(&self.pool)
        .await?;
        Ok(rows.into_iter().map(|(id, n)| (id.into(), u64::try_from(n).unwrap_or_default())).collect())
    }

    async fn create_category(&self, project: ProjectId, new: &NewCategory) -> StoreResult<Category> {
        let now = self.clock.now();
        let mut tx = self.pool.begin().await?;
        let taxonomy = lock_taxonomy(&mut tx, project, now).await?;
        let all = load_categories(&mut tx, project).await?;
        if let Some(parent) = new.parent_id {
            if !all.iter().any(|c| c.id == parent.0) {
                return Err(StoreError::Rejected(Rejection::ParentNotFound));
            }
        }
        let parent = new.parent_id.map(|p| p.0);
        let siblings = siblings_of(&all, parent, None);
        let key = name_key(&new.name);
        if siblings.iter().any(|c| name_key(&c.name) == key) {
            return Err(StoreError::Rejected(Rejection::DuplicateCategory));
        }
        let id = CategoryId::new();
        let order = insert_at(&ids(&siblings), id, new.display_order);
        let position = order.iter().position(|&c| c == id).expect("inserted") as i32;
        renumber(&mut tx, &all, &order, id, now).await?;
        let row: CategoryRow = sqlx::query_as(&format!(
            "insert into categories ({CATEGORY_COLUMNS}, name_key) values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) \
             returning {CATEGORY_COLUMNS}"
        ))
        .bind(id.0)
        .bind(project.0)
        .bind(taxonomy)
        .bind(parent)
        .bind(&new.name)
        .bind(&new.description)
        .bind(position)
        .bind(now)
        .bind(now)
        .bind(&key)
        .fetch_one(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(row.into())
    }

    async fn update_category(&self, project: ProjectId, id: CategoryId, patch: &CategoryPatch) -> StoreResult<Category> {
        let now = self.clock.now();
        let mut tx = self.pool.begin().await?;
        lock_taxonomy(&mut tx, project, now).await?;
        let all = load_categories(&mut tx, project).await?;
        let node = all.iter().find(|c| c.id == id.0).ok_or(StoreError::NotFound("category"))?;
        if let Some(name) = &patch.name {
            let key = name_key(name);
            if siblings_of(&all, node.parent_id, Some(node.id)).iter().any(|c| name_key(&c.name) == key) {
                return Err(StoreError::Rejected(Rejection::DuplicateCategory));
            }
        }
        let name = patch.name.clone().unwrap_or_else(|| node.name.clone());
        let description = patch.description.clone().unwrap_or_else(|| node.description.clone());
        let row: CategoryRow = sqlx::query_as(&format!(
            "update categories set name = $2, name_key = $3, description = $4, updated_at = $5 \
             where id = $1 returning {CATEGORY_COLUMNS}"
        ))
        .bind(id.0)
        .bind(&name)
        .bind(name_key(&name))
        .bind(&description)
        .bind(now)
        .fetch_one(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(row.into())
    }

    async fn move_category(&self, project: ProjectId, id: CategoryId, to: &CategoryMove) -> StoreResult<Category> {
        let now = self.clock.now();
        let mut tx = self.pool.begin().await?;
        lock_taxonomy(&mut tx, project, now).await?;
        let all = load_categories(&mut tx, project).await?;
        let node = all.iter().find(|c| c.id == id.0).ok_or(StoreError::NotFound("category"))?.clone();
        let new_parent = to.parent_id.unwrap_or(node.parent_id.map(CategoryId)).map(|p| p.0);
        if let Some(parent) = new_parent.map(CategoryId) {
            if !all.iter().any(|c| c.id == parent.0) {
                return Err(StoreError::Rejected(Rejection::ParentNotFound));
            }
            let domain: Vec<Category> = all.iter().cloned().map(Into::into).collect();
            if would_cycle(&domain, id, parent) {
                return Err(StoreError::Rejected(Rejection::CategoryCycle));
            }
        }
        let new_siblings = siblings_of(&all, new_parent, Some(node.id));
        let key = name_key(&node.name);
        if new_siblings.iter().any(|c| name_key(&c.name) == key) {
            return Err(StoreError::Rejected(Rejection::DuplicateCategory));
        }
        // Close the gap the node leaves among its old siblings, open one among the new, place it.
        let old_siblings = ids(&siblings_of(&all, node.parent_id, Some(node.id)));
        let order = insert_at(&ids(&new_siblings), id, to.display_order);
        let position = order.iter().position(|&c| c == id).expect("inserted") as i32;
        if node.parent_id != new_parent {
            renumber(&mut tx, &all, &old_siblings, id, now).await?;
        }
        renumber(&mut tx, &all, &order, id, now).await?;
        let row: CategoryRow = sqlx::query_as(&format!(
            "update categories set parent_id = $2, display_order = $3, updated_at = $4 where id = $1 \
             returning {CATEGORY_COLUMNS}"
        ))
        .bind(id.0)
        .bind(new_parent)
        .bind(position)
        .bind(now)
        .fetch_one(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(row.into())
    }

    async fn delete_category(&self, project: ProjectId, id: CategoryId) -> StoreResult<()> {
        let now = self.clock.now();
        let mut tx = self.pool.begin().await?;
        lock_taxonomy(&mut tx, project, now).await?;
        let all = load_categories(&mut tx, project).await?;
        let node = all.iter().find(|c| c.id == id.0).ok_or(StoreError::NotFound("category"))?;
        // The node and everything under it.
        let tree: Vec<Category> = all.iter().cloned().map(Category::from).collect();
        let gone = callscope_domain::subtree(&tree, id).into_iter().map(|c| c.0).collect();
        uncategorize_calls(&mut tx, project, &gone, false, now).await?;
        // Descendants go with it (foreign key cascade).
        sqlx::query("delete from categories where id = $1").bind(id.0).execute(&mut *tx).await?;
        let remaining = ids(&siblings_of(&all, node.parent_id, Some(node.id)));
        renumber(&mut tx, &all, &remaining, id, now).await?;
        tx.commit().await?;
        Ok(())
    }

    async fn clear_categories(&self, project: ProjectId) -> StoreResult<()> {
        let now = self.clock.now();
        let mut tx = self.pool.begin().await?;
        lock_taxonomy(&mut tx, project, now).await?;
        let gone = load_categories(&mut tx, project).await?.into_iter().map(|c| c.id).collect();
        uncategorize_calls(&mut tx, project, &gone, true, now).await?;
        // Children before parents is not needed: the cascade removes whole subtrees.
        sqlx::query("delete from categories where project_id = $1 and parent_id is null")
            .bind(project.0)
            .execute(&mut *tx)
            .await?;
        sqlx::query("delete from taxonomies where project_id = $1").bind(project.0).execute(&mut *tx).await?;
        tx.commit().await?;
        Ok(())
    }

    async fn list_presets(&self, project: ProjectId) -> StoreResult<Vec<SpeakerPreset>> {
        let rows: Vec<PresetRow> =
            sqlx::query_as(&format!("select {PRESET_COLUMNS} from speaker_presets where project_id = $1"))
                .bind(project.0)
                .fetch_all(&self.pool)
                .await?;
        let mut presets: Vec<SpeakerPreset> = rows.into_iter().map(Into::into).collect();
        presets.sort_by(|a, b| (a.name.to_lowercase(), &a.name, a.id).cmp(&(b.name.to_lowercase(), &b.name, b.id)));
        Ok(presets)
    }

    async fn create_preset(&self, project: ProjectId, input: &PresetInput) -> StoreResult<SpeakerPreset> {
        let now = self.clock.now();
        let row: PresetRow = sqlx::query_as(&format!(
            "insert into speaker_presets ({PRESET_COLUMNS}) values ($1, $2, $3, $4, $5, $6, $7) returning {PRESET_COLUMNS}"
        ))
        .bind(SpeakerPresetId::new().0)
        .bind(project.0)
        .bind(input.name.as_deref().unwrap_or_default())
        .bind(Json(input.speakers.clone().unwrap_or_default()))
        .bind(false)
        .bind(now)
        .bind(now)
        .fetch_one(&self.pool)
        .await?;
        Ok(row.into())
    }

    async fn update_preset(&self, project: ProjectId, id: SpeakerPresetId, input: &PresetInput) -> StoreResult<SpeakerPreset> {
        let row: Option<PresetRow> = sqlx::query_as(&format!(
            "update speaker_presets set name = coalesce($3, name), speakers = case when $4 then $5 else speakers end, \
             updated_at = $6 where id = $1 and project_id = $2 returning {PRESET_COLUMNS}"
        ))
        .bind(id.0)
        .bind(project.0)
        .bind(input.name.as_deref())
        .bind(input.speakers.is_some())
        .bind(Json(input.speakers.clone().unwrap_or_default()))
        .bind(self.clock.now())
        .fetch_optional(&self.pool)
        .await?;
        row.map(Into::into).ok_or(StoreError::NotFound("speaker preset"))
    }

    async fn set_default_preset(&self, project: ProjectId, id: SpeakerPresetId) -> StoreResult<SpeakerPreset> {
        let now = self.clock.now();
        let mut tx = self.pool.begin().await?;
        // The old default steps down first: the partial unique index allows one at a time.
        sqlx::query(
            "update speaker_presets set is_default = $3, updated_at = $4 \
             where project_id = $1 and is_default and id <> $2",
        )
        .bind(project.0)
        .bind(id.0)
        .bind(false)
        .bind(now)
        .execute(&mut *tx)
        .await?;
        let row: Option<PresetRow> = sqlx::query_as(&format!(
            "update speaker_presets set is_default = $3, updated_at = $4 where id = $1 and project_id = $2 \
             returning {PRESET_COLUMNS}"
        ))
        .bind(id.0)
        .bind(project.0)
        .bind(true)
        .bind(now)
        .fetch_optional(&mut *tx)
        .await?;
        let row = row.ok_or(StoreError::NotFound("speaker preset"))?;
        tx.commit().await?;
        Ok(row.into())
    }

    async fn delete_preset(&self, project: ProjectId, id: SpeakerPresetId) -> StoreResult<()> {
        delete_scoped(&self.pool, "speaker_presets", project, id.0, "speaker preset").await
    }

    async fn list_templates(&self, project: ProjectId) -> StoreResult<Vec<AnalysisTemplate>> {
        let rows: Vec<TemplateRow> = sqlx::query_as(&format!(
            "select {TEMPLATE_COLUMNS} from analysis_templates where project_id = $1 order by created_at desc, id desc"
        ))
        .bind(project.0)
        .fetch_all(&self.pool)
        .await?;
        Ok(rows.into_iter().map(Into::into).collect())
    }

    async fn get_template(&self, project: ProjectId, id: TemplateId) -> StoreResult<AnalysisTemplate> {
        let row: Option<TemplateRow> = sqlx::query_as(&format!(
            "select {TEMPLATE_COLUMNS} from analysis_templates where id = $1 and project_id = $2"
        ))
        .bind(id.0)
        .bind(project.0)
        .fetch_optional(&self.pool)
        .await?;
        row.map(Into::into).ok_or(StoreError::NotFound("analysis template"))
    }

    async fn create_template(&self, project: ProjectId, user: ApiKeyId, input: &TemplateInput) -> StoreResult<AnalysisTemplate> {
        let now = self.clock.now();
        let id = TemplateId::new();
        let active = input.is_active.unwrap_or(false);
        let mut tx = self.pool.begin().await?;
        if active {
            deactivate_templates(&mut tx, project, id, now).await?;
        }
        let row: TemplateRow = sqlx::query_as(&format!(
            "insert into analysis_templates ({TEMPLATE_COLUMNS}) values ($1, $2, $3, $4, $5, $6, $7, $8, $9) \
             returning {TEMPLATE_COLUMNS}"
        ))
        .bind(id.0)
        .bind(project.0)
        .bind(user.0)
        .bind(&input.name)
        .bind(&input.description)
        .bind(active)
        .bind(Json(&input.fields))
        .bind(now)
        .bind(now)
        .fetch_one(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(row.into())
    }

    async fn replace_template(&self, project: ProjectId, id: TemplateId, input: &TemplateInput) -> StoreResult<AnalysisTemplate> {
        let now = self.clock.now();
        let mut tx = self.pool.begin().await?;
        if input.is_active == Some(true) {
            deactivate_templates(&mut tx, project, id, now).await?;
        }
        let row: Option<TemplateRow> = sqlx::query_as(&format!(
            "update analysis_templates set name = $3, description = $4, is_active = coalesce($5, is_active), \
             fields = $6, updated_at = $7 where id = $1 and project_id = $2 returning {TEMPLATE_COLUMNS}"
        ))
        .bind(id.0)
        .bind(project.0)
        .bind(&input.name)
        .bind(&input.description)
        .bind(input.is_active)
        .bind(Json(&input.fields))
        .bind(now)
        .fetch_optional(&mut *tx)
        .await?;
        let row = row.ok_or(StoreError::NotFound("analysis template"))?;
        tx.commit().await?;
        Ok(row.into())
    }

    async fn set_template_active(&self, project: ProjectId, id: TemplateId, active: bool) -> StoreResult<AnalysisTemplate> {
        let now = self.clock.now();
        let mut tx = self.pool.begin().await?;
        if active {
            deactivate_templates(&mut tx, project, id, now).await?;
        }
        let row: Option<TemplateRow> = sqlx::query_as(&format!(
            "update analysis_templates set is_active = $3, updated_at = $4 where id = $1 and project_id = $2 \
             returning {TEMPLATE_COLUMNS}"
        ))
        .bind(id.0)
        .bind(project.0)
        .bind(active)
        .bind(now)
        .fetch_optional(&mut *tx)
        .await?;
        let row = row.ok_or(StoreError::NotFound("analysis template"))?;
        tx.commit().await?;
        Ok(row.into())
    }

    async fn delete_template(&self, project: ProjectId, id: TemplateId) -> StoreResult<()> {
        delete_scoped(&self.pool, "analysis_templates", project, id.0, "analysis template").await
    }

    async fn create_webhook(&self, project: ProjectId, url: &str, events: &[String], secret: &str) -> StoreResult<Webhook> {
        let now = self.clock.now();
        let row: WebhookRow = sqlx::query_as(&format!(
            "insert into webhooks ({WEBHOOK_COLUMNS}, secret) values ($1, $2, $3, $4, $5, $6, $7, $8) \
             returning {WEBHOOK_COLUMNS}"
        ))
        .bind(WebhookId::new().0)
        .bind(project.0)
        .bind(url)
        .bind(Json(events))
        .bind(true)
        .bind(now)
        .bind(now)
        .bind(secret)
        .fetch_one(&self.pool)
        .await?;
        Ok(row.into())
    }

    async fn list_webhooks(&self, project: ProjectId) -> StoreResult<Vec<Webhook>> {
        let rows: Vec<WebhookRow> = sqlx::query_as(&format!(
            "select {WEBHOOK_COLUMNS} from webhooks where project_id = $1 order by created_at, id"
        ))
        .bind(project.0)
        .fetch_all(&self.pool)
        .await?;
        Ok(rows.into_iter().map(Into::into).collect())
    }

    async fn toggle_webhook(&self, project: ProjectId, id: WebhookId) -> StoreResult<Webhook> {
        let row: Option<WebhookRow> = sqlx::query_as(&format!(
            "update webhooks set active = not active, updated_at = $3 where id = $1 and project_id = $2 \
             returning {WEBHOOK_COLUMNS}"
        ))
        .bind(id.0)
        .bind(project.0)
        .bind(self.clock.now())
        .fetch_optional(&self.pool)
        .await?;
        row.map(Into::into).ok_or(StoreError::NotFound("webhook"))
    }

    async fn delete_webhook(&self, project: ProjectId, id: WebhookId) -> StoreResult<()> {
        delete_scoped(&self.pool, "webhooks", project, id.0, "webhook").await
    }

    async fn list_deliveries(&self, project: ProjectId, webhook: WebhookId, limit: u32) -> StoreResult<Vec<crate::WebhookDelivery>> {
        webhook_in_project(&self.pool, project, webhook).await?;
        let rows: Vec<DeliveryRow> = sqlx::query_as(&format!(
            "select {DELIVERY_COLUMNS} from webhook_deliveries d join events e on e.id = d.event_id \
             where d.webhook_id = $1 order by d.created_at desc, d.id desc limit $2"
        ))
        .bind(webhook.0)
        .bind(i64::from(limit))
        .fetch_all(&self.pool)
        .await?;
        Ok(rows.into_iter().map(DeliveryRow::into_delivery).collect())
    }

    async fn create_test_delivery(&self, project: ProjectId, webhook: WebhookId, data: &serde_json::Value) -> StoreResult<crate::WebhookDelivery> {
        let now = self.clock.now();
        let mut tx = self.pool.begin().await?;
        // A write first: on SQLite a transaction that reads first cannot become the writer while
        // another one writes (the dispatcher, say), and fails at once instead of waiting. An
        // event of a webhook that is not the project's is rolled back with the transaction.
        let event = insert_event_row(&mut tx, project.0, "webhook.test", data, now).await?;
        webhook_in_project(&mut *tx, project, webhook).await?;
        let id = insert_delivery(&mut tx, webhook.0, event, now).await?;
        tx.commit().await?;
        get_delivery(&self.pool, id).await
    }

    async fn redeliver(&self, project: ProjectId, webhook: WebhookId, id: WebhookDeliveryId) -> StoreResult<crate::WebhookDelivery> {
        webhook_in_project(&self.pool, project, webhook).await?;
        let done = sqlx::query(
            "update webhook_deliveries set status = 'PENDING', retry_step = 0, next_attempt_at = $3 \
             where id = $1 and webhook_id = $2",
        )
        .bind(id.0)
        .bind(webhook.0)
        .bind(self.clock.now())
        .execute(&self.pool)
        .await?;
        if done.rows_affected() == 0 {
            return Err(StoreError::NotFound("delivery"));
        }
        get_delivery(&self.pool, id.0).await
    }

    async fn claim_deliveries(&self, worker: &str, lease: std::time::Duration, limit: u32) -> StoreResult<Vec<crate::ClaimedDelivery>> {
        let now = self.clock.now();
        // The literal status list lets both databases use the partial index of due deliveries.
        // Whole milliseconds, like every stored time, so that the read below finds it equal.
        let lease_ms = i64::try_from(lease.as_millis()).unwrap_or(i64::MAX);
        let until = now + chrono::TimeDelta::try_milliseconds(lease_ms).unwrap_or_else(|| lease_delta(lease));
        sqlx::query(&format!(
            "update webhook_deliveries set lease_owner = $1, lease_until = $2 \
             where id in (select id from webhook_deliveries \
                          where status in ('PENDING', 'RETRYING') and next_attempt_at <= $3 \
                            and (lease_until is null or lease_until <= $4) \
                          order by next_attempt_at, id limit $5 {CLAIM_LOCK})"
        ))
        .bind(worker)
        .bind(until)
        .bind(now)
        .bind(now)
        .bind(i64::from(limit))
        .execute(&self.pool)
        .await?;
        // The rows this claim took: this owner with this very lease.
        let rows: Vec<DeliveryClaimRow> = sqlx::query_as(&format!(
            "select {DELIVERY_COLUMNS}, d.retry_step, w.url, w.secret, e.project_id, e.created_at as event_created_at, e.payload \
             from webhook_deliveries d join events e on e.id = d.event_id join webhooks w on w.id = d.webhook_id \
             where d.lease_owner = $1 and d.lease_until = $2 order by d.next_attempt_at, d.id"
        ))
        .bind(worker)
        .bind(until)
        .fetch_all(&self.pool)
        .await?;
        let claimed = rows
            .into_iter()
            .map(|r| crate::ClaimedDelivery {
                delivery: r.delivery.into_delivery(),
                retry_step: r.retry_step,
                url: r.url,
                secret: r.secret,
                project_id: ProjectId(r.project_id),
                event_created_at: r.event_created_at,
                data: r.payload.0,
            })
            .collect();
        Ok(claimed)
    }

    async fn finish_delivery(&self, id: WebhookDeliveryId, worker: &str, attempt: &crate::DeliveryAttempt) -> StoreResult<bool> {
        let done = sqlx::query(
            "update webhook_deliveries set status = $3, attempts = attempts + 1, retry_step = $4, response_code = $5, \
             error_message = $6, last_attempt_at = $7, next_attempt_at = $8, lease_owner = null, lease_until = null \
             where id = $1 and lease_owner = $2",
        )
        .bind(id.0)
        .bind(worker)
        .bind(attempt.status)
        .bind(attempt.retry_step)
        .bind(attempt.response_code)
        .bind(attempt.error_message.as_deref())
        .bind(attempt.attempted_at)
        .bind(attempt.next_attempt_at)
        .execute(&self.pool)
        .await?;
        Ok(done.rows_affected() == 1)
    }

    async fn create_job(&self, project: ProjectId, new: &NewJob) -> StoreResult<Job> {
        let now = self.clock.now();
        let row: JobRow = sqlx::query_as(&format!(
            "insert into jobs (id, project_id, status, stage, original_filename, content_type, size_bytes, sha256, \
             storage_path, language, channel_roles, recorded_at, run_at, submitted_at, updated_at) \
             values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15) returning {JOB_COLUMNS}"
        ))
        .bind(new.id.0)
        .bind(project.0)
        .bind(JobStatus::Pending.as_str())
        .bind(JobStage::Queued.as_str())
        .bind(&new.original_filename)
        .bind(&new.content_type)
        .bind(new.size_bytes)
        .bind(&new.sha256)
        .bind(&new.storage_path)
        .bind(new.language.as_str())
        .bind(new.channel_roles.as_ref().map(Json))
        .bind(new.recorded_at)
        .bind(now)
        .bind(now)
        .bind(now)
        .fetch_one(&self.pool)
        .await?;
        row.into_domain()
    }

    async fn get_job(&self, project: ProjectId, id: JobId) -> StoreResult<Job> {
        let row: Option<JobRow> =
            sqlx::query_as(&format!("select {JOB_COLUMNS} from jobs where id = $1 and project_id = $2"))
                .bind(id.0)
                .bind(project.0)
                .fetch_optional(&self.pool)
                .await?;
        row.ok_or(StoreError::NotFound("job"))?.into_domain()
    }

    async fn find_duplicate_job(&self, project: ProjectId, sha256: &str) -> StoreResult<Option<Job>> {
        let row: Option<JobRow> = sqlx::query_as(&format!(
            "select {JOB_COLUMNS} from jobs where project_id = $1 and sha256 = $2 and status <> $3 and kind = $4 \
             order by submitted_at, id limit 1"
        ))
        .bind(project.0)
        .bind(sha256)
        .bind(JobStatus::Failed.as_str())
        .bind(JobKind::Transcribe.as_str())
        .fetch_optional(&self.pool)
        .await?;
        row.map(JobRow::into_domain).transpose()
    }

    async fn claim_job(&self, worker: &str, lease: std::time::Duration) -> StoreResult<Option<Job>> {
        let now = self.clock.now();
        // The literal status list lets both databases use the partial index jobs_runnable, so a
        // claim does not read the history of finished jobs.
        debug_assert_eq!((JobStatus::Pending.as_str(), JobStatus::Processing.as_str()), ("PENDING", "PROCESSING"));
        let row: Option<JobRow> = sqlx::query_as(&format!(
            "update jobs set status = $1, attempts = attempts + 1, lease_until = $2, worker_id = $3, \
             started_at = coalesce(started_at, $4), updated_at = $5 \
             where id = (select id from jobs \
                         where status in ('PENDING', 'PROCESSING') \
                           and ((status = $6 and run_at <= $7) or (status = $8 and lease_until <= $9)) \
                         order by run_at, id limit 1 {CLAIM_LOCK}) \
             returning {JOB_COLUMNS}"
        ))
        .bind(JobStatus::Processing.as_str())
        .bind(now + lease_delta(lease))
        .bind(worker)
        .bind(now)
        .bind(now)
        .bind(JobStatus::Pending.as_str())
        .bind(now)
        .bind(JobStatus::Processing.as_str())
        .bind(now)
        .fetch_optional(&self.pool)
        .await?;
        row.map(JobRow::into_domain).transpose()
    }

    async fn heartbeat_job(
        &self,
        id: JobId,
        worker: &str,
        lease: std::time::Duration,
        stage: JobStage,
        progress: f64,
    ) -> StoreResult<bool> {
        let now = self.clock.now();
        let done = sqlx::query(
            "update jobs set lease_until = $3, stage = $4, progress = $5, updated_at = $6 \
             where id = $1 and worker_id = $2 and status = $7",
        )
        .bind(id.0)
        .bind(worker)
        .bind(now + lease_delta(lease))
        .bind(stage.as_str())
        .bind(progress.clamp(0.0, 1.0))
        .bind(now)
        .bind(JobStatus::Processing.as_str())
        .execute(&self.pool)
        .await?;
        Ok(done.rows_affected() == 1)
    }

    async fn retry_job(&self, id: JobId, worker: &str, error: &str, run_at: Timestamp) -> StoreResult<bool> {
        let done = sqlx::query(
            "update jobs set status = $3, stage = $4, progress = 0, run_at = $5, error_message = $6, \
             lease_until = null, worker_id = null, updated_at = $7 where id = $1 and worker_id = $2 and status = $8",
        )
        .bind(id.0)
        .bind(worker)
        .bind(JobStatus::Pending.as_str())
        .bind(JobStage::Queued.as_str())
        .bind(run_at)
        .bind(error)
        .bind(self.clock.now())
        .bind(JobStatus::Processing.as_str())
        .execute(&self.pool)
        .await?;
        Ok(done.rows_affected() == 1)
    }

    async fn fail_job(&self, id: JobId, worker: &str, error: &str, event: &NewEvent) -> StoreResult<bool> {
        let now = self.clock.now();
        let mut tx = self.pool.begin().await?;
        let row: Option<(Uuid,)> = sqlx::query_as(
            "update jobs set status = $3, error_message = $4, completed_at = $5, updated_at = $6, lease_until = null \
             where id = $1 and worker_id = $2 and status = $7 returning project_id",
        )
        .bind(id.0)
        .bind(worker)
        .bind(JobStatus::Failed.as_str())
        .bind(error)
        .bind(now)
        .bind(now)
        .bind(JobStatus::Processing.as_str())
        .fetch_optional(&mut *tx)
        .await?;
        let Some((project,)) = row else {
            return Ok(false);
        };
        insert_event(&mut tx, project, event, now).await?;
        tx.commit().await?;
        Ok(true)
    }

    async fn complete_job(&self, id: JobId, worker: &str, call: &NewCall, events: &[NewEvent]) -> StoreResult<bool> {
        let now = self.clock.now();
        let mut tx = self.pool.begin().await?;
        let row: Option<(Uuid,)> = sqlx::query_as(
            "update jobs set status = $3, stage = $4, progress = 1, transcript_id = $5, error_message = null, \
             completed_at = $6, updated_at = $7, lease_until = null \
             where id = $1 and worker_id = $2 and status = $8 returning project_id",
        )
        .bind(id.0)
        .bind(worker)
        .bind(JobStatus::Completed.as_str())
        .bind(JobStage::Done.as_str())
        .bind(call.id.0)
        .bind(now)
        .bind(now)
        .bind(JobStatus::Processing.as_str())
        .fetch_optional(&mut *tx)
        .await?;
        let Some((project,)) = row else {
            return Ok(false);
        };
        sqlx::query(
            "insert into calls (id, project_id, job_id, filename, language, size_bytes, duration_s, storage_path, \
             sha256, content_type, sample_rate, channels, codec, recorded_at, created_at, updated_at, \
             full_text, turns, speakers, words, speech_model, pii_statistics, pii_spans) \
             values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, \
             $22, $23)",
        )
        .bind(call.id.0)
        .bind(project)
        .bind(id.0)
        .bind(&call.filename)
        .bind(call.language.as_str())
        .bind(call.size_bytes)
        .bind(call.duration_s)
        .bind(&call.storage_path)
        .bind(&call.sha256)
        .bind(&call.content_type)
        .bind(i64::from(call.sample_rate))
        .bind(i64::from(call.channels))
        .bind(&call.codec)
        .bind(call.recorded_at)
        .bind(call.created_at)
        // The commit's time, not the call's: the search index reads changes in this order.
        .bind(now)
        .bind(&call.transcript.full_text)
        .bind(Json(&call.transcript.turns))
        .bind(Json(&call.transcript.speakers))
        .bind(Json(&call.transcript.words))
        .bind(&call.transcript.speech_model)
        .bind(Json(&call.transcript.pii_statistics))
        .bind(Json(&call.transcript.pii_spans))
        .execute(&mut *tx)
        .await?;
        if let Some(analysis) = &call.analysis {
            let classification = current_classification(&mut tx, project, analysis.classification.as_ref()).await?;
            sqlx::query(
                "update calls set title = $2, sentiment_level = $3, primary_category_id = \
                 (select id from categories where id = $4 and project_id = $5), \
                 classification = $6, summary = $7, template_analysis = $8, sentiment_confidence = $9 where id = $1",
            )
            .bind(call.id.0)
            .bind(&analysis.title)
            .bind(&analysis.sentiment_level)
            .bind(analysis.primary_category.map(|c| c.0))
            .bind(project)
            .bind(classification.map(Json))
            .bind(analysis.summary.as_ref().map(Json))
            .bind(analysis.template_analysis.as_ref().map(Json))
            .bind(analysis.sentiment_confidence)
            .execute(&mut *tx)
            .await?;
            let call_date = call.recorded_at.unwrap_or(call.created_at);
            insert_action_items(&mut tx, project, call.id.0, call_date, &call.filename, &analysis.action_items, now).await?;
        }
        for event in events {
            insert_event(&mut tx, project, event, now).await?;
        }
        tx.commit().await?;
        Ok(true)
    }

    async fn create_reanalysis_job(&self, project: ProjectId, call: CallId, template: Option<TemplateId>) -> StoreResult<Job> {
        let now = self.clock.now();
        let row: Option<JobRow> = sqlx::query_as(&format!(
            "insert into jobs (id, project_id, kind, template_id, transcript_id, status, stage, original_filename, \
             content_type, size_bytes, sha256, storage_path, language, recorded_at, run_at, submitted_at, updated_at) \
             select $1, project_id, $2, $3, id, $4, $5, filename, content_type, size_bytes, sha256, storage_path, \
             language, coalesce(recorded_at, created_at), $6, $6, $6 from calls where id = $7 and project_id = $8 \
             returning {JOB_COLUMNS}"
        ))
        .bind(Uuid::now_v7())
        .bind(JobKind::Reanalyze.as_str())
        .bind(template.map(|t| t.0))
        .bind(JobStatus::Pending.as_str())
        .bind(JobStage::Queued.as_str())
        .bind(now)
        .bind(call.0)
        .bind(project.0)
        .fetch_optional(&self.pool)
        .await?;
        row.ok_or(StoreError::NotFound("call"))?.into_domain()
    }

    async fn complete_reanalysis(&self, id: JobId, worker: &str, analysis: &CallAnalysisRecord, events: &[NewEvent]) -> StoreResult<bool> {
        let now = self.clock.now();
        let mut tx = self.pool.begin().await?;
        let row: Option<(Uuid, Option<Uuid>)> = sqlx::query_as(
            "update jobs set status = $3, stage = $4, progress = 1, error_message = null, \
             completed_at = $5, updated_at = $5, lease_until = null \
             where id = $1 and worker_id = $2 and status = $6 and kind = $7 returning project_id, transcript_id",
        )
        .bind(id.0)
        .bind(worker)
        .bind(JobStatus::Completed.as_str())
        .bind(JobStage::Done.as_str())
        .bind(now)
        .bind(JobStatus::Processing.as_str())
        .bind(JobKind::Reanalyze.as_str())
        .fetch_optional(&mut *tx)
        .await?;
        let Some((project, Some(call))) = row else {
            return Ok(false);
        };
        // The call may have been deleted while the job waited: the job is done, with nothing to do.
        let facts: Option<(String, Option<Timestamp>, Timestamp)> =
            sqlx::query_as("select filename, recorded_at, created_at from calls where id = $1 and project_id = $2")
                .bind(call)
                .bind(project)
                .fetch_optional(&mut *tx)
                .await?;
        let Some((filename, recorded_at, created_at)) = facts else {
            tx.commit().await?;
            return Ok(true);
        };
        let classification = current_classification(&mut tx, project, analysis.classification.as_ref()).await?;
        sqlx::query(
            "update calls set title = $2, sentiment_level = $3, summary = $4, template_analysis = $5, updated_at = $6, \
             sentiment_confidence = $10, \
             primary_category_id = case when category_manual then primary_category_id else \
             (select id from categories where id = $7 and project_id = $8) end, \
             classification = case when category_manual then classification else $9 end \
             where id = $1",
        )
        .bind(call)
        .bind(&analysis.title)
        .bind(&analysis.sentiment_level)
        .bind(analysis.summary.as_ref().map(Json))
        .bind(analysis.template_analysis.as_ref().map(Json))
        .bind(now)
        .bind(analysis.primary_category.map(|c| c.0))
        .bind(project)
        .bind(classification.map(Json))
        .bind(analysis.sentiment_confidence)
        .execute(&mut *tx)
        .await?;
        let old: Vec<(Uuid,)> = sqlx::query_as("delete from action_items where call_id = $1 returning id")
            .bind(call)
            .fetch_all(&mut *tx)
            .await?;
        for (item,) in old {
            let event = NewEvent { kind: "action_item.deleted", payload: serde_json::json!({ "id": item }) };
            insert_event(&mut tx, project, &event, now).await?;
        }
        insert_action_items(&mut tx, project, call, recorded_at.unwrap_or(created_at), &filename, &analysis.action_items, now).await?;
        for event in events {
            insert_event(&mut tx, project, event, now).await?;
        }
        tx.commit().await?;
        Ok(true)
    }

    async fn set_call_category(
        &self,
        project: ProjectId,
        call: CallId,
        category: Option<CategoryId>,
        classification: Option<&serde_json::Value>,
    ) -> StoreResult<Option<CategoryId>> {
        let now = self.clock.now();
        let mut tx = self.pool.begin().await?;
        // The chosen category cannot be deleted between the check below and the commit.
        hold_taxonomy(&mut tx, project.0).await?;
        // A write first: it takes the row's lock (the database's, on SQLite) before the read.
        let touched = sqlx::query("update calls set updated_at = $3 where id = $1 and project_id = $2")
            .bind(call.0)
            .bind(project.0)
            .bind(now)
            .execute(&mut *tx)
            .await?;
        if touched.rows_affected() == 0 {
            return Err(StoreError::NotFound("call"));
        }
        let (previous,): (Option<Uuid>,) = sqlx::query_as("select primary_category_id from calls where id = $1")
            .bind(call.0)
            .fetch_one(&mut *tx)
            .await?;
        if let Some(category) = category {
            let known: Option<(Uuid,)> = sqlx::query_as("select id from categories where id = $1 and project_id = $2")
                .bind(category.0)
                .bind(project.0)
                .fetch_optional(&mut *tx)
                .await?;
            if known.is_none() {
                return Err(StoreError::Rejected(Rejection::UnknownCategory));
            }
        }
        sqlx::query(
            "update calls set primary_category_id = $3, classification = $4, category_manual = true, updated_at = $5 \
             where id = $1 and project_id = $2",
        )
        .bind(call.0)
        .bind(project.0)
        .bind(category.map(|c| c.0))
        .bind(classification.map(Json))
        .bind(now)
        .execute(&mut *tx)
        .await?;
        let event = NewEvent {
            kind: "call.category_changed",
            payload: serde_json::json!({ "callId": call.0, "previousCategoryId": previous, "categoryId": category.map(|c| c.0) }),
        };
        insert_event(&mut tx, project.0, &event, now).await?;
        tx.commit().await?;
        Ok(previous.map(CategoryId))
    }

    async fn call_sentiments(
        &self,
        project: ProjectId,
        from: Option<Timestamp>,
        to: Option<Timestamp>,
    ) -> StoreResult<Vec<(Timestamp, String, Option<f64>)>> {
        Ok(sqlx::query_as(
            "select created_at, sentiment_level, sentiment_confidence from calls \
             where project_id = $1 and ($2 is null or created_at >= $2) and ($3 is null or created_at <= $3)",
        )
        .bind(project.0)
        .bind(from)
        .bind(to)
        .fetch_all(&self.pool)
        .await?)
    }

    async fn list_calls(
        &self,
        project: ProjectId,
        from: Option<Timestamp>,
        to: Option<Timestamp>,
        page: PageRequest,
    ) -> StoreResult<Page<CallSummary>> {
        let (total,): (i64,) = sqlx::query_as(
            "select count(*) from calls where project_id = $1 and ($2 is null or created_at >= $2) and ($3 is null or created_at <= $3)",
        )
        .bind(project.0)
        .bind(from)
        .bind(to)
        .fetch_one(&self.pool)
        .await?;
        let rows: Vec<CallSummaryRow> = sqlx::query_as(&format!(
            "select {CALL_SUMMARY_COLUMNS} where c.project_id = $1 and ($2 is null or c.created_at >= $2) \
             and ($3 is null or c.created_at <= $3) order by c.created_at desc, c.id desc limit $4 offset $5"
        ))
        .bind(project.0)
        .bind(from)
        .bind(to)
        .bind(i64::from(page.page_size))
        .bind(i64::try_from(page.offset()).unwrap_or(i64::MAX))
        .fetch_all(&self.pool)
        .await?;
        let items = rows.into_iter().map(call_summary).collect::<StoreResult<_>>()?;
        Ok(Page { items, total: u64::try_from(total).unwrap_or_default() })
    }

    async fn delete_call(&self, project: ProjectId, call: CallId) -> StoreResult<()> {
        let mut tx = self.pool.begin().await?;
        let done = sqlx::query("delete from calls where id = $1 and project_id = $2").bind(call.0).bind(project.0).execute(&mut *tx).await?;
        if done.rows_affected() == 0 {
            return Err(StoreError::NotFound("call"));
        }
        // Action items go with the call (foreign key); the jobs name it by id only.
        sqlx::query("delete from action_items where call_id = $1").bind(call.0).execute(&mut *tx).await?;
        sqlx::query("delete from jobs where transcript_id = $1 and project_id = $2").bind(call.0).bind(project.0).execute(&mut *tx).await?;
        // Tells every search index to drop the call.
        sqlx::query("insert into call_deletions (call_id, project_id, deleted_at) values ($1, $2, $3)")
            .bind(call.0)
            .bind(project.0)
            .bind(self.clock.now())
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        Ok(())
    }

    async fn changed_calls(&self, after: (Timestamp, CallId), limit: u32) -> StoreResult<Vec<(CallId, Timestamp)>> {
        let rows: Vec<(Uuid, Timestamp)> = sqlx::query_as(
            "select id, updated_at from calls where updated_at >= $1 and (updated_at > $1 or id > $2) \
             order by updated_at, id limit $3",
        )
        .bind(after.0)
        .bind(after.1 .0)
        .bind(i64::from(limit))
        .fetch_all(&self.pool)
        .await?;
        Ok(rows.into_iter().map(|(id, at)| (CallId(id), at)).collect())
    }

    async fn deleted_calls(&self, since: Timestamp) -> StoreResult<Vec<(CallId, Timestamp)>> {
        let rows: Vec<(Uuid, Timestamp)> =
            sqlx::query_as("select call_id, deleted_at from call_deletions where deleted_at >= $1 order by deleted_at, call_id")
                .bind(since)
                .fetch_all(&self.pool)
                .await?;
        Ok(rows.into_iter().map(|(id, at)| (CallId(id), at)).collect())
    }

    async fn search_documents(&self, project: Option<ProjectId>, ids: &[CallId]) -> StoreResult<Vec<SearchDocument>> {
        type Row = (Uuid, Uuid, String, Timestamp, Timestamp, Option<String>, String, Option<Json<serde_json::Value>>);
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        let mut documents = Vec::with_capacity(ids.len());
        for chunk in ids.chunks(500) {
            let placeholders = (0..chunk.len()).map(|i| format!("${}", i + 2)).collect::<Vec<_>>().join(", ");
            let sql = format!(
                "select id, project_id, language, created_at, updated_at, title, full_text, summary from calls \
                 where ($1 is null or project_id = $1) and id in ({placeholders})"
            );
            let mut query = sqlx::query_as::<_, Row>(&sql).bind(project.map(|p| p.0));
            for id in chunk {
                query = query.bind(id.0);
            }
            for (id, project_id, language, created_at, updated_at, title, full_text, summary) in query.fetch_all(&self.pool).await? {
                documents.push(SearchDocument {
                    id: CallId(id),
                    project_id: ProjectId(project_id),
                    language: crate::parse_stored("calls.language", &language)?,
                    created_at,
                    updated_at,
                    title: title.unwrap_or_default(),
                    full_text,
                    summary: summary.map(|s| summary_text(&s.0)).unwrap_or_default(),
                });
            }
        }
        Ok(documents)
    }

    async fn call_summaries(&self, project: ProjectId, ids: &[CallId]) -> StoreResult<Vec<CallSummary>> {
        let mut summaries = Vec::with_capacity(ids.len());
        for chunk in ids.chunks(500) {
            let placeholders = (0..chunk.len()).map(|i| format!("${}", i + 1)).collect::<Vec<_>>().join(", ");
            // By primary key, keeping the project's: with `project_id = $1` in the WHERE clause,
            // SQLite would walk the project's index instead.
            let sql = format!("select c.project_id, {CALL_SUMMARY_COLUMNS} where c.id in ({placeholders})");
            type Row = (Uuid, Uuid, String, String, i64, Option<f64>, String, Option<String>, i64, Timestamp, Timestamp, Option<String>, String);
            let mut query = sqlx::query_as::<_, Row>(&sql);
            for id in chunk {
                query = query.bind(id.0);
            }
            for r in query.fetch_all(&self.pool).await? {
                if r.0 == project.0 {
                    summaries.push(call_summary((r.1, r.2, r.3, r.4, r.5, r.6, r.7, r.8, r.9, r.10, r.11, r.12))?);
                }
            }
        }
        Ok(summaries)
    }

    async fn get_call_summary(&self, project: ProjectId, call: CallId) -> StoreResult<CallSummary> {
        let row: Option<CallSummaryRow> = sqlx::query_as(&format!("select {CALL_SUMMARY_COLUMNS} where c.id = $1 and c.project_id = $2"))
            .bind(call.0)
            .bind(project.0)
            .fetch_optional(&self.pool)
            .await?;
        call_summary(row.ok_or(StoreError::NotFound("call"))?)
    }

    async fn get_call_audio(&self, project: ProjectId, call: CallId) -> StoreResult<CallAudio> {
        type Row = (String, String, i64, Option<f64>, Option<i32>, Option<i32>, Option<String>, String, String);
        let row: Option<Row> = sqlx::query_as(
            "select filename, content_type, size_bytes, duration_s, sample_rate, channels, codec, sha256, storage_path \
             from calls where id = $1 and project_id = $2",
        )
        .bind(call.0)
        .bind(project.0)
        .fetch_optional(&self.pool)
        .await?;
        let (filename, content_type, size_bytes, duration_s, sample_rate, channels, codec, sha256, storage_path) =
            row.ok_or(StoreError::NotFound("call"))?;
        Ok(CallAudio { filename, content_type, size_bytes, duration_s, sample_rate, channels, codec, sha256, storage_path })
    }

    async fn get_call_transcript(&self, project: ProjectId, call: CallId) -> StoreResult<CallTranscript> {
        type Row = (
            String,
            Json<Vec<Turn>>,
            Json<Vec<SpeakerStats>>,
            Json<Vec<TimedWord>>,
            Option<String>,
            Json<PiiStatistics>,
            Json<Vec<PiiSpan>>,
        );
        let row: Option<Row> = sqlx::query_as(
            "select full_text, turns, speakers, words, speech_model, pii_statistics, pii_spans \
             from calls where id = $1 and project_id = $2",
        )
        .bind(call.0)
        .bind(project.0)
        .fetch_optional(&self.pool)
        .await?;
        let (full_text, turns, speakers, words, speech_model, pii_statistics, pii_spans) =
            row.ok_or(StoreError::NotFound("call"))?;
        Ok(CallTranscript {
            full_text,
            turns: turns.0,
            speakers: speakers.0,
            words: words.0,
            speech_model,
            pii_statistics: pii_statistics.0,
            pii_spans: pii_spans.0,
        })
    }

    async fn get_call_analysis(&self, project: ProjectId, call: CallId) -> StoreResult<StoredAnalysis> {
        type Row = (Option<String>, String, Option<Uuid>, Option<Json<serde_json::Value>>, Option<Json<serde_json::Value>>, Option<Json<serde_json::Value>>);
        let row: Option<Row> = sqlx::query_as(
            "select title, sentiment_level, primary_category_id, classification, summary, template_analysis \
             from calls where id = $1 and project_id = $2",
        )
        .bind(call.0)
        .bind(project.0)
        .fetch_optional(&self.pool)
        .await?;
        let (title, sentiment_level, primary, classification, summary, template_analysis) = row.ok_or(StoreError::NotFound("call"))?;
        type ItemRow = (
            Uuid,
            i32,
            Timestamp,
            String,
            String,
            Option<String>,
            Option<String>,
            Option<Timestamp>,
            Option<String>,
            String,
            String,
            Option<String>,
            Option<Timestamp>,
            Timestamp,
            Timestamp,
        );
        let items: Vec<ItemRow> = sqlx::query_as(
            "select id, transcript_index, call_date, call_filename, description, responsible_party, deadline_mentioned, \
             due_at, evidence, status, priority, notes, completed_at, created_at, updated_at \
             from action_items where call_id = $1 and project_id = $2 order by transcript_index",
        )
        .bind(call.0)
        .bind(project.0)
        .fetch_all(&self.pool)
        .await?;
        let action_items = items
            .into_iter()
            .map(|r| crate::ActionItem {
                id: callscope_domain::ActionItemId(r.0),
                project_id: project,
                call_id: call,
                transcript_index: r.1,
                call_date: r.2,
                call_filename: r.3,
                description: r.4,
                responsible_party: r.5,
                deadline_mentioned: r.6,
                due_at: r.7,
                evidence: r.8,
                status: r.9,
                priority: r.10,
                notes: r.11,
                completed_at: r.12,
                created_at: r.13,
                updated_at: r.14,
            })
            .collect();
        Ok(StoredAnalysis {
            title,
            sentiment_level,
            primary_category: primary.map(CategoryId),
            classification: classification.map(|j| j.0),
            summary: summary.map(|j| j.0),
            template_analysis: template_analysis.map(|j| j.0),
            action_items,
        })
    }

    async fn list_action_items(&self, project: ProjectId, query: &ActionItemQuery, now: Timestamp) -> StoreResult<ActionItemList> {
        // Counters, filters, search, sort and page from the project's items in memory, brought
        // up to date first; then the page's rows, by id.
        let slot = self.items.slot(project.0);
        self.refresh_items(project.0, &slot).await?;
        let Some((mut list, page)) = slot.list(query, now) else {
            return Err(StoreError::Corrupt("the action item index was not read".into()));
        };
        if page.is_empty() {
            return Ok(list);
        }
        // By id alone: with the project in the WHERE clause SQLite walks the project's index
        // instead of seeking the ids. The project is checked below.
        let mut select = sqlx::QueryBuilder::<Db>::new(format!("select {ACTION_ITEM_COLUMNS} from action_items where id in ("));
        let mut ids = select.separated(", ");
        for id in &page {
            ids.push_bind(*id);
        }
        select.push(")");
        let rows: Vec<ActionItemRow> = select.build_query_as().fetch_all(&self.pool).await?;
        let mut by_id: HashMap<Uuid, ActionItemRow> =
            rows.into_iter().filter(|row| row.project_id == project.0).map(|row| (row.id, row)).collect();
        // An item deleted since the index was read is left out of the page.
        list.items = page.iter().filter_map(|id| by_id.remove(id)).map(ActionItemRow::into_item).collect();
        Ok(list)
    }

    async fn get_action_item(&self, project: ProjectId, id: ActionItemId) -> StoreResult<ActionItem> {
        let row: Option<ActionItemRow> =
            sqlx::query_as(&format!("select {ACTION_ITEM_COLUMNS} from action_items where id = $1 and project_id = $2"))
                .bind(id.0)
                .bind(project.0)
                .fetch_optional(&self.pool)
                .await?;
        row.map(ActionItemRow::into_item).ok_or(StoreError::NotFound("action item"))
    }

    async fn update_action_item(&self, project: ProjectId, id: ActionItemId, patch: &ActionItemPatch) -> StoreResult<ActionItem> {
        let now = self.clock.now();
        let mut tx = self.pool.begin().await?;
        // A write first: it takes the row's lock (the database's, on SQLite) before the read.
        let touched = sqlx::query("update action_items set updated_at = updated_at where id = $1 and project_id = $2")
            .bind(id.0)
            .bind(project.0)
            .execute(&mut *tx)
            .await?;
        if touched.rows_affected() == 0 {
            return Err(StoreError::NotFound("action item"));
        }
        let row: ActionItemRow = sqlx::query_as(&format!("select {ACTION_ITEM_COLUMNS} from action_items where id = $1"))
            .bind(id.0)
            .fetch_one(&mut *tx)
            .await?;
        let item = patch.apply(&row.into_item(), now);
        let (party_key, search_text) = action_item_keys(
            &item.description,
            item.responsible_party.as_deref(),
            item.notes.as_deref(),
            item.evidence.as_deref(),
            &item.call_filename,
        );
        sqlx::query(
            "update action_items set status = $2, priority = $3, description = $4, responsible_party = $5, notes = $6, \
             deadline_mentioned = $7, due_at = $8, completed_at = $9, updated_at = $10, responsible_key = $11, search_text = $12, \
             priority_rank = $13, status_rank = $14 where id = $1",
        )
        .bind(id.0)
        .bind(&item.status)
        .bind(&item.priority)
        .bind(&item.description)
        .bind(&item.responsible_party)
        .bind(&item.notes)
        .bind(&item.deadline_mentioned)
        .bind(item.due_at)
        .bind(item.completed_at)
        .bind(item.updated_at)
        .bind(party_key)
        .bind(search_text)
        .bind(i32::from(crate::rank(&ACTION_ITEM_PRIORITIES, &item.priority)))
        .bind(i32::from(crate::rank(&ACTION_ITEM_STATUSES, &item.status)))
        .execute(&mut *tx)
        .await?;
        let event = NewEvent { kind: "action_item.updated", payload: item.to_json(now) };
        insert_event(&mut tx, project.0, &event, now).await?;
        tx.commit().await?;
        Ok(item)
    }

    async fn delete_action_item(&self, project: ProjectId, id: ActionItemId) -> StoreResult<()> {
        let now = self.clock.now();
        let mut tx = self.pool.begin().await?;
        let done = sqlx::query("delete from action_items where id = $1 and project_id = $2").bind(id.0).bind(project.0).execute(&mut *tx).await?;
        if done.rows_affected() == 0 {
            return Err(StoreError::NotFound("action item"));
        }
        let event = NewEvent { kind: "action_item.deleted", payload: serde_json::json!({ "id": id }) };
        insert_event(&mut tx, project.0, &event, now).await?;
        tx.commit().await?;
        Ok(())
    }

    async fn responsible_parties(&self, project: ProjectId) -> StoreResult<Vec<String>> {
        let rows: Vec<(String,)> =
            sqlx::query_as("select distinct responsible_party from action_items where project_id = $1 and responsible_party is not null")
                .bind(project.0)
                .fetch_all(&self.pool)
                .await?;
        let mut parties: Vec<String> = rows.into_iter().map(|(p,)| p).filter(|p| !p.trim().is_empty()).collect();
        parties.sort();
        parties.dedup();
        Ok(parties)
    }

    async fn pending_action_items(
        &self,
        project: ProjectId,
        from: Option<Timestamp>,
        to: Option<Timestamp>,
        now: Timestamp,
    ) -> StoreResult<Vec<ActionItem>> {
        let rows: Vec<ActionItemRow> = sqlx::query_as(&format!(
            "select {ACTION_ITEM_COLUMNS} from action_items where project_id = $1 and status in ('PENDING', 'IN_PROGRESS') \
             and ($2 is null or call_date >= $2) and ($3 is null or call_date <= $3) \
             order by case when due_at < $4 then 0 else 1 end, case when due_at is null then 1 else 0 end, due_at, call_date, id"
        ))
        .bind(project.0)
        .bind(from)
        .bind(to)
        .bind(now)
        .fetch_all(&self.pool)
        .await?;
        Ok(rows.into_iter().map(ActionItemRow::into_item).collect())
    }

    async fn list_events(&self, project: ProjectId) -> StoreResult<Vec<(String, serde_json::Value)>> {
        let rows: Vec<(String, Json<serde_json::Value>)> =
            sqlx::query_as("select type, payload from events where project_id = $1 order by created_at, id")
                .bind(project.0)
                .fetch_all(&self.pool)
                .await?;
        Ok(rows.into_iter().map(|(kind, payload)| (kind, payload.0)).collect())
    }
}

fn lease_delta(lease: std::time::Duration) -> chrono::TimeDelta {
    chrono::TimeDelta::from_std(lease).unwrap_or(chrono::TimeDelta::MAX)
}

/// What the call lists read: the call, its category's name and its action item count.
const CALL_SUMMARY_COLUMNS: &str = "c.id, c.filename, c.language, c.size_bytes, c.duration_s, c.sentiment_level, k.name, \
     (select count(*) from action_items a where a.call_id = c.id), c.created_at, c.updated_at, c.title, c.storage_path \
     from calls c left join categories k on k.id = c.primary_category_id";

type CallSummaryRow = (Uuid, String, String, i64, Option<f64>, String, Option<String>, i64, Timestamp, Timestamp, Option<String>, String);

fn call_summary(row: CallSummaryRow) -> StoreResult<CallSummary> {
    let (id, filename, language, size_bytes, duration_s, sentiment_level, primary_category, action_items_count, created_at, updated_at, title, storage_path) = row;
    Ok(CallSummary {
        id: CallId(id),
        filename,
        language: crate::parse_stored("calls.language", &language)?,
        size_bytes,
        duration_s,
        sentiment_level,
        primary_category,
        action_items_count,
        created_at,
        updated_at,
        title,
        storage_path,
    })
}

/// The searchable text of a summary block: the executive summary, the key points, the
/// resolution and the next steps, one per line.
fn summary_text(summary: &serde_json::Value) -> String {
    let inner = &summary["summary"];
    let mut lines: Vec<&str> = Vec::new();
    lines.extend(inner["executiveSummary"].as_str());
    for list in ["keyDiscussionPoints", "nextSteps"] {
        if let Some(items) = inner[list].as_array() {
            lines.extend(items.iter().filter_map(serde_json::Value::as_str));
        }
        if list == "keyDiscussionPoints" {
            lines.extend(inner["resolutionProvided"].as_str());
        }
    }
    lines.retain(|l| !l.trim().is_empty());
    lines.join("\n")
}

/// The columns an action item is read from.
const ACTION_ITEM_COLUMNS: &str = "id, project_id, call_id, transcript_index, call_date, call_filename, description, responsible_party, \
     deadline_mentioned, due_at, evidence, status, priority, notes, completed_at, created_at, updated_at";

#[derive(sqlx::FromRow)]
struct ActionItemRow {
    id: Uuid,
    project_id: Uuid,
    call_id: Uuid,
    transcript_index: i32,
    call_date: Timestamp,
    call_filename: String,
    description: String,
    responsible_party: Option<String>,
    deadline_mentioned: Option<String>,
    due_at: Option<Timestamp>,
    evidence: Option<String>,
    status: String,
    priority: String,
    notes: Option<String>,
    completed_at: Option<Timestamp>,
    created_at: Timestamp,
    updated_at: Timestamp,
}

impl ActionItemRow {
    fn into_item(self) -> ActionItem {
        ActionItem {
            id: ActionItemId(self.id),
            project_id: ProjectId(self.project_id),
            call_id: CallId(self.call_id),
            transcript_index: self.transcript_index,
            call_date: self.call_date,
            call_filename: self.call_filename,
            description: self.description,
            responsible_party: self.responsible_party,
            deadline_mentioned: self.deadline_mentioned,
            due_at: self.due_at,
            evidence: self.evidence,
            status: self.status,
            priority: self.priority,
            notes: self.notes,
            completed_at: self.completed_at,
            created_at: self.created_at,
            updated_at: self.updated_at,
        }
    }
}

/// Fills the filter keys of items written before they existed, in Rust (SQLite's lower() knows
/// only ASCII).
async fn backfill_action_item_keys(pool: &sqlx::Pool<Db>) -> StoreResult<()> {
    type Row = (Uuid, String, Option<String>, Option<String>, Option<String>, String);
    loop {
        let rows: Vec<Row> = sqlx::query_as(
            "select id, description, responsible_party, notes, evidence, call_filename from action_items \
             where search_text is null limit 500",
        )
        .fetch_all(pool)
        .await?;
        if rows.is_empty() {
            return Ok(());
        }
        for (id, description, party, notes, evidence, filename) in rows {
            let (key, text) = action_item_keys(&description, party.as_deref(), notes.as_deref(), evidence.as_deref(), &filename);
            sqlx::query("update action_items set responsible_key = $2, search_text = $3 where id = $1")
                .bind(id)
                .bind(key)
                .bind(text)
                .execute(pool)
                .await?;
        }
    }
}

/// Writes a call's action items, numbered in order, all PENDING.
async fn insert_action_items(
    tx: &mut Tx<'_>,
    project: Uuid,
    call: Uuid,
    call_date: Timestamp,
    filename: &str,
    items: &[crate::NewActionItem],
    now: Timestamp,
) -> StoreResult<()> {
    for (index, item) in items.iter().enumerate() {
        let keys = action_item_keys(&item.description, item.responsible_party.as_deref(), None, item.evidence.as_deref(), filename);
        sqlx::query(
            "insert into action_items (id, project_id, call_id, transcript_index, call_date, call_filename, \
             description, responsible_party, deadline_mentioned, due_at, evidence, status, priority, \
             created_at, updated_at, responsible_key, search_text, priority_rank, status_rank) \
             values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, 'PENDING', $12, $13, $14, $15, $16, $17, 0)",
        )
        .bind(item.id.0)
        .bind(project)
        .bind(call)
        .bind(i32::try_from(index).unwrap_or(i32::MAX))
        .bind(call_date)
        .bind(filename)
        .bind(&item.description)
        .bind(&item.responsible_party)
        .bind(&item.deadline_mentioned)
        .bind(item.due_at)
        .bind(&item.evidence)
        .bind(&item.priority)
        .bind(now)
        .bind(now)
        .bind(keys.0)
        .bind(keys.1)
        .bind(i32::from(crate::rank(&ACTION_ITEM_PRIORITIES, &item.priority)))
        .execute(&mut **tx)
        .await?;
    }
    Ok(())
}

async fn insert_event(tx: &mut Tx<'_>, project: Uuid, event: &NewEvent, now: Timestamp) -> StoreResult<()> {
    let id = insert_event_row(tx, project, event.kind, &event.payload, now).await?;
    // A delivery for every webhook active now and subscribed: in this transaction, so that a
    // webhook paused at this moment never gets the event and a crash loses none.
    let hooks: Vec<(Uuid, Json<Vec<String>>)> =
        sqlx::query_as("select id, events from webhooks where project_id = $1 and active order by created_at, id")
            .bind(project)
            .fetch_all(&mut **tx)
            .await?;
    for (webhook, events) in hooks {
        if events.0.iter().any(|e| e == callscope_domain::ALL_EVENTS || e == event.kind) {
            insert_delivery(tx, webhook, id, now).await?;
        }
    }
    Ok(())
}

/// Writes an event to the outbox, and nothing else; returns its id.
async fn insert_event_row(tx: &mut Tx<'_>, project: Uuid, kind: &str, data: &serde_json::Value, now: Timestamp) -> StoreResult<Uuid> {
    let id = Uuid::now_v7();
    sqlx::query("insert into events (id, project_id, type, payload, created_at) values ($1, $2, $3, $4, $5)")
        .bind(id)
        .bind(project)
        .bind(kind)
        .bind(Json(data))
        .bind(now)
        .execute(&mut **tx)
        .await?;
    Ok(id)
}

async fn insert_delivery(tx: &mut Tx<'_>, webhook: Uuid, event: Uuid, now: Timestamp) -> StoreResult<Uuid> {
    let id = Uuid::now_v7();
    sqlx::query(
        "insert into webhook_deliveries (id, webhook_id, event_id, status, next_attempt_at, created_at) \
         values ($1, $2, $3, 'PENDING', $4, $5) on conflict (event_id, webhook_id) do nothing",
    )
    .bind(id)
    .bind(webhook)
    .bind(event)
    .bind(now)
    .bind(now)
    .execute(&mut **tx)
    .await?;
    Ok(id)
}

/// NotFound("webhook") unless the webhook belongs to the project.
async fn webhook_in_project<'e, E: sqlx::Executor<'e, Database = Db>>(db: E, project: ProjectId, webhook: WebhookId) -> StoreResult<()> {
    let found: Option<(Uuid,)> = sqlx::query_as("select id from webhooks where id = $1 and project_id = $2")
        .bind(webhook.0)
        .bind(project.0)
        .fetch_optional(db)
        .await?;
    found.map(|_| ()).ok_or(StoreError::NotFound("webhook"))
}

async fn get_delivery(pool: &sqlx::Pool<Db>, id: Uuid) -> StoreResult<crate::WebhookDelivery> {
    let row: Option<DeliveryRow> = sqlx::query_as(&format!(
        "select {DELIVERY_COLUMNS} from webhook_deliveries d join events e on e.id = d.event_id where d.id = $1"
    ))
    .bind(id)
    .fetch_optional(pool)
    .await?;
    row.map(DeliveryRow::into_delivery).ok_or(StoreError::NotFound("delivery"))
}

const DELIVERY_COLUMNS: &str = "d.id, d.webhook_id, d.event_id, e.type as event_type, d.status, d.attempts, d.response_code, \
     d.error_message, d.last_attempt_at, d.next_attempt_at, d.created_at";

#[derive(sqlx::FromRow)]
struct DeliveryRow {
    id: Uuid,
    webhook_id: Uuid,
    event_id: Uuid,
    event_type: String,
    status: String,
    attempts: i32,
    response_code: Option<i32>,
    error_message: Option<String>,
    last_attempt_at: Option<Timestamp>,
    next_attempt_at: Option<Timestamp>,
    created_at: Timestamp,
}

impl DeliveryRow {
    fn into_delivery(self) -> crate::WebhookDelivery {
        crate::WebhookDelivery {
            id: WebhookDeliveryId(self.id),
            webhook_id: WebhookId(self.webhook_id),
            event_id: self.event_id,
            event_type: self.event_type,
            status: self.status,
            attempts: self.attempts,
            response_code: self.response_code,
            error_message: self.error_message,
            last_attempt_at: self.last_attempt_at,
            next_attempt_at: self.next_attempt_at,
            created_at: self.created_at,
        }
    }
}

#[derive(sqlx::FromRow)]
struct DeliveryClaimRow {
    #[sqlx(flatten)]
    delivery: DeliveryRow,
    retry_step: i32,
    url: String,
    secret: String,
    project_id: Uuid,
    event_created_at: Timestamp,
    payload: Json<serde_json::Value>,
}

/// Creates the project's taxonomy on first use and locks its row for the rest of the
/// transaction, so that concurrent edits of one tree are serialised. Returns the taxonomy id.
async fn lock_taxonomy(tx: &mut Tx<'_>, project: ProjectId, now: Timestamp) -> StoreResult<Uuid> {
    let (id,): (Uuid,) = sqlx::query_as(
        "insert into taxonomies (id, project_id, created_at, updated_at) values ($1, $2, $3, $4) \
         on conflict (project_id) do update set updated_at = excluded.updated_at returning id",
    )
    .bind(Uuid::now_v7())
    .bind(project.0)
    .bind(now)
    .bind(now)
    .fetch_one(&mut **tx)
    .await?;
    Ok(id)
}

async fn load_categories(conn: &mut <Db as sqlx::Database>::Connection, project: ProjectId) -> StoreResult<Vec<CategoryRow>> {
    Ok(sqlx::query_as(&format!("select {CATEGORY_COLUMNS} from categories where project_id = $1"))
        .bind(project.0)
        .fetch_all(conn)
        .await?)
}

/// Takes the categories `gone` out of every call of `project` that names them: as its primary
/// category (the call becomes uncategorized and raises `call.category_changed`) or among its
/// classification's matches. When `every` category goes, classifications become null (decisions
/// §7: a project without categories classifies nothing). The calls' `updated_at` moves, so the
/// search index follows. A call changed by another transaction since it was read keeps that
/// change (whose categories the foreign key and the taxonomy lock have checked).
async fn uncategorize_calls(
    tx: &mut Tx<'_>,
    project: ProjectId,
    gone: &std::collections::HashSet<Uuid>,
    every: bool,
    now: Timestamp,
) -> StoreResult<()> {
    if gone.is_empty() {
        return Ok(());
    }
    // The text of the JSON holds a category's id wherever a match names it (id or path).
    let naming = if every {
        "primary_category_id is not null or classification is not null".to_owned()
    } else {
        (0..gone.len())
            .map(|i| format!("primary_category_id = ${} or cast(classification as text) like ${}", 2 * i + 2, 2 * i + 3))
            .collect::<Vec<_>>()
            .join(" or ")
    };
    let sql = format!("select id, primary_category_id, classification, updated_at from calls where project_id = $1 and ({naming})");
    let mut query = sqlx::query_as::<_, (Uuid, Option<Uuid>, Option<Json<serde_json::Value>>, Timestamp)>(&sql).bind(project.0);
    if !every {
        for category in gone {
            query = query.bind(*category).bind(format!("%{category}%"));
        }
    }
    let calls = query.fetch_all(&mut **tx).await?;
    for (call, primary, classification, read_at) in calls {
        let lost_primary = primary.filter(|p| gone.contains(p));
        // Some(new value) when the classification changes.
        let cleaned = match &classification {
            Some(_) if every => Some(None),
            Some(c) => crate::classification::without_categories(&c.0, gone).map(Some),
            None => None,
        };
        if lost_primary.is_none() && cleaned.is_none() {
            continue;
        }
        let changed = sqlx::query(
            // A category chosen by hand that is gone no longer holds the call: re-analysis may
            // classify it again.
            "update calls set primary_category_id = case when $3 then null else primary_category_id end, \
             category_manual = case when $3 then false else category_manual end, \
             classification = case when $4 then $5 else classification end, updated_at = $6 \
             where id = $1 and project_id = $2 and updated_at = $7",
        )
        .bind(call)
        .bind(project.0)
        .bind(lost_primary.is_some())
        .bind(cleaned.is_some())
        .bind(cleaned.flatten().map(Json))
        .bind(now)
        .bind(read_at)
        .execute(&mut **tx)
        .await?;
        if let (Some(previous), 1) = (lost_primary, changed.rows_affected()) {
            let event = NewEvent {
                kind: "call.category_changed",
                payload: serde_json::json!({ "callId": call, "previousCategoryId": previous, "categoryId": null }),
            };
            insert_event(tx, project.0, &event, now).await?;
        }
    }
    Ok(())
}

/// Holds the project's taxonomy row until the transaction ends, so that no category is deleted
/// meanwhile (deletes take the same row first). Only PostgreSQL needs it: a writing SQLite
/// transaction holds the whole database, and a read before its first write would only risk a
/// busy upgrade.
async fn hold_taxonomy(tx: &mut Tx<'_>, project: Uuid) -> StoreResult<()> {
    if !ROW_LOCK.is_empty() {
        sqlx::query(&format!("select id from taxonomies where project_id = $1 {ROW_LOCK}")).bind(project).execute(&mut **tx).await?;
    }
    Ok(())
}

/// The project's categories as they are for the rest of this transaction.
async fn categories_held(tx: &mut Tx<'_>, project: Uuid) -> StoreResult<std::collections::HashSet<Uuid>> {
    hold_taxonomy(tx, project).await?;
    let ids: Vec<(Uuid,)> = sqlx::query_as("select id from categories where project_id = $1").bind(project).fetch_all(&mut **tx).await?;
    Ok(ids.into_iter().map(|(id,)| id).collect())
}

/// The classification an analysis made, without the matches of categories deleted since.
async fn current_classification(
    tx: &mut Tx<'_>,
    project: Uuid,
    classification: Option<&serde_json::Value>,
) -> StoreResult<Option<serde_json::Value>> {
    let Some(classification) = classification else { return Ok(None) };
    let exist = categories_held(tx, project).await?;
    Ok(Some(crate::classification::within(classification, &exist).unwrap_or_else(|| classification.clone())))
}

/// The children of `parent` in display order, without `except`.
fn siblings_of(all: &[CategoryRow], parent: Option<Uuid>, except: Option<Uuid>) -> Vec<CategoryRow> {
    let mut siblings: Vec<CategoryRow> =
        all.iter().filter(|c| c.parent_id == parent && Some(c.id) != except).cloned().collect();
    siblings.sort_by(|a, b| (a.display_order, &a.name, a.id).cmp(&(b.display_order, &b.name, b.id)));
    siblings
}

fn ids(rows: &[CategoryRow]) -> Vec<CategoryId> {
    rows.iter().map(|c| c.id.into()).collect()
}

/// Gives each category of `order` its index as display order, writing only those that change
/// (`skip` is the node being placed, written by the caller).
async fn renumber(
    tx: &mut Tx<'_>,
    all: &[CategoryRow],
    order: &[CategoryId],
    skip: CategoryId,
    now: Timestamp,
) -> StoreResult<()> {
    let current: HashMap<Uuid, i32> = all.iter().map(|c| (c.id, c.display_order)).collect();
    for (position, id) in order.iter().enumerate() {
        let position = position as i32;
        if *id != skip && current.get(&id.0) != Some(&position) {
            sqlx::query("update categories set display_order = $2, updated_at = $3 where id = $1")
                .bind(id.0)
                .bind(position)
                .bind(now)
                .execute(&mut **tx)
                .await?;
        }
    }
    Ok(())
}

async fn deactivate_templates(tx: &mut Tx<'_>, project: ProjectId, except: TemplateId, now: Timestamp) -> StoreResult<()> {
    sqlx::query(
        "update analysis_templates set is_active = $3, updated_at = $4 where project_id = $1 and is_active and id <> $2",
    )
    .bind(project.0)
    .bind(except.0)
    .bind(false)
    .bind(now)
    .execute(&mut **tx)
    .await?;
    Ok(())
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

async fn insert_api_key(
    tx: &mut sqlx::Transaction<'_, Db>,
    org: Uuid,
    name: &str,
    digest: &KeyDigest,
    now: callscope_domain::Timestamp,
) -> StoreResult<ApiKey> {
    let row: ApiKeyRow = sqlx::query_as(
        "insert into api_keys (id, organization_id, name, key_hash, created_at) values ($1, $2, $3, $4, $5) \
         returning id, organization_id, name, created_at, revoked_at",
    )
    .bind(ApiKeyId::new().0)
    .bind(org)
    .bind(name)
    .bind(digest.as_str())
    .bind(now)
    .fetch_one(&mut **tx)
    .await?;
    Ok(row.into())
}
