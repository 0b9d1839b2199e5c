//! Workers: take jobs from the durable queue, run the pipeline, and record the outcome.
//!
//! A worker holds a job under a lease that a heartbeat keeps alive while the pipeline runs. If
//! the process dies, the lease runs out and another worker (in this process or another one
//! sharing the database and object store) takes the job over; completion is conditional on
//! holding the lease, so a job completes exactly once. Passing failures are retried with
//! exponential backoff up to a limit; bad input fails the job at once with a message a person
//! can act on. Every outcome writes its `call.completed`/`call.failed` event to the outbox in
//! the same transaction.

use std::panic::AssertUnwindSafe;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use callscope_domain::CallTranscript;
use callscope_domain::{
    display_title, ActionItem, ActionItemId, ActionItemView, CallCompleted, CallFigures, CallId, CallListing, Clock, Event, Job, JobId, JobKind,
    NewActionItem, PiiRedaction, ProjectId, Timestamp,
};
use callscope_pipeline::{
    CallAnalysis, CallContext, CallResult, CategoryInfo, Heard, Pipeline, Progress, Question, StageError, TemplateSpec, SEE_THE_LOG,
};
use callscope_storage::{Storage, StorageError};
use callscope_store::{CallAnalysisRecord, NewCall, Store, StoreError, StoreResult};
use futures::FutureExt;
use tokio::sync::watch;
use watchdog::JobProgress;

mod filing;
mod redact;
mod supervise;
mod watchdog;

pub use supervise::{spawn_supervised, WorkerHealth};
pub use watchdog::StageLimits;

/// How workers behave.
#[derive(Debug, Clone)]
pub struct WorkerSettings {
    /// How long a claim lasts without a heartbeat.
    pub lease: Duration,
    /// How often a running job's lease is renewed (and its progress written and its limits
    /// checked).
    pub heartbeat: Duration,
    /// The time a stage may take, and may go without reporting progress.
    pub stage_limits: StageLimits,
    /// How long a job may go on once the process is stopping; then it is given back to the
    /// queue without counting the attempt.
    pub shutdown_grace: Duration,
    /// Attempts before a job that keeps failing transiently (or keeps killing its worker) fails.
    pub max_attempts: i32,
    /// Delay before the first retry; doubles with each attempt.
    pub retry_base: Duration,
    /// How long an idle worker waits before looking for work again.
    pub poll_interval: Duration,
    /// Where audio from remote storage is downloaded while it is processed.
    pub scratch_dir: PathBuf,
    /// In projects that mask personal data, also silence it in the stored audio (the call then
    /// keeps a 16 kHz WAV in place of the upload).
    pub redact_audio: bool,
}

/// What one call of [`Worker::run_once`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RunOutcome {
    /// No runnable job.
    Idle,
    /// A job was processed to this end.
    Ran(JobId, JobEnd),
}

/// How a job attempt ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JobEnd {
    /// The call exists.
    Completed,
    /// Given up, with an error message.
    Failed,
    /// Queued again for a later attempt.
    Retrying,
    /// The lease ran out and another worker took the job over; this attempt changed nothing.
    LeaseLost,
    /// The process was stopping: the job went back to the queue, the attempt not counted.
    Released,
}

/// One worker: a loop that processes one job at a time.
pub struct Worker {
    id: String,
    store: Arc<dyn Store>,
    storage: Storage,
    pipeline: Pipeline,
    clock: Arc<dyn Clock>,
    settings: WorkerSettings,
}

impl Worker {
    /// A worker with an id of its own among all hosts: leases are checked by this id, and a pid
    /// is no name for a process across hosts (in containers it is often 1 everywhere).
    pub fn new(store: Arc<dyn Store>, storage: Storage, pipeline: Pipeline, clock: Arc<dyn Clock>, settings: WorkerSettings) -> Self {
        let id = uuid::Uuid::new_v4().to_string();
        Self { id, store, storage, pipeline, clock, settings }
    }

