// Calls, their transcripts and analyses: the SQL of `CallStore` (`src/calls.rs`). Included by both backends after
// `sql/store.rs` (see `sql/all.rs`), which holds the imports and the `SqlStore` every area implements.

#[async_trait]
impl CallStore for SqlStore {
    async fn set_call_category(
        &self,
        project: ProjectId,
        call: CallId,
        category: Option<CategoryId>,
        classification: Option<&Classification>,
    ) -> StoreResult<Option<CategoryId>> {
        let now = self.clock.now();
        let mut tx = self.pool.begin().await?;
        // The chosen category cannot be deleted between the check below and the commit.
        hold_taxonomy(&mut tx, project.0).await?;
        touch_call(&mut tx, project, call, now).await?;
        let (previous,): (Option<Uuid>,) = sqlx::query_as("select primary_category_id from calls where id = $1")
            .bind(call.0)
            .fetch_one(&mut *tx)
            .await?;
        if let Some(category) = category {
            let known: Option<(Uuid,)> = sqlx::query_as("select id from categories where id = $1 and project_id = $2")
                .bind(category.0)
                .bind(project.0)
                .fetch_optional(&mut *tx)
                .await?;
            if known.is_none() {
                return Err(StoreError::Rejected(Rejection::UnknownCategory));
            }
        }
        sqlx::query(
            "update calls set primary_category_id = $3, classification = $4, category_manual = true, updated_at = $5 \
             where id = $1 and project_id = $2",
        )
        .bind(call.0)
        .bind(project.0)
        .bind(category.map(|c| c.0))
        .bind(classification.map(Json))
        .bind(now)
        .execute(&mut *tx)
        .await?;
        let event =
            Event::CallCategoryChanged(CategoryChange { call_id: call, previous_category_id: previous.map(CategoryId), category_id: category });
        insert_event(&mut tx, project.0, &event, now).await?;
        tx.commit().await?;
        Ok(previous.map(CategoryId))
    }

    async fn rename_call_speakers(&self, project: ProjectId, call: CallId, names: &[(String, String)]) -> StoreResult<Vec<ActionItem>> {
        let now = self.clock.now();
        let mut tx = self.pool.begin().await?;
        touch_call(&mut tx, project, call, now).await?;
        let (Json(mut speakers),): (Json<Vec<SpeakerStats>>,) =
            sqlx::query_as("select speakers from calls where id = $1").bind(call.0).fetch_one(&mut *tx).await?;
        // Old name → new name, read before any is changed.
        let mut renamed: Vec<(String, String)> = Vec::new();
        for (id, name) in names {
            let speaker = speakers.iter_mut().find(|s| s.speaker_id == *id).ok_or(StoreError::Rejected(Rejection::UnknownSpeaker))?;
            if speaker.name != *name {
                renamed.push((std::mem::replace(&mut speaker.name, name.clone()), name.clone()));
                // A person's name overrides the part guessed from the words: rules read the
                // party from the name from now on.
                speaker.role = None;
                speaker.role_confidence = None;
            }
        }
        sqlx::query("update calls set speakers = $2 where id = $1").bind(call.0).bind(Json(&speakers)).execute(&mut *tx).await?;
        let rows: Vec<ActionItemRow> = sqlx::query_as(&format!("select {ACTION_ITEM_COLUMNS} from action_items where call_id = $1"))
            .bind(call.0)
            .fetch_all(&mut *tx)
            .await?;
        let mut changed = Vec::new();
        for row in rows {
            let mut item = row.into_item()?;
            let Some((_, new)) = renamed.iter().find(|(old, _)| item.responsible_party.as_deref() == Some(old.as_str())) else { continue };
            item.responsible_party = Some(new.clone());
            item.updated_at = now;
            write_item(&mut tx, &item).await?;
            insert_event(&mut tx, project.0, &Event::ActionItemUpdated(Box::new(ActionItemView::new(&item, now))), now).await?;
            changed.push(item);
        }
        tx.commit().await?;
        Ok(changed)
    }

