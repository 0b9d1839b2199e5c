// Organizations, API keys and projects: the SQL of `TenancyStore` (`src/tenancy.rs`). Included by both backends after
// `sql/store.rs` (see `sql/all.rs`), which holds the imports and the `SqlStore` every area implements.

#[async_trait]
impl TenancyStore for SqlStore {
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

    async fn active_key_digest(&self, id: ApiKeyId) -> StoreResult<Option<(OrgId, KeyDigest)>> {
        let row: Option<(Uuid, String)> =
            sqlx::query_as("select organization_id, key_hash from api_keys where id = $1 and revoked_at is null")
                .bind(id.0)
                .fetch_optional(&self.pool)
                .await?;
        Ok(row.map(|(org, digest)| (OrgId(org), KeyDigest::from_hex(digest))))
    }

    async fn active_key_digests(&self) -> StoreResult<Vec<KeyDigest>> {
        let rows: Vec<(String,)> =
            sqlx::query_as("select key_hash from api_keys where revoked_at is null").fetch_all(&self.pool).await?;
        Ok(rows.into_iter().map(|(digest,)| KeyDigest::from_hex(digest)).collect())
    }

    async fn create_project(&self, org: OrgId, new: &NewProject) -> StoreResult<Project> {
        let now = self.clock.now();
        let row: ProjectRow = sqlx::query_as(&format!(
            "insert into projects ({PROJECT_COLUMNS}) values ($1, $2, $3, $4, $5, $6, $7, $8, $9) returning {PROJECT_COLUMNS}"
        ))
        .bind(ProjectId::new().0)
        .bind(org.0)
        .bind(&new.name)
        .bind(&new.description)
        .bind(new.default_language.as_str())
        .bind(new.pii_redaction.as_str())
        .bind(now)
        .bind(now)
        .bind(new.time_zone.name())
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
               updated_at = $8, \
               time_zone = coalesce($9, time_zone) \
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
        .bind(patch.time_zone.map(|z| z.name()))
        .fetch_optional(&self.pool)
        .await?;
        row.map(ProjectRow::into_domain).transpose()
    }
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