    /// This worker's id, as recorded on the jobs it holds.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// Processes jobs until `shutdown` turns true; a job in progress gets the shutdown grace to
    /// finish, and is released to the queue (the attempt not counted) if it does not.
    pub async fn run(&self, mut shutdown: watch::Receiver<bool>) {
        tracing::info!(worker = %self.id, "worker started");
        while !*shutdown.borrow() {
            match self.run_once_until(shutdown.clone()).await {
                Ok(RunOutcome::Ran(..)) => continue,
                // With no job to run, the calls stored before a rule was made or changed.
                Ok(RunOutcome::Idle) => match self.sweep_rules_once().await {
                    Ok(true) => continue,
                    Ok(false) => {}
                    Err(error) => tracing::warn!(worker = %self.id, %error, "could not file calls by a changed rule"),
                },
                Err(error) => tracing::warn!(worker = %self.id, %error, "could not take a job"),
            }
            tokio::select! {
                _ = tokio::time::sleep(self.settings.poll_interval) => {}
                _ = shutdown.changed() => {}
            }
        }
        tracing::info!(worker = %self.id, "worker stopped");
    }

    /// Files one batch of the calls stored before a rule was made or changed, if a rule has
    /// some left: whether there was one. A batch is short (a hundred calls read and evaluated),
    /// so that jobs wait little behind it; the sweep's lease keeps two workers off the same rule,
    /// and one whose worker stopped is taken over where it stood.
    ///
    /// # Errors
    /// The database failing.
    pub async fn sweep_rules_once(&self) -> StoreResult<bool> {
        const BATCH: u32 = 100;
        let Some(sweep) = self.store.claim_rule_sweep(&self.id, self.settings.lease).await? else {
            return Ok(false);
        };
        let rule = sweep.rule;
        let calls = self.store.calls_after(rule.project_id, sweep.after, BATCH).await?;
        let (mut reached, mut filed, mut failed) = (None, 0u64, None);
        for &(at, call) in &calls {
            match filing::file_call(self.store.as_ref(), rule.project_id, call, std::slice::from_ref(&rule)).await {
                // A call erased since it was listed has nothing to file.
                Ok(_) | Err(StoreError::NotFound(_)) => {}
                Err(error) => {
                    failed = Some(error);
                    break;
                }
            }
            reached = Some((at, call));
            filed += 1;
        }
        let finished = failed.is_none() && calls.len() < BATCH as usize;
        if !self.store.advance_rule_sweep(rule.id, &self.id, reached, filed, finished, self.settings.lease).await? {
            tracing::info!(rule = %rule.id, "the rule changed or went while its calls were filed: its sweep starts over or ends");
        }
        match failed {
            Some(error) => Err(error),
            None => Ok(true),
        }
    }

    /// Takes one runnable job, if there is one, and processes it to an end.
    ///
    /// # Errors
    /// The database failing while the job is taken or its outcome recorded.
    pub async fn run_once(&self) -> StoreResult<RunOutcome> {
        let (_running, never_stopping) = watch::channel(false);
        self.run_once_until(never_stopping).await
    }

    /// Like [`Worker::run_once`], giving the job back once `shutdown` has been true for the
    /// shutdown grace.
    ///
    /// # Errors
    /// The database failing while the job is taken or its outcome recorded.
    pub async fn run_once_until(&self, shutdown: watch::Receiver<bool>) -> StoreResult<RunOutcome> {
        let Some(job) = self.store.claim_job(&self.id, self.settings.lease).await? else {
            return Ok(RunOutcome::Idle);
        };
        let span = tracing::info_span!("job", job_id = %job.id, attempt = job.attempts, worker = %self.id);
        let _entered = span.enter();
        tracing::info!("processing");
        if job.attempts > self.settings.max_attempts {
            let message = format!("gave up after {} attempts; the last one did not finish (its worker stopped)", self.settings.max_attempts);
            return self.fail(&job, &message).await.map(|end| RunOutcome::Ran(job.id, end));
        }
        // The lease is renewed until the attempt's outcome is recorded: storing a redacted copy
        // of a long call, after the pipeline, takes a while too.
        let progress = Arc::new(JobProgress::default());
        let (_heartbeat, interrupted) = self.heartbeat(&job, progress.clone());
        let attempt = self.process(&job, progress.clone(), interrupted, shutdown).await;
        progress.abandon();
        let end = match attempt {
            Attempt::Done(result) => self.complete(&job, result).await?,
            Attempt::Reanalyzed(analysis) => self.complete_reanalysis(&job, &analysis).await?,
            Attempt::LeaseLost => JobEnd::LeaseLost,
            Attempt::Released => {
                tracing::info!("the process is stopping: the job goes back to the queue, this attempt not counted");
                if record(|| self.store.release_job(job.id, &self.id)).await? {
                    JobEnd::Released
                } else {
                    JobEnd::LeaseLost
                }
            }
            Attempt::Failed(StageError::Fatal(message)) => self.fail(&job, &message).await?,
            Attempt::Failed(StageError::Retryable(message)) => self.retry_or_give_up(&job, &message).await?,
        };
        tracing::info!(end = ?end, "attempt ended");
        Ok(RunOutcome::Ran(job.id, end))
    }

