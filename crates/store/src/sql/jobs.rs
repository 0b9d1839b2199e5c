// Jobs and their queue: the SQL of `JobStore` (`src/jobs.rs`). Included by both backends after
// `sql/store.rs` (see `sql/all.rs`), which holds the imports and the `SqlStore` every area implements.

#[async_trait]
impl JobStore for SqlStore {
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
        // Fair to every organization: a re-analysis (seconds of work) goes before any upload,
        // and among the rest the organization with the fewest jobs queued or running goes
        // first, so one organization's sixty four-hour uploads do not hold another's two-minute
        // calls; within an organization, first in, first out. The counts are made once per
        // claim, over the active jobs only (the partial index jobs_runnable).
        let row: Option<JobRow> = sqlx::query_as(&format!(
            "with active as (select p.organization_id as org, count(*) as n from jobs q join projects p on p.id = q.project_id \
                             where q.status in ('PENDING', 'PROCESSING') group by p.organization_id) \
             update jobs set status = $1, attempts = attempts + 1, lease_until = $2, worker_id = $3, \
             started_at = coalesce(started_at, $4), updated_at = $5 \
             where id = (select j.id from jobs j join projects jp on jp.id = j.project_id join active a on a.org = jp.organization_id \
                         where j.status in ('PENDING', 'PROCESSING') \
                           and ((j.status = $6 and j.run_at <= $7) or (j.status = $8 and j.lease_until <= $9)) \
                         order by case when j.kind = $10 then 0 else 1 end, a.n, j.run_at, j.id \
                         limit 1 {CLAIM_LOCK}) \
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
        .bind(JobKind::Reanalyze.as_str())
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
        let sql = while_held("lease_until = $4, stage = $5, progress = $6, updated_at = $7", "");
        let done = held(&sql, id, worker)
            .bind(now + lease_delta(lease))
            .bind(stage.as_str())
            .bind(progress.clamp(0.0, 1.0))
            .bind(now)
            .execute(&self.pool)
            .await?;
        Ok(done.rows_affected() == 1)
    }

    async fn retry_job(&self, id: JobId, worker: &str, error: &str, run_at: Timestamp) -> StoreResult<bool> {
        let sql = while_held(
            "status = $4, stage = $5, progress = 0, run_at = $6, error_message = $7, lease_until = null, worker_id = null, updated_at = $8",
            "",
        );
        let done = held(&sql, id, worker)
            .bind(JobStatus::Pending.as_str())
            .bind(JobStage::Queued.as_str())
            .bind(run_at)
            .bind(error)
            .bind(self.clock.now())
            .execute(&self.pool)
            .await?;
        Ok(done.rows_affected() == 1)
    }

    async fn release_job(&self, id: JobId, worker: &str) -> StoreResult<bool> {
        let now = self.clock.now();
        let sql = while_held(
            "status = $4, stage = $5, progress = 0, run_at = $6, attempts = attempts - 1, lease_until = null, worker_id = null, updated_at = $6",
            "",
        );
        let done = held(&sql, id, worker)
            .bind(JobStatus::Pending.as_str())
            .bind(JobStage::Queued.as_str())
            .bind(now)
            .execute(&self.pool)
            .await?;
        Ok(done.rows_affected() == 1)
    }

    async fn save_checkpoint(&self, id: JobId, worker: &str, checkpoint: &serde_json::Value) -> StoreResult<bool> {
        let sql = while_held("checkpoint = $4", "");
        let done = held(&sql, id, worker).bind(Json(checkpoint)).execute(&self.pool).await?;
        Ok(done.rows_affected() == 1)
    }

    async fn job_checkpoint(&self, id: JobId) -> StoreResult<Option<serde_json::Value>> {
        let row: Option<(Option<Json<serde_json::Value>>,)> =
            sqlx::query_as("select checkpoint from jobs where id = $1").bind(id.0).fetch_optional(&self.pool).await?;
        Ok(row.and_then(|(checkpoint,)| checkpoint).map(|c| c.0))
    }

    async fn delete_failed_job(&self, project: ProjectId, id: JobId) -> StoreResult<bool> {
        let mut tx = self.pool.begin().await?;
        let done = sqlx::query("delete from jobs where id = $1 and project_id = $2 and status = $3")
            .bind(id.0)
            .bind(project.0)
            .bind(JobStatus::Failed.as_str())
            .execute(&mut *tx)
            .await?;
        if done.rows_affected() == 0 {
            return Ok(false);
        }
        // Its call.failed event carries the file's name: it goes, with its deliveries.
        sqlx::query("delete from events where project_id = $1 and type = 'call.failed' and payload ->> 'jobId' = $2")
            .bind(project.0)
            .bind(id.0.to_string())
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        Ok(true)
    }

    async fn fail_job(&self, id: JobId, worker: &str, error: &str, event: &Event) -> StoreResult<bool> {
        let now = self.clock.now();
        let mut tx = self.pool.begin().await?;
        let sql = while_held(
            "status = $4, error_message = $5, completed_at = $6, updated_at = $6, lease_until = null, checkpoint = null",
            " returning project_id",
        );
        let row: Option<(Uuid,)> =
            held_as(&sql, id, worker).bind(JobStatus::Failed.as_str()).bind(error).bind(now).fetch_optional(&mut *tx).await?;
        let Some((project,)) = row else {
            return Ok(false);
        };
        insert_event(&mut tx, project, event, now).await?;
        tx.commit().await?;
        Ok(true)
    }

    async fn complete_job(&self, id: JobId, worker: &str, call: &NewCall, events: &[Event]) -> StoreResult<bool> {
        let now = self.clock.now();
        let mut tx = self.pool.begin().await?;
        let sql = while_held(
            "status = $4, stage = $5, progress = 1, transcript_id = $6, error_message = null, checkpoint = null, \
             completed_at = $7, updated_at = $7, lease_until = null",
            " returning project_id",
        );
        let row: Option<(Uuid,)> = held_as(&sql, id, worker)
            .bind(JobStatus::Completed.as_str())
            .bind(JobStage::Done.as_str())
            .bind(call.id.0)
            .bind(now)
            .fetch_optional(&mut *tx)
            .await?;
        let Some((project,)) = row else {
            return Ok(false);
        };
        let traits = call.transcript.characteristics.as_ref();
        sqlx::query(
            "insert into calls (id, project_id, job_id, filename, language, size_bytes, duration_s, storage_path, \
             sha256, content_type, sample_rate, channels, codec, recorded_at, created_at, updated_at, \
             full_text, turns, speakers, words, speech_model, pii_statistics, pii_spans, transcript_quality, \
             characteristics, non_talk_ms, longest_non_talk_ms, music_ms, interruption_count, words_per_minute) \
             values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, \
             $22, $23, $24, $25, $26, $27, $28, $29, $30)",
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
        .bind(call.transcript.quality.as_ref().map(Json))
        .bind(traits.map(Json))
        .bind(traits.map(|c| c.non_talk_ms))
        .bind(traits.map(|c| c.longest_non_talk_ms))
        .bind(traits.and_then(|c| c.music_ms))
        .bind(traits.map(|c| i64::from(c.interruption_count)))
        .bind(traits.and_then(|c| c.words_per_minute))
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
            .bind(analysis.sentiment_level.as_str())
            .bind(analysis.primary_category.map(|c| c.0))
            .bind(project)
            .bind(classification.map(Json))
            .bind(analysis.summary.as_ref().map(Json))
            .bind(analysis.template_analysis.as_ref().map(Json))
            .bind(analysis.sentiment_confidence)
            .execute(&mut *tx)
            .await?;
            let call_date = call.recorded_at.unwrap_or(call.created_at);
            let of = ItemsCall { id: call.id.0, date: call_date, filename: &call.filename };
            insert_action_items(&mut tx, project, &of, &analysis.action_items, 0, now).await?;
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

    async fn complete_reanalysis(&self, id: JobId, worker: &str, analysis: &CallAnalysisRecord, events: &[Event]) -> StoreResult<bool> {
        let now = self.clock.now();
        let mut tx = self.pool.begin().await?;
        let sql = while_held(
            "status = $4, stage = $5, progress = 1, error_message = null, completed_at = $6, updated_at = $6, lease_until = null",
            " and kind = $7 returning project_id, transcript_id",
        );
        let row: Option<(Uuid, Option<Uuid>)> = held_as(&sql, id, worker)
            .bind(JobStatus::Completed.as_str())
            .bind(JobStage::Done.as_str())
            .bind(now)
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
        .bind(analysis.sentiment_level.as_str())
        .bind(analysis.summary.as_ref().map(Json))
        .bind(analysis.template_analysis.as_ref().map(Json))
        .bind(now)
        .bind(analysis.primary_category.map(|c| c.0))
        .bind(project)
        .bind(classification.map(Json))
        .bind(analysis.sentiment_confidence)
        .execute(&mut *tx)
        .await?;
        // The analysis's items are replaced; those a person added stay, after the new ones.
        let old: Vec<(Uuid,)> = sqlx::query_as("delete from action_items where call_id = $1 and not added_by_person returning id")
            .bind(call)
            .fetch_all(&mut *tx)
            .await?;
        for (item,) in old {
            let event = Event::ActionItemDeleted(ActionItemId(item));
            insert_event(&mut tx, project, &event, now).await?;
        }
        let of = ItemsCall { id: call, date: recorded_at.unwrap_or(created_at), filename: &filename };
        insert_action_items(&mut tx, project, &of, &analysis.action_items, 0, now).await?;
        let kept: Vec<(Uuid,)> = sqlx::query_as("select id from action_items where call_id = $1 and added_by_person order by transcript_index, id")
            .bind(call)
            .fetch_all(&mut *tx)
            .await?;
        for (place, (id,)) in kept.into_iter().enumerate() {
            sqlx::query("update action_items set transcript_index = $2 where id = $1")
                .bind(id)
                .bind(i32::try_from(analysis.action_items.len() + place).unwrap_or(i32::MAX))
                .execute(&mut *tx)
                .await?;
        }
        for event in events {
            insert_event(&mut tx, project, event, now).await?;
        }
        tx.commit().await?;
        Ok(true)
    }
}

fn lease_delta(lease: std::time::Duration) -> chrono::TimeDelta {
    chrono::TimeDelta::from_std(lease).unwrap_or(chrono::TimeDelta::MAX)
}

/// The lease guard of every write an attempt makes: an update of job `$1` that applies only
/// while worker `$2` holds it and it is still processing (`$3`), so that a worker that lost its
/// lease (the job taken over after it expired, or given back) changes nothing. `set`, and `tail`
/// (more conditions, a `returning` clause), number their own parameters from `$4`.
fn while_held(set: &str, tail: &str) -> String {
    format!("update jobs set {set} where id = $1 and worker_id = $2 and status = $3{tail}")
}

/// A [`while_held`] update with the guard's parameters bound.
fn held<'q>(sql: &'q str, id: JobId, worker: &'q str) -> sqlx::query::Query<'q, Db, <Db as sqlx::Database>::Arguments<'q>> {
    sqlx::query(sql).bind(id.0).bind(worker).bind(JobStatus::Processing.as_str())
}

/// A [`while_held`] update that returns rows, with the guard's parameters bound.
fn held_as<'q, O>(sql: &'q str, id: JobId, worker: &'q str) -> sqlx::query::QueryAs<'q, Db, O, <Db as sqlx::Database>::Arguments<'q>>
where
    O: for<'r> sqlx::FromRow<'r, <Db as sqlx::Database>::Row>,
{
    sqlx::query_as(sql).bind(id.0).bind(worker).bind(JobStatus::Processing.as_str())
}
