// A project's vocabulary: the SQL of `VocabularyStore` (`src/vocabulary.rs`). Included by both backends after `sql/store.rs`
// (see `sql/all.rs`), which holds the imports and the `SqlStore` every area implements.

#[async_trait]
impl VocabularyStore for SqlStore {
    async fn get_vocabulary(&self, project: ProjectId) -> StoreResult<Vocabulary> {
        let row: Option<(Json<Vocabulary>,)> =
            sqlx::query_as("select terms from vocabularies where project_id = $1").bind(project.0).fetch_optional(&self.pool).await?;
        Ok(row.map(|r| r.0 .0).unwrap_or_default())
    }

    async fn set_vocabulary(&self, project: ProjectId, vocabulary: &Vocabulary) -> StoreResult<Vocabulary> {
        sqlx::query(
            "insert into vocabularies (project_id, terms, updated_at) values ($1, $2, $3) \
             on conflict (project_id) do update set terms = excluded.terms, updated_at = excluded.updated_at",
        )
        .bind(project.0)
        .bind(Json(vocabulary))
        .bind(self.clock.now())
        .execute(&self.pool)
        .await?;
        Ok(vocabulary.clone())
    }
}