    /// Queues the job again after a backoff that doubles with each attempt, or fails it once it
    /// has had its attempts.
    async fn retry_or_give_up(&self, job: &Job, message: &str) -> StoreResult<JobEnd> {
        if job.attempts >= self.settings.max_attempts {
            return self.fail(job, &format!("gave up after {} attempts: {message}", job.attempts)).await;
        }
        let factor = 2u32.saturating_pow(u32::try_from(job.attempts - 1).unwrap_or(0).min(16));
        let delay = self.settings.retry_base.saturating_mul(factor);
        let run_at = self.clock.now() + chrono::TimeDelta::from_std(delay).unwrap_or(chrono::TimeDelta::MAX);
        tracing::warn!(error = %message, retry_in_s = delay.as_secs_f64(), "attempt failed, will retry");
        let note = format!("attempt {} failed: {message}; retrying", job.attempts);
        Ok(if record(|| self.store.retry_job(job.id, &self.id, &note, run_at)).await? { JobEnd::Retrying } else { JobEnd::LeaseLost })
    }

    /// Renews the job's lease (and reports its progress) every heartbeat, while the attempt is
    /// within its stage limits, until the returned guard is dropped; the receiver says when the
    /// attempt must end: its lease was lost to another worker, or it overran a limit.
    fn heartbeat(&self, job: &Job, progress: Arc<JobProgress>) -> (AbortOnDrop, watch::Receiver<Interruption>) {
        let (interrupt, interrupted) = watch::channel(Interruption::None);
        // Aborted when the guard is dropped by any path, an unwinding panic included: a
        // heartbeat that outlives its attempt would hold the job PROCESSING for ever.
        let guard = AbortOnDrop({
            let (store, id, worker, settings) = (self.store.clone(), job.id, self.id.clone(), self.settings.clone());
            tokio::spawn(async move {
                loop {
                    tokio::time::sleep(settings.heartbeat).await;
                    // A stuck stage gets no more lease: the attempt ends here, and should this
                    // worker be wedged too, the lease runs out and another one takes over.
                    if let Some(reason) = progress.overrun(&settings.stage_limits, Instant::now()) {
                        let _ = interrupt.send(Interruption::Overran(reason));
                        return;
                    }
                    let (stage, overall) = progress.current();
                    match store.heartbeat_job(id, &worker, settings.lease, stage, overall).await {
                        Ok(true) => {}
                        Ok(false) => {
                            let _ = interrupt.send(Interruption::LeaseLost);
                            return;
                        }
                        // A missed heartbeat is not fatal: the lease has room for a few.
                        Err(error) => tracing::warn!(%error, "heartbeat failed"),
                    }
                }
            })
        });
        (guard, interrupted)
    }