    async fn call_sentiments(
        &self,
        project: ProjectId,
        from: Option<Timestamp>,
        to: Option<Timestamp>,
    ) -> StoreResult<Vec<(Timestamp, SentimentLevel, Option<f64>)>> {
        let rows: Vec<(Timestamp, String, Option<f64>)> = sqlx::query_as(
            "select created_at, sentiment_level, sentiment_confidence from calls \
             where project_id = $1 and ($2 is null or created_at >= $2) and ($3 is null or created_at <= $3)",
        )
        .bind(project.0)
        .bind(from)
        .bind(to)
        .fetch_all(&self.pool)
        .await?;
        rows.into_iter().map(|(at, level, confidence)| Ok((at, crate::parse_stored("calls.sentiment_level", &level)?, confidence))).collect()
    }

    async fn call_figures(&self, project: ProjectId, from: Option<Timestamp>, to: Option<Timestamp>) -> StoreResult<Vec<(Timestamp, f64, CallFigures)>> {
        type Row = (Timestamp, Option<f64>, i64, i64, Option<i64>, i64, Option<f64>);
        let rows: Vec<Row> = sqlx::query_as(
            "select created_at, duration_s, non_talk_ms, longest_non_talk_ms, music_ms, interruption_count, words_per_minute from calls \
             where project_id = $1 and non_talk_ms is not null and ($2 is null or created_at >= $2) and ($3 is null or created_at <= $3)",
        )
        .bind(project.0)
        .bind(from)
        .bind(to)
        .fetch_all(&self.pool)
        .await?;
        Ok(rows
            .into_iter()
            .map(|(at, duration_s, non_talk_ms, longest_non_talk_ms, music_ms, interruption_count, words_per_minute)| {
                (at, duration_s.unwrap_or(0.0), CallFigures { non_talk_ms, longest_non_talk_ms, music_ms, interruption_count, words_per_minute })
            })
            .collect())
    }

    async fn list_calls(&self, project: ProjectId, filter: &CallFilter, page: PageRequest) -> StoreResult<Page<CallSummary>> {
        let mut count = sqlx::QueryBuilder::<Db>::new("select count(*) from calls c");
        push_call_filter(&mut count, project, filter);
        let (total,): (i64,) = count.build_query_as().fetch_one(&self.pool).await?;
        let mut select = sqlx::QueryBuilder::<Db>::new(format!("select {}", call_summary_columns()));
        push_call_filter(&mut select, project, filter);
        let direction = if filter.ascending { "asc" } else { "desc" };
        let column = filter.sort.column();
        // Nulls last on both backends, whichever the direction.
        select.push(format!(" order by ({column} is null), {column} {direction}, c.created_at desc, c.id desc limit "));
        select.push_bind(i64::from(page.page_size));
        select.push(" offset ");
        select.push_bind(i64::try_from(page.offset()).unwrap_or(i64::MAX));
        let rows: Vec<CallSummaryRow> = select.build_query_as().fetch_all(&self.pool).await?;
        let items = rows.into_iter().map(call_summary).collect::<StoreResult<_>>()?;
        Ok(Page { items, total: u64::try_from(total).unwrap_or_default() })
    }

    async fn delete_call(&self, project: ProjectId, call: CallId) -> StoreResult<()> {
        let mut tx = self.pool.begin().await?;
        let done = sqlx::query("delete from calls where id = $1 and project_id = $2").bind(call.0).bind(project.0).execute(&mut *tx).await?;
        if done.rows_affected() == 0 {
            return Err(StoreError::NotFound("call"));
        }
        // Action items go with the call (foreign key); the jobs name it by id only.
        sqlx::query("delete from action_items where call_id = $1").bind(call.0).execute(&mut *tx).await?;
        sqlx::query("delete from rule_matches where call_id = $1").bind(call.0).execute(&mut *tx).await?;
        sqlx::query("delete from jobs where transcript_id = $1 and project_id = $2").bind(call.0).bind(project.0).execute(&mut *tx).await?;
        // The outbox's events about the call carry its title, file name, quotes and items: they
        // go, and with them (on delete cascade) their deliveries, sent or still to be sent. Each
        // kind names the call under its own key.
        sqlx::query(
            "delete from events where project_id = $1 and ((type = 'call.completed' and payload ->> 'id' = $2) \
             or payload ->> 'callId' = $2 or payload ->> 'transcriptId' = $2)",
        )
        .bind(project.0)
        .bind(call.0.to_string())
        .execute(&mut *tx)
        .await?;
        // Tells every search index to drop the call.
        sqlx::query("insert into call_deletions (call_id, project_id, deleted_at) values ($1, $2, $3)")
            .bind(call.0)
            .bind(project.0)
            .bind(self.clock.now())
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        Ok(())
    }

