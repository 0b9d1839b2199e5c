// A project's analysis templates: the SQL of `TemplateStore` (`src/templates.rs`). Included by both backends after `sql/store.rs` (see
// `sql/all.rs`), which holds the imports and the `SqlStore` every area implements.

#[async_trait]
impl TemplateStore for SqlStore {
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
}

async fn deactivate_templates(tx: &mut Tx<'_>, project: ProjectId, except: TemplateId, now: Timestamp) -> StoreResult<()> {
    hold_one_per_project_rules(&mut *tx, project).await?;
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

/// Waits for any other transaction that keeps one of the project's one-per-project rules (the
/// active template, the default preset) and holds the project until this one ends. Without it,
/// two PostgreSQL transactions could each step the other's choice down unseen and then both
/// break the partial unique index; SQLite runs one writer at a time anyway.
async fn hold_one_per_project_rules(tx: &mut Tx<'_>, project: ProjectId) -> StoreResult<()> {
    if !NO_KEY_LOCK.is_empty() {
        sqlx::query(&format!("select id from projects where id = $1 {NO_KEY_LOCK}")).bind(project.0).execute(&mut **tx).await?;
    }
    Ok(())
}