    /// Runs the pipeline; stops early when the lease is lost or a stage overruns its limits.
    async fn process(
        &self,
        job: &Job,
        progress: Arc<JobProgress>,
        mut interrupted: watch::Receiver<Interruption>,
        shutdown: watch::Receiver<bool>,
    ) -> Attempt {
        let work = async {
            let context = self.context(job).await?;
            match job.kind {
                JobKind::Transcribe => {
                    let heard = self.hear(job, &context, progress.clone()).await?;
                    let result = self.pipeline.conclude(heard, job, &context, progress.clone()).await?;
                    Ok(Attempt::Done(Box::new(result)))
                }
                JobKind::Reanalyze => {
                    let call = job.transcript_id.ok_or_else(|| StageError::Fatal("the re-analysis names no call".into()))?;
                    let transcript = self.store.get_call_text(job.project_id, call).await.map_err(|e| match e {
                        StoreError::NotFound(_) => StageError::Fatal("the call no longer exists".into()),
                        other => unreadable("transcript")(other),
                    })?;
                    let duration_ms = transcript.turns.iter().map(|t| t.end_ms).max().unwrap_or(0);
                    progress.call_duration(duration_ms as f64 / 1000.0);
                    let analysis = self
                        .pipeline
                        .reanalyze(&transcript.turns, &transcript.speakers, job.language, &context, transcript.quality.as_ref(), progress.clone())
                        .await?;
                    Ok(Attempt::Reanalyzed(Box::new(analysis)))
                }
            }
        };
        // A panic in any stage is a bug met on this input: the attempt fails with its message
        // (and is retried like any other failure) instead of taking the worker down with it.
        let work = AssertUnwindSafe(work).catch_unwind();
        tokio::select! {
            result = work => match result {
                Ok(attempt) => attempt.unwrap_or_else(Attempt::Failed),
                Err(panic) => {
                    let message = panic_message(panic.as_ref());
                    tracing::error!(panic = %message, "a stage panicked");
                    Attempt::Failed(StageError::Retryable(format!("processing stopped on an internal error {SEE_THE_LOG}")))
                }
            },
            // The stage's own work is dropped here; what ran on a blocking thread finishes there
            // unobserved and its result is thrown away.
            Ok(reason) = async { interrupted.wait_for(|i| *i != Interruption::None).await.map(|i| i.clone()) } => match reason {
                Interruption::Overran(message) => {
                    tracing::error!(reason = %message, "the attempt overran its limits");
                    Attempt::Failed(StageError::Retryable(message))
                }
                _ => Attempt::LeaseLost,
            },
            () = stopping(shutdown, self.settings.shutdown_grace) => Attempt::Released,
        }
    }

    /// What the call says: what an earlier attempt of the job kept, or else the audio through
    /// decoding, speech, speakers and personal data, kept on the job for a retry. A call whose
    /// stored audio is to be redacted keeps nothing: the redaction needs the decoded signals,
    /// which a checkpoint does not hold.
    async fn hear(&self, job: &Job, context: &CallContext, progress: Arc<JobProgress>) -> Result<Heard, StageError> {
        let checkpoints = !(self.settings.redact_audio && context.pii_redaction == PiiRedaction::Mask);
        if checkpoints && job.attempts > 1 {
            let kept = self.store.job_checkpoint(job.id).await.map_err(unreadable("job's checkpoint"))?;
            // Kept under the project's masking as it was then: a project that changed it since
            // hears the call again.
            let masks = context.pii_redaction == PiiRedaction::Mask;
            if let Some(heard) = kept.as_ref().and_then(Heard::from_checkpoint).filter(|h| h.pii_masked == masks) {
                tracing::info!("starting from what an earlier attempt heard");
                progress.call_duration(heard.audio.info.duration_s);
                return Ok(heard);
            }
        }
        let copy = self.storage.local_copy(&job.storage_path, &self.settings.scratch_dir).await.map_err(|e| match e {
            StorageError::NotFound(_) => StageError::Fatal("the uploaded audio is missing from storage".into()),
            other => {
                tracing::warn!(error = %other, "could not read the audio");
                StageError::Retryable(format!("could not read the audio from storage {SEE_THE_LOG}"))
            }
        })?;
        let heard = self.pipeline.hear(job, copy.path(), context, progress).await?;
        if checkpoints {
            // Only an optimisation: a checkpoint that cannot be kept costs a retry its speech.
            if let Err(error) = self.store.save_checkpoint(job.id, &self.id, &heard.checkpoint()).await {
                tracing::warn!(%error, "could not keep what the attempt heard");
            }
        }
        Ok(heard)
    }

