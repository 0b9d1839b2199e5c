// Action items: the SQL of `ActionItemStore` (`src/action_items.rs`). Included by both backends after
// `sql/store.rs` (see `sql/all.rs`), which holds the imports and the `SqlStore` every area implements.

#[async_trait]
impl ActionItemStore for SqlStore {
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
        list.items = page.iter().filter_map(|id| by_id.remove(id)).map(ActionItemRow::into_item).collect::<StoreResult<_>>()?;
        Ok(list)
    }

    async fn get_action_item(&self, project: ProjectId, id: ActionItemId) -> StoreResult<ActionItem> {
        let row: Option<ActionItemRow> =
            sqlx::query_as(&format!("select {ACTION_ITEM_COLUMNS} from action_items where id = $1 and project_id = $2"))
                .bind(id.0)
                .bind(project.0)
                .fetch_optional(&self.pool)
                .await?;
        row.map(ActionItemRow::into_item).ok_or(StoreError::NotFound("action item"))?
    }

    async fn update_action_item(&self, project: ProjectId, id: ActionItemId, patch: &ActionItemPatch) -> StoreResult<ActionItem> {
        let now = self.clock.now();
        let mut tx = self.pool.begin().await?;
        lock_item_call(&mut tx, project, id).await?;
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
        let item = patch.apply(&row.into_item()?, now);
        write_item(&mut tx, &item).await?;
        let event = Event::ActionItemUpdated(Box::new(ActionItemView::new(&item, now)));
        insert_event(&mut tx, project.0, &event, now).await?;
        tx.commit().await?;
        Ok(item)
    }

    async fn delete_action_item(&self, project: ProjectId, id: ActionItemId) -> StoreResult<()> {
        let now = self.clock.now();
        let mut tx = self.pool.begin().await?;
        lock_item_call(&mut tx, project, id).await?;
        remove_item(&mut tx, project, id).await?;
        insert_event(&mut tx, project.0, &Event::ActionItemDeleted(id), now).await?;
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
        rows.into_iter().map(ActionItemRow::into_item).collect()
    }

    async fn add_action_item(&self, project: ProjectId, call: CallId, item: &NewActionItem) -> StoreResult<ActionItem> {
        let now = self.clock.now();
        let mut tx = self.pool.begin().await?;
        let found: Option<(Option<Timestamp>, Timestamp, String)> =
            sqlx::query_as(&format!("select recorded_at, created_at, filename from calls where id = $1 and project_id = $2 {NO_KEY_LOCK}"))
                .bind(call.0)
                .bind(project.0)
                .fetch_optional(&mut *tx)
                .await?;
        let (recorded_at, created_at, filename) = found.ok_or(StoreError::NotFound("call"))?;
        let (count,): (i64,) = sqlx::query_as("select count(*) from action_items where call_id = $1").bind(call.0).fetch_one(&mut *tx).await?;
        let first = usize::try_from(count).unwrap_or(usize::MAX);
        let of = ItemsCall { id: call.0, date: recorded_at.unwrap_or(created_at), filename: &filename };
        insert_action_items(&mut tx, project.0, &of, std::slice::from_ref(item), first, now).await?;
        sqlx::query("update action_items set added_by_person = $2 where id = $1").bind(item.id.0).bind(true).execute(&mut *tx).await?;
        let row: ActionItemRow =
            sqlx::query_as(&format!("select {ACTION_ITEM_COLUMNS} from action_items where id = $1")).bind(item.id.0).fetch_one(&mut *tx).await?;
        let added = row.into_item()?;
        insert_event(&mut tx, project.0, &Event::ActionItemCreated(Box::new(ActionItemView::new(&added, now))), now).await?;
        tx.commit().await?;
        Ok(added)
    }

    async fn merge_action_items(&self, project: ProjectId, from: ActionItemId, into: ActionItemId) -> StoreResult<ActionItem> {
        if from == into {
            return Err(StoreError::Rejected(Rejection::MergeAcrossCalls));
        }
        let now = self.clock.now();
        let mut tx = self.pool.begin().await?;
        lock_item_call(&mut tx, project, into).await?;
        let sql = format!("select {ACTION_ITEM_COLUMNS} from action_items where id = $1 and project_id = $2");
        let read = |id: ActionItemId| sqlx::query_as::<_, ActionItemRow>(&sql).bind(id.0).bind(project.0);
        let target = read(into).fetch_optional(&mut *tx).await?.ok_or(StoreError::NotFound("action item"))?.into_item()?;
        let source = read(from).fetch_optional(&mut *tx).await?.ok_or(StoreError::NotFound("action item"))?.into_item()?;
        if source.call_id != target.call_id {
            return Err(StoreError::Rejected(Rejection::MergeAcrossCalls));
        }
        write_item(&mut tx, &target.merged_with(&source, now)).await?;
        remove_item(&mut tx, project, from).await?;
        // Read back in the transaction: its place may have moved up with the removal, and the
        // event should say where it is.
        let merged = read(into).fetch_one(&mut *tx).await?.into_item()?;
        insert_event(&mut tx, project.0, &Event::ActionItemUpdated(Box::new(ActionItemView::new(&merged, now))), now).await?;
        insert_event(&mut tx, project.0, &Event::ActionItemDeleted(from), now).await?;
        tx.commit().await?;
        Ok(merged)
    }

    async fn prune_item_changes(&self, before: Timestamp) -> StoreResult<u64> {
        // A project at a time, so that no statement holds the database's writers for long.
        let projects: Vec<(Uuid,)> = sqlx::query_as("select project_id from action_item_versions").fetch_all(&self.pool).await?;
        let now = self.clock.now();
        let mut pruned = 0;
        for (project,) in projects {
            // The log keeps one row per item, so only the rows of items that went can pile up.
            // The log has no time of its own (triggers write it), so housekeeping notes when it
            // first saw each such row, by the service's clock, and prunes it a retention later.
            sqlx::query(
                "update action_item_changes set gone_at = $2 where project_id = $1 and gone_at is null \
                 and not exists (select 1 from action_items a where a.id = action_item_changes.item_id)",
            )
            .bind(project)
            .bind(now)
            .execute(&self.pool)
            .await?;
            let mut tx = self.pool.begin().await?;
            let newest: Option<(i64,)> =
                sqlx::query_as("select version from action_item_changes where project_id = $1 and gone_at < $2 order by version desc limit 1")
                    .bind(project)
                    .bind(before)
                    .fetch_optional(&mut *tx)
                    .await?;
            let Some((newest,)) = newest else { continue };
            // The horizon first: a reader that sees the rows gone sees it too.
            sqlx::query("update action_item_versions set pruned_through = $2 where project_id = $1 and pruned_through < $2")
                .bind(project)
                .bind(newest)
                .execute(&mut *tx)
                .await?;
            let done = sqlx::query("delete from action_item_changes where project_id = $1 and gone_at < $2 and version <= $3")
                .bind(project)
                .bind(before)
                .bind(newest)
                .execute(&mut *tx)
                .await?;
            tx.commit().await?;
            pruned += done.rows_affected();
        }
        Ok(pruned)
    }
}

