// A project's rules and the calls they matched: the SQL of `RuleStore` (`src/rules.rs`). Included by both backends after
// `sql/store.rs` (see `sql/all.rs`), which holds the imports and the `SqlStore` every area implements.

/// What joins the labels of a call's rules in the calls lists' query (no label holds it: it is a
/// control character).
const LABEL_SEPARATOR: char = '\u{1f}';

/// The columns a rule is read from.
const RULE_COLUMNS: &str = "id, project_id, rule, created_at, updated_at, sweep_pending, sweep_filed";

type RuleRow = (Uuid, Uuid, Json<RuleInput>, Timestamp, Timestamp, bool, i64);

fn rule_of((id, project, input, created_at, updated_at, filing_pending, calls_filed): RuleRow) -> Rule {
    Rule { id: RuleId(id), project_id: ProjectId(project), input: input.0, created_at, updated_at, filing_pending, calls_filed }
}

/// When a lease taken now for `lease` ends.
fn lease_end(now: Timestamp, lease: std::time::Duration) -> Timestamp {
    now + chrono::TimeDelta::from_std(lease).unwrap_or(chrono::TimeDelta::MAX)
}

/// A rule's name as uniqueness compares it.
fn rule_name_key(name: &str) -> String {
    name.trim().to_lowercase()
}

/// Whether a database error is the rule-name index refusing a duplicate.
fn duplicate_rule_name(error: &sqlx::Error) -> bool {
    matches!(error, sqlx::Error::Database(e) if e.is_unique_violation())
}

#[async_trait]
impl RuleStore for SqlStore {
    async fn list_rules(&self, project: ProjectId) -> StoreResult<Vec<Rule>> {
        let rows: Vec<RuleRow> = sqlx::query_as(&format!("select {RULE_COLUMNS} from rules where project_id = $1 order by created_at, id"))
            .bind(project.0)
            .fetch_all(&self.pool)
            .await?;
        Ok(rows.into_iter().map(rule_of).collect())
    }

    async fn get_rule(&self, project: ProjectId, id: RuleId) -> StoreResult<Rule> {
        let row: Option<RuleRow> = sqlx::query_as(&format!("select {RULE_COLUMNS} from rules where id = $1 and project_id = $2"))
            .bind(id.0)
            .bind(project.0)
            .fetch_optional(&self.pool)
            .await?;
        row.map(rule_of).ok_or(StoreError::NotFound("rule"))
    }

    async fn create_rule(&self, project: ProjectId, input: &RuleInput) -> StoreResult<Rule> {
        let now = self.clock.now();
        let mut tx = self.pool.begin().await?;
        // The project's row lock (the database's, on SQLite) keeps two creations from both
        // passing the limit.
        sqlx::query("update projects set updated_at = updated_at where id = $1").bind(project.0).execute(&mut *tx).await?;
        let (count,): (i64,) = sqlx::query_as("select count(*) from rules where project_id = $1").bind(project.0).fetch_one(&mut *tx).await?;
        if usize::try_from(count).unwrap_or(usize::MAX) >= callscope_domain::RULES_PER_PROJECT_MAX {
            return Err(StoreError::Rejected(Rejection::TooManyRules));
        }
        let inserted = sqlx::query_as(&format!(
            "insert into rules (id, project_id, name, name_key, rule, created_at, updated_at) values ($1, $2, $3, $4, $5, $6, $6) \
             returning {RULE_COLUMNS}"
        ))
        .bind(Uuid::now_v7())
        .bind(project.0)
        .bind(&input.name)
        .bind(rule_name_key(&input.name))
        .bind(Json(input))
        .bind(now)
        .fetch_one(&mut *tx)
        .await;
        let row: RuleRow = match inserted {
            Err(e) if duplicate_rule_name(&e) => return Err(StoreError::Rejected(Rejection::DuplicateRule)),
            other => other?,
        };
        tx.commit().await?;
        Ok(rule_of(row))
    }

    async fn replace_rule(&self, project: ProjectId, id: RuleId, input: &RuleInput) -> StoreResult<Rule> {
        let updated = sqlx::query_as(&format!(
            "update rules set name = $3, name_key = $4, rule = $5, updated_at = $6, sweep_pending = TRUE, sweep_after_created = null, \
             sweep_after_id = null, sweep_filed = 0, sweep_worker = null, sweep_lease_until = null \
             where id = $1 and project_id = $2 returning {RULE_COLUMNS}"
        ))
        .bind(id.0)
        .bind(project.0)
        .bind(&input.name)
        .bind(rule_name_key(&input.name))
        .bind(Json(input))
        .bind(self.clock.now())
        .fetch_optional(&self.pool)
        .await;
        let row: Option<RuleRow> = match updated {
            Err(e) if duplicate_rule_name(&e) => return Err(StoreError::Rejected(Rejection::DuplicateRule)),
            other => other?,
        };
        row.map(rule_of).ok_or(StoreError::NotFound("rule"))
    }

    async fn delete_rule(&self, project: ProjectId, id: RuleId) -> StoreResult<()> {
        let mut tx = self.pool.begin().await?;
        // Its matches first: SQLite's foreign keys cascade only when the connection enables them.
        sqlx::query("delete from rule_matches where rule_id = $1 and project_id = $2").bind(id.0).bind(project.0).execute(&mut *tx).await?;
        let done = sqlx::query("delete from rules where id = $1 and project_id = $2").bind(id.0).bind(project.0).execute(&mut *tx).await?;
        if done.rows_affected() == 0 {
            return Err(StoreError::NotFound("rule"));
        }
        tx.commit().await?;
        Ok(())
    }