    /// What the pipeline needs to know of the job's project: the default speaker preset, PII
    /// redaction, the category tree and the template (the one a re-analysis asked for, else the
    /// active one).
    async fn context(&self, job: &Job) -> Result<CallContext, StageError> {
        let presets = self.store.list_presets(job.project_id).await.map_err(unreadable("speaker presets"))?;
        let project = self
            .store
            .project_of_job(job.project_id)
            .await
            .map_err(unreadable("project"))?
            .ok_or_else(|| StageError::Fatal("the call's project no longer exists".into()))?;
        let categories = self.store.list_categories(job.project_id).await.map_err(unreadable("categories"))?;
        let vocabulary = self.store.get_vocabulary(job.project_id).await.map_err(unreadable("vocabulary"))?;
        let templates = self.store.list_templates(job.project_id).await.map_err(unreadable("analysis templates"))?;
        let template = match job.template_id {
            Some(id) => {
                Some(templates.into_iter().find(|t| t.id == id).ok_or_else(|| StageError::Fatal("the analysis template no longer exists".into()))?)
            }
            None => templates.into_iter().find(|t| t.is_active),
        };
        Ok(CallContext {
            preset_speakers: presets.into_iter().find(|p| p.is_default).map(|p| p.speakers),
            pii_redaction: project.pii_redaction,
            time_zone: project.time_zone,
            categories: categories
                .into_iter()
                .map(|c| CategoryInfo { id: c.id, parent: c.parent_id, name: c.name, description: c.description })
                .collect(),
            template: template.map(|t| TemplateSpec {
                name: t.name,
                questions: t
                    .fields
                    .into_iter()
                    .map(|f| Question { label: f.label, prompt: f.prompt, answer_type: f.answer_type, options: f.options })
                    .collect(),
            }),
            call_date: job.recorded_at.unwrap_or_else(|| self.clock.now()),
            vocabulary,
        })
    }

    async fn complete_reanalysis(&self, job: &Job, analysis: &CallAnalysis) -> StoreResult<JobEnd> {
        let now = self.clock.now();
        let found = analysis_record(analysis, now);
        let Some(call) = job.transcript_id else {
            return self.fail(job, "the re-analysis names no call").await;
        };
        let call_date = job.recorded_at.unwrap_or(now);
        let events = item_events(job.project_id, call, &job.original_filename, call_date, &found.action_items, now);
        if !record(|| self.store.complete_reanalysis(job.id, &self.id, &found, &events)).await? {
            return Ok(JobEnd::LeaseLost);
        }
        self.file(job.project_id, call).await;
        Ok(JobEnd::Completed)
    }

    /// Files a call just stored or re-analysed by the project's rules. The job is done either
    /// way: a call not filed now is filed again with the next change of a rule.
    async fn file(&self, project: ProjectId, call: CallId) {
        let filed = async {
            let rules = self.store.list_rules(project).await?;
            filing::file_call(self.store.as_ref(), project, call, &rules).await
        };
        match filed.await {
            Ok(new) if !new.is_empty() => tracing::info!(%call, rules = new.len(), "the call matched rules"),
            Ok(_) | Err(StoreError::NotFound(_)) => {}
            Err(error) => tracing::warn!(%error, %call, "could not file the call by the project's rules"),
        }
    }