    async fn call_summaries(&self, project: ProjectId, ids: &[CallId]) -> StoreResult<Vec<CallSummary>> {
        let mut summaries = Vec::with_capacity(ids.len());
        for chunk in ids.chunks(500) {
            let placeholders = (0..chunk.len()).map(|i| format!("${}", i + 1)).collect::<Vec<_>>().join(", ");
            // By primary key, keeping the project's: with `project_id = $1` in the WHERE clause,
            // SQLite would walk the project's index instead.
            let sql = format!("select {} where c.id in ({placeholders})", call_summary_columns());
            let mut query = sqlx::query_as::<_, CallSummaryRow>(&sql);
            for id in chunk {
                query = query.bind(id.0);
            }
            for row in query.fetch_all(&self.pool).await? {
                if row.project_id == project.0 {
                    summaries.push(call_summary(row)?);
                }
            }
        }
        Ok(summaries)
    }

    async fn call_audio_keys(&self, project: ProjectId, call: CallId) -> StoreResult<Vec<String>> {
        let played: Option<(String,)> = sqlx::query_as("select storage_path from calls where id = $1 and project_id = $2")
            .bind(call.0)
            .bind(project.0)
            .fetch_optional(&self.pool)
            .await?;
        let (played,) = played.ok_or(StoreError::NotFound("call"))?;
        let uploads: Vec<(String,)> = sqlx::query_as("select storage_path from jobs where transcript_id = $1 and project_id = $2")
            .bind(call.0)
            .bind(project.0)
            .fetch_all(&self.pool)
            .await?;
        let mut keys: Vec<String> = Vec::new();
        for (upload,) in uploads {
            if upload != played && !keys.contains(&upload) {
                keys.push(upload);
            }
        }
        keys.push(played);
        Ok(keys)
    }

    async fn get_call_summary(&self, project: ProjectId, call: CallId) -> StoreResult<CallSummary> {
        let row: Option<CallSummaryRow> = sqlx::query_as(&format!("select {} where c.id = $1 and c.project_id = $2", call_summary_columns()))
            .bind(call.0)
            .bind(project.0)
            .fetch_optional(&self.pool)
            .await?;
        call_summary(row.ok_or(StoreError::NotFound("call"))?)
    }

    async fn get_call_audio(&self, project: ProjectId, call: CallId) -> StoreResult<CallAudio> {
        type Row = (String, String, i64, Option<f64>, Option<i32>, Option<i32>, Option<String>, String, String);
        let row: Option<Row> = sqlx::query_as(
            "select filename, content_type, size_bytes, duration_s, sample_rate, channels, codec, sha256, storage_path \
             from calls where id = $1 and project_id = $2",
        )
        .bind(call.0)
        .bind(project.0)
        .fetch_optional(&self.pool)
        .await?;
        let (filename, content_type, size_bytes, duration_s, sample_rate, channels, codec, sha256, storage_path) =
            row.ok_or(StoreError::NotFound("call"))?;
        Ok(CallAudio { filename, content_type, size_bytes, duration_s, sample_rate, channels, codec, sha256, storage_path })
    }

