// Webhooks, the event outbox and deliveries: the SQL of `WebhookStore` (`src/webhooks.rs`). Included by both backends after
// `sql/store.rs` (see `sql/all.rs`), which holds the imports and the `SqlStore` every area implements.

#[async_trait]
impl WebhookStore for SqlStore {
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

    async fn list_deliveries(&self, project: ProjectId, webhook: WebhookId, limit: u32) -> StoreResult<Vec<WebhookDelivery>> {
        webhook_in_project(&self.pool, project, webhook).await?;
        let rows: Vec<DeliveryRow> = sqlx::query_as(&format!(
            "select {DELIVERY_COLUMNS} from webhook_deliveries d join events e on e.id = d.event_id \
             where d.webhook_id = $1 order by d.created_at desc, d.id desc limit $2"
        ))
        .bind(webhook.0)
        .bind(i64::from(limit))
        .fetch_all(&self.pool)
        .await?;
        rows.into_iter().map(DeliveryRow::into_delivery).collect()
    }

    async fn create_test_delivery(&self, project: ProjectId, webhook: WebhookId, data: &serde_json::Value) -> StoreResult<WebhookDelivery> {
        let now = self.clock.now();
        let mut tx = self.pool.begin().await?;
        // A write first: on SQLite a transaction that reads first cannot become the writer while
        // another one writes (the dispatcher, say), and fails at once instead of waiting. An
        // event of a webhook that is not the project's is rolled back with the transaction.
        let event = insert_event_row(&mut tx, project.0, &Event::WebhookTest(data.clone()), now).await?;
        webhook_in_project(&mut *tx, project, webhook).await?;
        let id = insert_delivery(&mut tx, webhook.0, event, now).await?;
        tx.commit().await?;
        get_delivery(&self.pool, id).await
    }