    async fn complete(&self, job: &Job, result: Box<CallResult>) -> StoreResult<JobEnd> {
        let now = self.clock.now();
        let info = &result.audio.info;
        let redacted = if self.settings.redact_audio && result.pii_masked && !result.pii_spans.is_empty() {
            match redact::store_redacted(&self.storage, &job.storage_path, &result.audio, &result.pii_spans).await {
                Ok(stored) => Some(stored),
                Err(error) => {
                    // Keeping the original is the safe failure: the transcript is masked anyway,
                    // and the next attempt tries again.
                    tracing::warn!(%error, "could not store the redacted audio");
                    return self.retry_or_give_up(job, &format!("could not store the redacted audio {SEE_THE_LOG}")).await;
                }
            }
        } else {
            None
        };
        let mut call = NewCall {
            id: CallId::new(),
            filename: job.original_filename.clone(),
            language: job.language,
            size_bytes: job.size_bytes,
            duration_s: info.duration_s,
            storage_path: job.storage_path.clone(),
            sha256: job.sha256.clone(),
            content_type: job.content_type.clone(),
            sample_rate: info.source_rate,
            channels: u32::try_from(info.channels).unwrap_or(u32::MAX),
            codec: info.codec.clone(),
            recorded_at: job.recorded_at,
            created_at: now,
            transcript: CallTranscript {
                full_text: result.full_text.clone(),
                turns: result.turns.clone(),
                speakers: result.speakers.clone(),
                words: result.words.clone(),
                speech_model: Some(result.speech_model.clone()),
                pii_statistics: result.pii_statistics.clone(),
                pii_spans: result.pii_spans.clone(),
                quality: result.quality(),
                characteristics: result.characteristics.clone(),
            },
            analysis: None,
        };
        let analysis = &result.analysis;
        let found = analysis_record(analysis, now);
        let action_items = found.action_items.clone();
        let primary = analysis.classification.as_ref().and_then(|c| c.primary.as_ref());
        call.analysis = Some(found);
        if let Some(stored) = &redacted {
            call.storage_path = stored.key.clone();
            call.size_bytes = i64::try_from(stored.size).unwrap_or(i64::MAX);
            call.sha256 = stored.sha256.clone();
            call.content_type = "audio/wav".into();
            call.sample_rate = callscope_audio::TARGET_RATE;
            call.codec = "pcm_s16le".into();
            // The copy holds the decoded signals: one for a file of more than two channels.
            call.channels = u32::try_from(result.audio.channels.len()).unwrap_or(u32::MAX);
        }
        // The call summary, as the calls list shows it, plus the job.
        let event = Event::CallCompleted(CallCompleted {
            call: CallListing {
                id: call.id,
                filename: call.filename.clone(),
                language: call.language,
                size_bytes: Some(call.size_bytes),
                duration_s: Some(call.duration_s),
                sentiment_level: analysis.sentiment.overall.level(),
                primary_category: primary.and_then(|p| p.category_names.last()).cloned(),
                action_items_count: i64::try_from(action_items.len()).unwrap_or(i64::MAX),
                created_at: now,
                recorded_at: call.recorded_at,
                title: display_title(analysis.title.as_deref(), &call.filename),
                figures: call.transcript.characteristics.as_ref().map(CallFigures::of),
                // Filed by the rules once stored: each match raises its own call.rule_matched.
                rule_labels: Vec::new(),
            },
            job_id: job.id,
        });
        let mut events = vec![event];
        events.extend(item_events(job.project_id, call.id, &call.filename, job.recorded_at.unwrap_or(now), &action_items, now));
        // The attempt's work is done: a database that fails for a moment does not throw it away.
        let mut completed = record(|| self.store.complete_job(job.id, &self.id, &call, &events)).await;
        if !matches!(completed, Ok(true)) {
            // A commit whose answer was lost (the connection dropped after it) reads as a lost
            // lease or an error: the job says whether this attempt's call was stored.
            if let Ok(stored) = self.store.get_job(job.project_id, job.id).await {
                if stored.status == callscope_domain::JobStatus::Completed && stored.transcript_id == Some(call.id) {
                    completed = Ok(true);
                }
            }
        }
        if !matches!(completed, Ok(true)) {
            // Nothing points at this attempt's copy: it goes, whatever stopped the completion.
            if let Some(stored) = &redacted {
                let _ = self.storage.delete(&stored.key).await;
            }
        }
        if completed? {
            self.file(job.project_id, call.id).await;
            if redacted.is_some() {
                // The call now points at the redacted copy: the original goes.
                if let Err(error) = self.storage.delete(&job.storage_path).await {
                    tracing::warn!(%error, key = %job.storage_path, "could not delete the unredacted audio");
                }
            }
            Ok(JobEnd::Completed)
        } else {
            Ok(JobEnd::LeaseLost)
        }
    }

    async fn fail(&self, job: &Job, message: &str) -> StoreResult<JobEnd> {
        tracing::warn!(error = %message, "job failed");
        let mut failed = job.clone();
        failed.status = callscope_domain::JobStatus::Failed;
        failed.error_message = Some(message.to_owned());
        failed.completed_at = Some(self.clock.now());
        let event = Event::CallFailed(Box::new(failed));
        if record(|| self.store.fail_job(job.id, &self.id, message, &event)).await? {
            Ok(JobEnd::Failed)
        } else {
            Ok(JobEnd::LeaseLost)
        }
    }
}