    async fn set_rule_matches(&self, project: ProjectId, call: CallId, evaluated: &[RuleId], matches: &[RuleMatch]) -> StoreResult<Vec<RuleMatch>> {
        let now = self.clock.now();
        let mut tx = self.pool.begin().await?;
        touch_call(&mut tx, project, call, now).await?;
        let before: Vec<(Uuid,)> = sqlx::query_as("select rule_id from rule_matches where call_id = $1").bind(call.0).fetch_all(&mut *tx).await?;
        if !evaluated.is_empty() {
            // One statement for the rules evaluated (at most a project's 100), not one each.
            let placeholders: Vec<String> = (2..evaluated.len() + 2).map(|i| format!("${i}")).collect();
            let delete = format!("delete from rule_matches where call_id = $1 and rule_id in ({})", placeholders.join(", "));
            let query = evaluated.iter().fold(sqlx::query(&delete).bind(call.0), |query, rule| query.bind(rule.0));
            query.execute(&mut *tx).await?;
        }
        let mut new = Vec::new();
        for matched in matches {
            // A rule deleted meanwhile matches nothing.
            let inserted = sqlx::query(
                "insert into rule_matches (call_id, rule_id, project_id, label, evidence, matched_at) \
                 select $1, id, project_id, $3, $4, $5 from rules where id = $2 and project_id = $6",
            )
            .bind(call.0)
            .bind(matched.rule_id.0)
            .bind(&matched.label)
            .bind(Json(&matched.evidence))
            .bind(now)
            .bind(project.0)
            .execute(&mut *tx)
            .await?;
            if inserted.rows_affected() == 1 && !before.iter().any(|(r,)| *r == matched.rule_id.0) {
                let event = Event::CallRuleMatched(callscope_domain::RuleMatched { call_id: call, matched: matched.clone() });
                insert_event(&mut tx, project.0, &event, now).await?;
                new.push(matched.clone());
            }
        }
        tx.commit().await?;
        Ok(new)
    }

    async fn claim_rule_sweep(&self, worker: &str, lease: std::time::Duration) -> StoreResult<Option<RuleSweep>> {
        let now = self.clock.now();
        // The outer condition again: of two workers that picked the same rule, the second
        // updates nothing once the first has taken it.
        let row: Option<(Uuid, Uuid, Json<RuleInput>, Timestamp, Timestamp, bool, i64, Option<Timestamp>, Option<Uuid>)> = sqlx::query_as(&format!(
            "update rules set sweep_worker = $1, sweep_lease_until = $2 \
             where id = (select id from rules where sweep_pending and (sweep_lease_until is null or sweep_lease_until < $3) \
                         order by updated_at, id limit 1) \
               and sweep_pending and (sweep_lease_until is null or sweep_lease_until < $3) \
             returning {RULE_COLUMNS}, sweep_after_created, sweep_after_id"
        ))
        .bind(worker)
        .bind(lease_end(now, lease))
        .bind(now)
        .fetch_optional(&self.pool)
        .await?;
        Ok(row.map(|(id, project, input, created_at, updated_at, pending, filed, after_created, after_id)| RuleSweep {
            rule: rule_of((id, project, input, created_at, updated_at, pending, filed)),
            after: after_created.zip(after_id.map(CallId)),
        }))
    }

    async fn calls_after(&self, project: ProjectId, after: Option<(Timestamp, CallId)>, limit: u32) -> StoreResult<Vec<(Timestamp, CallId)>> {
        let rows: Vec<(Timestamp, Uuid)> = sqlx::query_as(
            "select created_at, id from calls where project_id = $1 \
             and ($2 is null or created_at > $2 or (created_at = $2 and id > $3)) order by created_at, id limit $4",
        )
        .bind(project.0)
        .bind(after.map(|a| a.0))
        .bind(after.map(|a| a.1 .0))
        .bind(i64::from(limit))
        .fetch_all(&self.pool)
        .await?;
        Ok(rows.into_iter().map(|(at, id)| (at, CallId(id))).collect())
    }

    async fn advance_rule_sweep(
        &self,
        rule: RuleId,
        worker: &str,
        reached: Option<(Timestamp, CallId)>,
        filed: u64,
        finished: bool,
        lease: std::time::Duration,
    ) -> StoreResult<bool> {
        let now = self.clock.now();
        let held = (!finished).then(|| (worker.to_owned(), lease_end(now, lease)));
        let done = sqlx::query(
            "update rules set sweep_after_created = coalesce($3, sweep_after_created), sweep_after_id = coalesce($4, sweep_after_id), \
             sweep_filed = sweep_filed + $5, sweep_pending = $6, sweep_worker = $7, sweep_lease_until = $8 \
             where id = $1 and sweep_worker = $2 and sweep_pending",
        )
        .bind(rule.0)
        .bind(worker)
        .bind(reached.map(|r| r.0))
        .bind(reached.map(|r| r.1 .0))
        .bind(i64::try_from(filed).unwrap_or(i64::MAX))
        .bind(!finished)
        .bind(held.as_ref().map(|h| h.0.clone()))
        .bind(held.map(|h| h.1))
        .execute(&self.pool)
        .await?;
        Ok(done.rows_affected() == 1)
    }

    async fn call_rule_matches(&self, project: ProjectId, call: CallId) -> StoreResult<Vec<RuleMatch>> {
        let rows: Vec<(Uuid, String, Json<Vec<RuleEvidence>>)> =
            sqlx::query_as("select rule_id, label, evidence from rule_matches where call_id = $1 and project_id = $2 order by label, rule_id")
                .bind(call.0)
                .bind(project.0)
                .fetch_all(&self.pool)
                .await?;
        Ok(rows.into_iter().map(|(rule, label, evidence)| RuleMatch { rule_id: RuleId(rule), label, evidence: evidence.0 }).collect())
    }
}
