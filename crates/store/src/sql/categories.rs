// A project's category tree: the SQL of `CategoryStore` (`src/categories.rs`). Included by both backends after `sql/store.rs` (see
// `sql/all.rs`), which holds the imports and the `SqlStore` every area implements.

#[async_trait]
impl CategoryStore for SqlStore {
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
            let domain: Vec<Category> = all.iter().cloned().map(Into::into).collect();
            if level_of(&domain, parent) >= CATEGORY_LEVELS_MAX {
                return Err(StoreError::Rejected(Rejection::TooDeep));
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
            // Checked for a new parent only: reordering among siblings makes nothing deeper.
            if node.parent_id != Some(parent.0) && level_of(&domain, parent) + subtree_levels(&domain, id) > CATEGORY_LEVELS_MAX {
                return Err(StoreError::Rejected(Rejection::TooDeep));
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
    // In a stable order: the analysis shows the model the tree as listed, and a prompt that
    // changes from call to call loses the model's cached prefix and its leaning (guided.rs).
    Ok(sqlx::query_as(&format!("select {CATEGORY_COLUMNS} from categories where project_id = $1 order by display_order, name, id"))
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
    let mut query = sqlx::query_as::<_, (Uuid, Option<Uuid>, Option<Json<Classification>>, Timestamp)>(&sql).bind(project.0);
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
            Some(Json(c)) => {
                let mut kept = c.clone();
                kept.remove_matches(|id| gone.contains(&id.0)).then_some(Some(kept))
            }
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
            let event = Event::CallCategoryChanged(CategoryChange {
                call_id: CallId(call),
                previous_category_id: Some(CategoryId(previous)),
                category_id: None,
            });
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