impl SqlStore {
    /// The project's change log: its version, and the newest version pruned from it.
    async fn item_log_versions(&self, project: Uuid) -> StoreResult<(i64, i64)> {
        let versions: Option<(i64, i64)> = sqlx::query_as("select version, pruned_through from action_item_versions where project_id = $1")
            .bind(project)
            .fetch_optional(&self.pool)
            .await?;
        Ok(versions.unwrap_or((0, 0)))
    }

    /// Brings the project's item index up to the database's change log: every item on first
    /// use, after that only the items changed since the version the index holds. An index older
    /// than what retention pruned from the log cannot know which of its items went, so it reads
    /// every item again.
    async fn refresh_items(&self, project: Uuid, slot: &crate::item_index::Slot) -> StoreResult<()> {
        // Read before the items, so the items are at least this new; a change read early is
        // read again with the next version, and applying it twice is harmless.
        let (version, pruned) = self.item_log_versions(project).await?;
        if slot.version().is_some_and(|held| held >= version) {
            return Ok(());
        }
        // One request at a time reads the changes; the others then find the index current.
        let _reading = slot.refresh.lock().await;
        let held = slot.version();
        if held.is_some_and(|held| held >= version) {
            return Ok(());
        }
        if let Some(held) = held.filter(|held| *held >= pruned) {
            let rows: Vec<IndexedItemRow> = sqlx::query_as(&format!(
                "select c.item_id, {INDEXED_COLUMNS} from action_item_changes c \
                 left join action_items a on a.id = c.item_id and a.project_id = c.project_id \
                 where c.project_id = $1 and c.version > $2"
            ))
            .bind(project)
            .bind(held)
            .fetch_all(&self.pool)
            .await?;
            // A prune between the version read and the changes may have taken changes this
            // index still needed; read again what the log says now.
            if self.item_log_versions(project).await?.1 <= held {
                slot.apply(version, rows.into_iter().map(IndexedItemRow::into_change).collect());
                return Ok(());
            }
            tracing::info!(project = %project, held, "the action item change log was pruned past this index; reading the project again");
        }
        let started = std::time::Instant::now();
        let rows: Vec<IndexedItemRow> = sqlx::query_as(&format!("select a.id as item_id, {INDEXED_COLUMNS} from action_items a where a.project_id = $1"))
            .bind(project)
            .fetch_all(&self.pool)
            .await?;
        let items: Vec<_> = rows.into_iter().filter_map(|row| row.into_change().1).collect();
        tracing::info!(project = %project, items = items.len(), ms = started.elapsed().as_millis() as u64, "action item index read");
        slot.install(crate::item_index::ProjectItems::new(version, items));
        self.items.evict(project);
        Ok(())
    }
}