/// What the analysis found, as the store keeps it.
fn analysis_record(analysis: &CallAnalysis, now: Timestamp) -> CallAnalysisRecord {
    let action_items = analysis
        .actions
        .iter()
        .map(|a| NewActionItem {
            id: ActionItemId::new(),
            description: a.description.clone(),
            // Empty is no value: stored as null, never as "".
            responsible_party: Some(a.responsible_party.clone()).filter(|p| !p.is_empty()),
            deadline_mentioned: a.deadline_mentioned.clone(),
            due_at: a.due_at,
            evidence: Some(a.evidence.clone()).filter(|e| !e.is_empty()),
            priority: a.priority,
        })
        .collect();
    let classification = analysis.classification_record();
    CallAnalysisRecord {
        title: analysis.title.clone(),
        sentiment_level: analysis.sentiment.overall.level(),
        sentiment_confidence: Some(f64::from(analysis.sentiment.confidence)),
        primary_category: classification.as_ref().and_then(|c| c.primary.as_ref()).map(|p| p.category_id),
        classification,
        summary: Some(analysis.summary_record()),
        template_analysis: analysis.template_record(now),
        action_items,
    }
}

/// An `action_item.created` event for each new item, with the item as the API shows it.
fn item_events(project: ProjectId, call: CallId, filename: &str, call_date: Timestamp, items: &[NewActionItem], now: Timestamp) -> Vec<Event> {
    items
        .iter()
        .enumerate()
        .map(|(index, item)| {
            let extracted = ActionItem::extracted(project, call, index, call_date, filename, item, now);
            Event::ActionItemCreated(Box::new(ActionItemView::new(&extracted, now)))
        })
        .collect()
}

/// Writes an attempt's outcome, trying again while the database is unavailable (a restart, a
/// failover, a deadlock victim): the heartbeat keeps the lease meanwhile, and each write applies
/// only while it is held, so a retry never records an outcome twice.
async fn record<T, F, Fut>(mut write: F) -> StoreResult<T>
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = StoreResult<T>>,
{
    let mut wait = Duration::from_millis(250);
    for _ in 1..RECORD_TRIES {
        match write().await {
            Err(StoreError::Unavailable(error)) => {
                tracing::warn!(%error, retry_in_ms = wait.as_millis(), "could not record the attempt's outcome; trying again");
                tokio::time::sleep(wait).await;
                wait *= 2;
            }
            done => return done,
        }
    }
    write().await
}

/// Writes of an outcome before its error stands: 0.25 + 0.5 + 1 + 2 + 4 s of waiting, well
/// within a lease.
const RECORD_TRIES: u32 = 6;

/// Aborts a task when dropped.
struct AbortOnDrop(tokio::task::JoinHandle<()>);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// The text a panic was raised with, when it has one.
pub(crate) fn panic_message(panic: &(dyn std::any::Any + Send)) -> String {
    panic
        .downcast_ref::<&str>()
        .map(|s| (*s).to_owned())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic without a message".into())
}

enum Attempt {
    Done(Box<CallResult>),
    Reanalyzed(Box<CallAnalysis>),
    Failed(StageError),
    LeaseLost,
    Released,
}

/// Completes `grace` after `shutdown` turns true; never, if it never does.
async fn stopping(mut shutdown: watch::Receiver<bool>, grace: Duration) {
    if shutdown.wait_for(|stopping| *stopping).await.is_err() {
        std::future::pending::<()>().await;
    }
    tokio::time::sleep(grace).await;
}

/// Why an attempt must stop before its stages are done.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Interruption {
    /// Nothing: carry on.
    None,
    /// Another worker holds the job now.
    LeaseLost,
    /// A stage ran past its limits; the message says which.
    Overran(String),
}

/// A store error while reading `what` for a job: retried, since the database may answer again.
fn unreadable(what: &'static str) -> impl FnOnce(StoreError) -> StageError {
    move |e| {
        tracing::warn!(error = %e, "could not read the {what}");
        let cause = if matches!(e, StoreError::Unavailable(_)) { "the database is unavailable" } else { "the database failed" };
        StageError::Retryable(format!("could not read the {what}: {cause} {SEE_THE_LOG}"))
    }
}