    async fn get_call_transcript(&self, project: ProjectId, call: CallId) -> StoreResult<CallTranscript> {
        type Row = (
            String,
            Json<Vec<Turn>>,
            Json<Vec<SpeakerStats>>,
            Json<Vec<TimedWord>>,
            Option<String>,
            Json<PiiStatistics>,
            Json<Vec<PiiSpan>>,
            Option<Json<TranscriptQuality>>,
            Option<Json<CallCharacteristics>>,
        );
        let row: Option<Row> = sqlx::query_as(
            "select full_text, turns, speakers, words, speech_model, pii_statistics, pii_spans, transcript_quality, characteristics \
             from calls where id = $1 and project_id = $2",
        )
        .bind(call.0)
        .bind(project.0)
        .fetch_optional(&self.pool)
        .await?;
        let (full_text, turns, speakers, words, speech_model, pii_statistics, pii_spans, quality, characteristics) =
            row.ok_or(StoreError::NotFound("call"))?;
        Ok(CallTranscript {
            full_text,
            turns: turns.0,
            speakers: speakers.0,
            words: words.0,
            speech_model,
            pii_statistics: pii_statistics.0,
            pii_spans: pii_spans.0,
            quality: quality.map(|q| q.0),
            characteristics: characteristics.map(|c| c.0),
        })
    }

    async fn get_call_text(&self, project: ProjectId, call: CallId) -> StoreResult<CallText> {
        type Row =
            (String, Json<Vec<Turn>>, Json<Vec<SpeakerStats>>, Json<PiiStatistics>, Option<Json<TranscriptQuality>>, Option<Json<CallCharacteristics>>);
        let row: Option<Row> = sqlx::query_as(
            "select full_text, turns, speakers, pii_statistics, transcript_quality, characteristics from calls where id = $1 and project_id = $2",
        )
        .bind(call.0)
        .bind(project.0)
        .fetch_optional(&self.pool)
        .await?;
        let (full_text, turns, speakers, pii_statistics, quality, characteristics) = row.ok_or(StoreError::NotFound("call"))?;
        Ok(CallText {
            full_text,
            turns: turns.0,
            speakers: speakers.0,
            pii_statistics: pii_statistics.0,
            quality: quality.map(|q| q.0),
            characteristics: characteristics.map(|c| c.0),
        })
    }

    async fn get_call_analysis(&self, project: ProjectId, call: CallId) -> StoreResult<StoredAnalysis> {
        type Row = (Option<String>, String, Option<Uuid>, Option<Json<Classification>>, Option<Json<StoredSummary>>, Option<Json<TemplateAnalysis>>);
        let row: Option<Row> = sqlx::query_as(
            "select title, sentiment_level, primary_category_id, classification, summary, template_analysis \
             from calls where id = $1 and project_id = $2",
        )
        .bind(call.0)
        .bind(project.0)
        .fetch_optional(&self.pool)
        .await?;
        let (title, sentiment_level, primary, classification, summary, template_analysis) = row.ok_or(StoreError::NotFound("call"))?;
        let items: Vec<ActionItemRow> =
            sqlx::query_as(&format!("select {ACTION_ITEM_COLUMNS} from action_items where call_id = $1 and project_id = $2 order by transcript_index"))
                .bind(call.0)
                .bind(project.0)
                .fetch_all(&self.pool)
                .await?;
        let action_items = items.into_iter().map(ActionItemRow::into_item).collect::<StoreResult<_>>()?;
        Ok(StoredAnalysis {
            title,
            sentiment_level: crate::parse_stored("calls.sentiment_level", &sentiment_level)?,
            primary_category: primary.map(CategoryId),
            classification: classification.map(|j| j.0),
            summary: summary.map(|j| j.0),
            template_analysis: template_analysis.map(|j| j.0),
            action_items,
        })
    }
}

/// What the call lists read: the call, its category's name, its action item count and the labels
/// of the rules it matched.
fn call_summary_columns() -> String {
    format!(
        "c.id, c.project_id, c.filename, c.language, c.size_bytes, c.duration_s, c.sentiment_level, \
         k.name as primary_category, (select count(*) from action_items a where a.call_id = c.id) as action_items_count, \
         c.created_at, c.recorded_at, c.updated_at, c.title, c.storage_path, c.non_talk_ms, c.longest_non_talk_ms, c.music_ms, c.interruption_count, \
         c.words_per_minute, {RULE_LABELS} as rule_labels \
         from calls c left join categories k on k.id = c.primary_category_id"
    )
}

