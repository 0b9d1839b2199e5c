// A project's speaker presets: the SQL of `PresetStore` (`src/presets.rs`). Included by both backends after `sql/store.rs` (see
// `sql/all.rs`), which holds the imports and the `SqlStore` every area implements.

#[async_trait]
impl PresetStore for SqlStore {
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
        hold_one_per_project_rules(&mut tx, project).await?;
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
}