/// The columns of `action_items a` the list index holds.
const INDEXED_COLUMNS: &str = "a.call_id, a.status, a.priority, a.responsible_key, a.call_date, a.due_at, a.created_at, a.search_text";

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
    fn into_item(self) -> StoreResult<ActionItem> {
        Ok(ActionItem {
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
            status: crate::parse_stored("action_items.status", &self.status)?,
            priority: crate::parse_stored("action_items.priority", &self.priority)?,
            notes: self.notes,
            completed_at: self.completed_at,
            created_at: self.created_at,
            updated_at: self.updated_at,
        })
    }
}

/// Takes the row of the item's call before anything of the item. Every transaction that writes a
/// call's items holds the call first: the analysis and the re-analysis write the call before its
/// items, and the erasure deletes it. The items' change-log trigger then takes the project's
/// version row, always after the call, so two writers of one call's items wait for each other at
/// the call instead of each holding what the other waits for (an item and the version row: a
/// deadlock on PostgreSQL). SQLite has one writer at a time, and a read first would only make
/// the transaction unable to become the writer.
/// Writes every field a person may change of `item`, with its filter keys.
async fn write_item(tx: &mut Tx<'_>, item: &ActionItem) -> StoreResult<()> {
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
        .bind(item.id.0)
        .bind(item.status.as_str())
        .bind(item.priority.as_str())
        .bind(&item.description)
        .bind(&item.responsible_party)
        .bind(&item.notes)
        .bind(&item.deadline_mentioned)
        .bind(item.due_at)
        .bind(item.completed_at)
        .bind(item.updated_at)
        .bind(party_key)
        .bind(search_text)
        .bind(item.priority as i32)
        .bind(item.status as i32)
        .execute(&mut **tx)
        .await?;
    Ok(())
}

/// Deletes an item; the items after it in its call's list move up (`transcriptIndex` is its
/// position there, decisions §5).
async fn remove_item(tx: &mut Tx<'_>, project: ProjectId, id: ActionItemId) -> StoreResult<()> {
        let deleted: Option<(Uuid, i32)> =
            sqlx::query_as("delete from action_items where id = $1 and project_id = $2 returning call_id, transcript_index")
                .bind(id.0)
                .bind(project.0)
                .fetch_optional(&mut **tx)
                .await?;
        let (call, position) = deleted.ok_or(StoreError::NotFound("action item"))?;
        // `transcriptIndex` is the item's position in its call's list (decisions §5): the items
        // after the deleted one move up.
        sqlx::query(
            "update action_items set transcript_index = transcript_index - 1 \
             where call_id = $1 and project_id = $2 and transcript_index > $3",
        )
        .bind(call)
        .bind(project.0)
        .bind(position)
        .execute(&mut **tx)
        .await?;
    Ok(())
}

async fn lock_item_call(tx: &mut Tx<'_>, project: ProjectId, item: ActionItemId) -> StoreResult<()> {
    if !NO_KEY_LOCK.is_empty() {
        sqlx::query(&format!(
            "select id from calls where project_id = $1 and id = \
             (select call_id from action_items where id = $2 and project_id = $1) {NO_KEY_LOCK}"
        ))
        .bind(project.0)
        .bind(item.0)
        .execute(&mut **tx)
        .await?;
    }
    Ok(())
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

/// The call items are written for: its id, date and file name, which every item repeats.
struct ItemsCall<'a> {
    id: Uuid,
    date: Timestamp,
    filename: &'a str,
}

/// Writes a call's action items, numbered in order from `first_index`, all PENDING.
async fn insert_action_items(
    tx: &mut Tx<'_>,
    project: Uuid,
    call: &ItemsCall<'_>,
    items: &[NewActionItem],
    first_index: usize,
    now: Timestamp,
) -> StoreResult<()> {
    let ItemsCall { id: call, date: call_date, filename } = *call;
    for (index, item) in items.iter().enumerate().map(|(i, item)| (first_index.saturating_add(i), item)) {
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
        .bind(item.priority.as_str())
        .bind(now)
        .bind(now)
        .bind(keys.0)
        .bind(keys.1)
        .bind(item.priority as i32)
        .execute(&mut **tx)
        .await?;
    }
    Ok(())
}