/// ` where …` for the calls of `project` that pass `filter` (the calls table is `c`).
fn push_call_filter(query: &mut sqlx::QueryBuilder<'_, Db>, project: ProjectId, filter: &CallFilter) {
    query.push(" where c.project_id = ").push_bind(project.0);
    if let Some(from) = filter.from {
        query.push(" and c.created_at >= ").push_bind(from);
    }
    if let Some(to) = filter.to {
        query.push(" and c.created_at <= ").push_bind(to);
    }
    if !filter.sentiment.is_empty() {
        query.push(" and c.sentiment_level in (");
        let mut levels = query.separated(", ");
        for level in &filter.sentiment {
            levels.push_bind(level.as_str());
        }
        query.push(")");
    }
    if let Some(language) = filter.language {
        query.push(" and c.language = ").push_bind(language.as_str());
    }
    if let Some(categories) = &filter.categories {
        if categories.is_empty() {
            query.push(" and false");
        } else {
            query.push(" and c.primary_category_id in (");
            let mut ids = query.separated(", ");
            for id in categories {
                ids.push_bind(id.0);
            }
            query.push(")");
        }
    }
    if let Some(ms) = filter.non_talk_over_ms {
        query.push(" and c.longest_non_talk_ms > ").push_bind(ms);
    }
    if let Some(count) = filter.interruptions_over {
        query.push(" and c.interruption_count > ").push_bind(count);
    }
    if let Some(rule) = filter.rule {
        query.push(" and exists (select 1 from rule_matches m where m.call_id = c.id and m.rule_id = ").push_bind(rule.0).push(")");
    }
    if let Some(now) = filter.overdue_at {
        query
            .push(" and exists (select 1 from action_items a where a.call_id = c.id and a.status in ('PENDING', 'IN_PROGRESS') and a.due_at < ")
            .push_bind(now)
            .push(")");
    }
}

fn call_summary(row: CallSummaryRow) -> StoreResult<CallSummary> {
    let figures = match (row.non_talk_ms, row.longest_non_talk_ms, row.interruption_count) {
        (Some(non_talk_ms), Some(longest_non_talk_ms), Some(interruptions)) => Some(CallFigures {
            non_talk_ms,
            longest_non_talk_ms,
            music_ms: row.music_ms,
            interruption_count: interruptions,
            words_per_minute: row.words_per_minute,
        }),
        _ => None,
    };
    Ok(CallSummary {
        id: CallId(row.id),
        filename: row.filename,
        language: crate::parse_stored("calls.language", &row.language)?,
        size_bytes: row.size_bytes,
        duration_s: row.duration_s,
        sentiment_level: crate::parse_stored("calls.sentiment_level", &row.sentiment_level)?,
        primary_category: row.primary_category,
        action_items_count: row.action_items_count,
        created_at: row.created_at,
        recorded_at: row.recorded_at,
        updated_at: row.updated_at,
        title: row.title,
        storage_path: row.storage_path,
        figures,
        rule_labels: row.rule_labels.map(|labels| labels.split(LABEL_SEPARATOR).map(str::to_owned).collect()).unwrap_or_default(),
    })
}

/// The classification an analysis made, without the matches of categories deleted since.
async fn current_classification(tx: &mut Tx<'_>, project: Uuid, classification: Option<&Classification>) -> StoreResult<Option<Classification>> {
    let Some(classification) = classification else { return Ok(None) };
    let exist = categories_held(tx, project).await?;
    let mut current = classification.clone();
    current.remove_matches(|id| !exist.contains(&id.0));
    Ok(Some(current))
}

/// Marks the call changed at `now`, which also takes its row's lock (the database's, on SQLite)
/// before the transaction reads it; a call not of the project is `NotFound`.
async fn touch_call(tx: &mut Tx<'_>, project: ProjectId, call: CallId, now: Timestamp) -> StoreResult<()> {
    let touched = sqlx::query("update calls set updated_at = $3 where id = $1 and project_id = $2")
        .bind(call.0)
        .bind(project.0)
        .bind(now)
        .execute(&mut **tx)
        .await?;
    if touched.rows_affected() == 0 {
        return Err(StoreError::NotFound("call"));
    }
    Ok(())
}