    async fn redeliver(&self, project: ProjectId, webhook: WebhookId, id: WebhookDeliveryId) -> StoreResult<WebhookDelivery> {
        webhook_in_project(&self.pool, project, webhook).await?;
        // The lease goes too: an attempt in flight now finds its delivery no longer its own, so
        // its outcome cannot overwrite the redelivery, and the next claim sends it again.
        let done = sqlx::query(
            "update webhook_deliveries set status = 'PENDING', retry_step = 0, next_attempt_at = $3, \
             lease_owner = null, lease_until = null where id = $1 and webhook_id = $2",
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

    async fn claim_deliveries(
        &self,
        worker: &str,
        lease: std::time::Duration,
        limits: &crate::ClaimLimits,
    ) -> StoreResult<Vec<crate::ClaimedDelivery>> {
        let now = self.clock.now();
        // Whole milliseconds, like every stored time, so that the read below finds it equal.
        let lease_ms = i64::try_from(lease.as_millis()).unwrap_or(i64::MAX);
        let until = now + chrono::TimeDelta::try_milliseconds(lease_ms).unwrap_or_else(|| lease_delta(lease));
        // The candidates, oldest due first, less the webhooks that have their fill in flight;
        // a few times the claim's size, so that one webhook's backlog leaves room for others.
        // The literal status list lets both databases use the partial index of due deliveries.
        let full: Vec<Uuid> = limits.in_flight.keys().filter(|w| limits.allowance(**w) == 0).map(|w| w.0).collect();
        let skip = if full.is_empty() {
            String::new()
        } else {
            format!(" and webhook_id not in ({})", (0..full.len()).map(|i| format!("${}", i + 4)).collect::<Vec<_>>().join(", "))
        };
        let candidates_sql = format!(
            "select id, webhook_id from webhook_deliveries \
             where status in ('PENDING', 'RETRYING') and next_attempt_at <= $1 and (lease_until is null or lease_until <= $2){skip} \
             order by next_attempt_at, id limit $3"
        );
        let mut candidates = sqlx::query_as::<_, (Uuid, Uuid)>(&candidates_sql)
        .bind(now)
        .bind(now)
        .bind(i64::from(limits.total).saturating_mul(4));
        for webhook in &full {
            candidates = candidates.bind(*webhook);
        }
        let mut taken: std::collections::HashMap<Uuid, u32> = std::collections::HashMap::new();
        let mut picked: Vec<Uuid> = Vec::new();
        for (id, webhook) in candidates.fetch_all(&self.pool).await? {
            let count = taken.entry(webhook).or_insert(0);
            if picked.len() < limits.total as usize && *count < limits.allowance(callscope_domain::WebhookId(webhook)) {
                *count += 1;
                picked.push(id);
            }
        }
        if picked.is_empty() {
            return Ok(Vec::new());
        }
        // Taken only if still due and free: a dispatcher that read the same candidates and
        // claimed first (or sent one and scheduled its retry since) keeps them.
        let ids = (0..picked.len()).map(|i| format!("${}", i + 4)).collect::<Vec<_>>().join(", ");
        let claim_sql = format!(
            "update webhook_deliveries set lease_owner = $1, lease_until = $2 \
             where id in ({ids}) and status in ('PENDING', 'RETRYING') and next_attempt_at <= $3 \
               and (lease_until is null or lease_until <= $3)"
        );
        let mut claim = sqlx::query(&claim_sql)
        .bind(worker)
        .bind(until)
        .bind(now);
        for id in &picked {
            claim = claim.bind(*id);
        }
        claim.execute(&self.pool).await?;
        // The rows this claim took: of those it picked, this owner's with this very lease (an
        // earlier claim of the same owner in the same millisecond has the same lease, and its
        // deliveries are already in flight).
        let read_back = format!(
            "select {DELIVERY_COLUMNS}, d.retry_step, w.url, w.secret, e.project_id, e.created_at as event_created_at, e.payload \
             from webhook_deliveries d join events e on e.id = d.event_id join webhooks w on w.id = d.webhook_id \
             where d.lease_owner = $1 and d.lease_until = $2 and d.id in ({}) order by d.next_attempt_at, d.id",
            (0..picked.len()).map(|i| format!("${}", i + 3)).collect::<Vec<_>>().join(", ")
        );
        let mut rows = sqlx::query_as::<_, DeliveryClaimRow>(&read_back).bind(worker).bind(until);
        for id in &picked {
            rows = rows.bind(*id);
        }
        let rows = rows.fetch_all(&self.pool).await?;
        let claimed = rows
            .into_iter()
            .map(|r| {
                Ok(crate::ClaimedDelivery {
                delivery: r.delivery.into_delivery()?,
                retry_step: r.retry_step,
                url: r.url,
                secret: r.secret,
                project_id: ProjectId(r.project_id),
                event_created_at: r.event_created_at,
                data: r.payload.0,
            })
            })
            .collect::<StoreResult<Vec<_>>>()?;
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
        .bind(attempt.status.as_str())
        .bind(attempt.retry_step)
        .bind(attempt.response_code)
        .bind(attempt.error_message.as_deref())
        .bind(attempt.attempted_at)
        .bind(attempt.next_attempt_at)
        .execute(&self.pool)
        .await?;
        if done.rows_affected() == 1 {
            return Ok(true);
        }
        // The delivery is no longer this attempt's (a redelivery took it, or the lease ran out
        // and another dispatcher claimed it): its outcome does not overwrite the delivery's
        // state, but the request was made, so it still counts among the attempts.
        sqlx::query("update webhook_deliveries set attempts = attempts + 1 where id = $1").bind(id.0).execute(&self.pool).await?;
        Ok(false)
    }

    async fn prune_events(&self, before: Timestamp) -> StoreResult<u64> {
        // Deliveries go with their events (on delete cascade). A thousand at a time, so that a
        // first prune of a long history does not hold the database's writers for long.
        let mut pruned = 0;
        loop {
            let done = sqlx::query("delete from events where id in (select id from events where created_at < $1 limit 1000)")
                .bind(before)
                .execute(&self.pool)
                .await?;
            pruned += done.rows_affected();
            if done.rows_affected() < 1000 {
                return Ok(pruned);
            }
        }
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

async fn insert_event(tx: &mut Tx<'_>, project: Uuid, event: &Event, now: Timestamp) -> StoreResult<()> {
    let id = insert_event_row(tx, project, event, now).await?;
    // A delivery for every webhook active now and subscribed: in this transaction, so that a
    // webhook paused at this moment never gets the event and a crash loses none.
    let hooks: Vec<(Uuid, Json<Vec<String>>)> =
        sqlx::query_as("select id, events from webhooks where project_id = $1 and active order by created_at, id")
            .bind(project)
            .fetch_all(&mut **tx)
            .await?;
    for (webhook, events) in hooks {
        if events.0.iter().any(|e| e == callscope_domain::ALL_EVENTS || e == event.kind()) {
            insert_delivery(tx, webhook, id, now).await?;
        }
    }
    Ok(())
}

/// Writes an event to the outbox, and nothing else; returns its id.
async fn insert_event_row(tx: &mut Tx<'_>, project: Uuid, event: &Event, now: Timestamp) -> StoreResult<Uuid> {
    let id = Uuid::now_v7();
    sqlx::query("insert into events (id, project_id, type, payload, created_at) values ($1, $2, $3, $4, $5)")
        .bind(id)
        .bind(project)
        .bind(event.kind())
        .bind(Json(event.data()))
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

async fn get_delivery(pool: &sqlx::Pool<Db>, id: Uuid) -> StoreResult<WebhookDelivery> {
    let row: Option<DeliveryRow> = sqlx::query_as(&format!(
        "select {DELIVERY_COLUMNS} from webhook_deliveries d join events e on e.id = d.event_id where d.id = $1"
    ))
    .bind(id)
    .fetch_optional(pool)
    .await?;
    row.map(DeliveryRow::into_delivery).ok_or(StoreError::NotFound("delivery"))?
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
    fn into_delivery(self) -> StoreResult<WebhookDelivery> {
        Ok(WebhookDelivery {
            id: WebhookDeliveryId(self.id),
            webhook_id: WebhookId(self.webhook_id),
            event_id: self.event_id,
            event_type: self.event_type,
            status: crate::parse_stored("webhook_deliveries.status", &self.status)?,
            attempts: self.attempts,
            response_code: self.response_code,
            error_message: self.error_message,
            last_attempt_at: self.last_attempt_at,
            next_attempt_at: self.next_attempt_at,
            created_at: self.created_at,
        })
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
