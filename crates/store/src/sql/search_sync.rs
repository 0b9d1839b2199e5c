// What the search index reads: the SQL of `SearchSyncStore` (`src/search_sync.rs`). Included by both backends after
// `sql/store.rs` (see `sql/all.rs`), which holds the imports and the `SqlStore` every area implements.

#[async_trait]
impl SearchSyncStore for SqlStore {
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

    async fn deleted_calls(&self, since: Timestamp) -> StoreResult<Erasures> {
        let rows: Vec<(Uuid, Timestamp)> =
            sqlx::query_as("select call_id, deleted_at from call_deletions where deleted_at >= $1 order by deleted_at, call_id")
                .bind(since)
                .fetch_all(&self.pool)
                .await?;
        // After the rows: a prune that took some of them has recorded its horizon by now.
        let pruned: Option<(Timestamp,)> = sqlx::query_as("select newest_pruned from pruned_call_deletions").fetch_optional(&self.pool).await?;
        Ok(Erasures { calls: rows.into_iter().map(|(id, at)| (CallId(id), at)).collect(), pruned_through: pruned.map(|(at,)| at) })
    }

    async fn prune_deleted_calls(&self, before: Timestamp) -> StoreResult<u64> {
        let mut tx = self.pool.begin().await?;
        let newest: Option<(Timestamp,)> =
            sqlx::query_as("select deleted_at from call_deletions where deleted_at < $1 order by deleted_at desc limit 1")
                .bind(before)
                .fetch_optional(&mut *tx)
                .await?;
        let Some((newest,)) = newest else { return Ok(0) };
        sqlx::query(
            "insert into pruned_call_deletions (singleton, newest_pruned) values ($1, $2) on conflict (singleton) \
             do update set newest_pruned = excluded.newest_pruned where pruned_call_deletions.newest_pruned < excluded.newest_pruned",
        )
        .bind(true)
        .bind(newest)
        .execute(&mut *tx)
        .await?;
        let done = sqlx::query("delete from call_deletions where deleted_at <= $1").bind(newest).execute(&mut *tx).await?;
        tx.commit().await?;
        Ok(done.rows_affected())
    }

    async fn search_documents(&self, project: Option<ProjectId>, ids: &[CallId]) -> StoreResult<Vec<SearchDocument>> {
        type Row = (Uuid, Uuid, String, Timestamp, Timestamp, Option<String>, String, Option<Json<StoredSummary>>);
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
                    summary: summary.map(|s| s.0.summary.searchable_text()).unwrap_or_default(),
                });
            }
        }
        Ok(documents)
    }
}
