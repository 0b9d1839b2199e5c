//! Stored calls: the list (newest first), one call's detail, erasing a call, setting its category
//! by hand (decisions §4) and queueing a re-analysis (decisions §6).

use axum::extract::State;
use axum::http::StatusCode;
use axum::Json;
use callscope_domain::{
    sentiment_by_quarter, CallCharacteristics, CallId, CallListing, CallSummary, CallSummaryBlock, CategoryId, Classification, Job, Language, Page,
    PageRequest, PiiStatistics, RuleId, RuleMatch, SentimentLevel, SpeakerSentimentQuarters, SpeakerStats, TemplateAnalysis, TemplateId, Timestamp,
    TranscriptQuality, Turn, Validator,
};
use callscope_store::{CallFilter, CallSort};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use uuid::Uuid;

use crate::error::Problem;
use crate::extract::{ApiJson, ApiQuery, InProject, OptionalApiJson, ProjectPath, ProjectScope};
use crate::views::{nullable, rfc3339, DateRangeQuery, Located, PageInfo, PageQuery};
use crate::{ApiError, AppState};

/// A page of calls.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CallPage {
    /// The calls of this page, newest first unless `sortBy` says otherwise.
    pub data: Vec<CallListing>,
    /// Where the page stands.
    #[serde(flatten)]
    pub page: PageInfo,
}

impl CallPage {
    fn new(page: Page<CallSummary>, request: PageRequest) -> Self {
        Self { page: PageInfo::new(page.total, request), data: page.items.iter().map(CallListing::of).collect() }
    }
}

/// Query of the calls list.
#[derive(Debug, Deserialize, IntoParams)]
#[serde(rename_all = "camelCase")]
#[into_params(parameter_in = Query)]
pub struct CallListQuery {
    /// Calls with any of these sentiment levels, comma-separated: `positive`, `neutral`,
    /// `negative`, `unknown` (beyond the spec).
    #[param(example = "negative,neutral")]
    pub sentiment_level: Option<String>,
    /// Calls in this language, `pl` or `en` (beyond the spec).
    pub language: Option<String>,
    /// Calls filed under this category or any category below it (beyond the spec).
    #[param(value_type = Option<Uuid>)]
    pub category_id: Option<String>,
    /// `true`: only calls with an action item still open whose due date has passed (beyond
    /// the spec).
    pub has_overdue_items: Option<bool>,
    /// Only calls with a stretch nobody talks in longer than this many seconds (beyond the
    /// spec).
    #[param(minimum = 0, example = 30)]
    pub non_talk_over_s: Option<f64>,
    /// Only calls with more interruptions than this (beyond the spec).
    #[param(minimum = 0, example = 3)]
    pub interruptions_over: Option<i64>,
    /// The order (beyond the spec): `CREATED_AT` (default), `DURATION`, `NON_TALK`,
    /// `LONGEST_NON_TALK`, `MUSIC` (time on hold), `INTERRUPTIONS`, `TALK_SPEED`. Calls not
    /// measured come last.
    pub sort_by: Option<String>,
    /// `DESC` (default) or `ASC`.
    pub sort_dir: Option<String>,
    /// Only calls that matched this rule (beyond the spec).
    #[param(value_type = Option<Uuid>)]
    pub rule_id: Option<String>,
}

impl CallListQuery {
    /// The store's filter, each value checked: 422 names the parameter that is wrong.
    pub(crate) async fn filter(
        &self,
        state: &AppState,
        project: callscope_domain::ProjectId,
        dates: &DateRangeQuery,
    ) -> Result<CallFilter, ApiError> {
        let (from, to) = dates.bounds()?;
        let mut v = Validator::default();
        let mut sentiment = Vec::new();
        for raw in self.sentiment_level.as_deref().unwrap_or_default().split(',').map(str::trim).filter(|s| !s.is_empty()) {
            match raw.to_ascii_lowercase().parse::<SentimentLevel>() {
                Ok(level) if !sentiment.contains(&level) => sentiment.push(level),
                Ok(_) => {}
                Err(_) => v.error("sentimentLevel", format!("{raw:?} is not one of positive, neutral, negative, unknown")),
            }
        }
        let language =
            self.language.as_deref().map(str::trim).filter(|l| !l.is_empty()).and_then(|l| match l.to_ascii_lowercase().parse::<Language>() {
                Ok(language) => Some(language),
                Err(_) => {
                    v.error("language", "must be pl or en");
                    None
                }
            });
        let category = id_param(&mut v, "categoryId", self.category_id.as_deref(), "a category").map(CategoryId);
        let non_talk_over_ms = match self.non_talk_over_s {
            Some(s) if !s.is_finite() || s < 0.0 => {
                v.error("nonTalkOverS", "must be a number of seconds, 0 or more");
                None
            }
            Some(s) => Some((s * 1000.0).round() as i64),
            None => None,
        };
        if self.interruptions_over.is_some_and(|n| n < 0) {
            v.error("interruptionsOver", "must be 0 or more");
        }
        let sort = match self.sort_by.as_deref().map(str::trim).filter(|s| !s.is_empty()).map(str::to_ascii_uppercase).as_deref() {
            None | Some("CREATED_AT") => CallSort::CreatedAt,
            Some("DURATION") => CallSort::Duration,
            Some("NON_TALK") => CallSort::NonTalk,
            Some("LONGEST_NON_TALK") => CallSort::LongestNonTalk,
            Some("MUSIC") => CallSort::Music,
            Some("INTERRUPTIONS") => CallSort::Interruptions,
            Some("TALK_SPEED") => CallSort::TalkSpeed,
            Some(_) => {
                v.error("sortBy", "must be one of CREATED_AT, DURATION, NON_TALK, LONGEST_NON_TALK, MUSIC, INTERRUPTIONS, TALK_SPEED");
                CallSort::CreatedAt
            }
        };
        let ascending = match self.sort_dir.as_deref().map(str::trim).filter(|s| !s.is_empty()).map(str::to_ascii_uppercase).as_deref() {
            None | Some("DESC") => false,
            Some("ASC") => true,
            Some(_) => {
                v.error("sortDir", "must be ASC or DESC");
                false
            }
        };
        let rule = id_param(&mut v, "ruleId", self.rule_id.as_deref(), "a rule").map(RuleId);
        v.finish()?;
        if let Some(rule) = rule {
            if matches!(state.store.get_rule(project, rule).await, Err(callscope_store::StoreError::NotFound(_))) {
                return Err(ApiError::invalid("ruleId", "is not a rule of this project"));
            }
        }
        let categories = match category {
            Some(id) => {
                let all = state.store.list_categories(project).await?;
                if !all.iter().any(|c| c.id == id) {
                    return Err(ApiError::invalid("categoryId", "is not a category of this project"));
                }
                Some(callscope_domain::subtree(&all, id))
            }
            None => None,
        };
        let overdue_at = self.has_overdue_items.unwrap_or(false).then(|| state.clock.now());
        Ok(CallFilter {
            from,
            to,
            sentiment,
            language,
            categories,
            overdue_at,
            non_talk_over_ms,
            interruptions_over: self.interruptions_over,
            rule,
            sort,
            ascending,
        })
    }
}

/// An id given as the query parameter `name` (blank is none); anything but a UUID is recorded
/// as an error naming `what` it should be the id of.
fn id_param(v: &mut Validator, name: &str, value: Option<&str>, what: &str) -> Option<Uuid> {
    let value = value.map(str::trim).filter(|s| !s.is_empty())?;
    value.parse().map_err(|_| v.error(name, format!("must be {what} id (a UUID)"))).ok()
}

/// List the project's calls, newest first unless sorted otherwise.
#[utoipa::path(get, path = "/v1/projects/{projectId}/calls", tag = "Calls", params(ProjectPath, PageQuery, DateRangeQuery, CallListQuery),
    responses((status = 200, description = "A page of calls", body = CallPage),
        (status = 422, description = "Page bounds, from after to, or a filter or order not allowed (sentimentLevel, language, categoryId, \
            nonTalkOverS, interruptionsOver, ruleId, sortBy, sortDir)", body = Problem)))]
pub async fn list_calls(
    State(state): State<AppState>,
    scope: ProjectScope,
    ApiQuery(paging): ApiQuery<PageQuery>,
    ApiQuery(dates): ApiQuery<DateRangeQuery>,
    ApiQuery(query): ApiQuery<CallListQuery>,
) -> Result<Json<CallPage>, ApiError> {
    let request = paging.validate()?;
    let filter = query.filter(&state, scope.id(), &dates).await?;
    let page = state.store.list_calls(scope.id(), &filter, request).await?;
    Ok(Json(CallPage::new(page, request)))
}

/// Deletes stored audio, every key of it (one already gone is no error); a key that cannot be
/// deleted is a 503, with what came before it deleted, so that the caller can stop and retry.
pub(crate) async fn delete_audio(state: &AppState, keys: &[String]) -> Result<(), ApiError> {
    for key in keys {
        match state.storage.delete(key).await {
            Ok(()) | Err(callscope_storage::StorageError::NotFound(_)) => {}
            Err(error) => {
                tracing::warn!(%error, %key, "could not delete stored audio");
                return Err(ApiError::Unavailable);
            }
        }
    }
    Ok(())
}

/// Erase a call: its audio, transcript, analysis, action items and jobs (beyond the spec; the
/// right to erasure).
#[utoipa::path(delete, path = "/v1/projects/{projectId}/calls/{id}", tag = "Calls",
    params(ProjectPath, ("id" = Uuid, Path, description = "The call")),
    responses((status = 204, description = "Erased"),
        (status = 503, description = "The audio could not be deleted; nothing was", body = Problem)))]
pub async fn delete_call(State(state): State<AppState>, InProject { scope, id }: InProject<CallId>) -> Result<StatusCode, ApiError> {
    // The audio first, every copy of it: if one cannot go, the call stays whole (and findable
    // by its id) and the client can retry.
    delete_audio(&state, &state.store.call_audio_keys(scope.id(), id).await?).await?;
    state.store.delete_call(scope.id(), id).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// A call with its transcript and analysis.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CallDetailView {
    /// Everything the list shows.
    #[serde(flatten)]
    pub call: CallListing,
    /// When the call last changed (re-analysis, recategorisation).
    #[serde(serialize_with = "rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    pub updated_at: Timestamp,
    /// The transcript as one text.
    pub full_text: String,
    /// Who spoke, and how much.
    pub speakers: Vec<SpeakerStats>,
    /// The turns in order, with times in milliseconds.
    pub turns: Vec<Turn>,
    /// The object-store key of the audio, relative to the store's root.
    pub storage_path: String,
    /// How much personal data was found, by type.
    pub pii_statistics: PiiStatistics,
    /// The call's categories; null when the project has no categories.
    pub classification: Option<Classification>,
    /// The summary, sentiment and action items; null for a call never analysed.
    pub summary: Option<CallSummaryBlock>,
    /// The template's answers; null when no template applied.
    pub template_analysis: Option<TemplateAnalysis>,
    /// How far the transcript can be trusted, from the recogniser's confidence in its words
    /// (beyond the spec); null for a call transcribed before it was judged. When `reliable` is
    /// false the summary says so and every confidence is halved.
    pub transcript_quality: Option<TranscriptQuality>,
    /// Each speaker's sentiment per quarter of the call, from `summary.sentiment.turnScores`
    /// (beyond the spec); empty for a call analysed before turns were scored.
    pub sentiment_by_quarter: Vec<SpeakerSentimentQuarters>,
    /// Talk and non-talk time (with what fills the long pauses), overlap and interruptions,
    /// talk speed and loudness, per call and per speaker (beyond the spec); null for a call
    /// transcribed before they were measured.
    pub characteristics: Option<CallCharacteristics>,
    /// The project's rules the call matched, by label, each with its evidence (beyond the
    /// spec).
    pub rule_matches: Vec<RuleMatch>,
}

async fn detail(state: &AppState, project: callscope_domain::ProjectId, id: CallId) -> Result<CallDetailView, ApiError> {
    let call = state.store.get_call_summary(project, id).await?;
    let (updated_at, storage_path) = (call.updated_at, call.storage_path.clone());
    let transcript = state.store.get_call_text(project, id).await?;
    let analysis = state.store.get_call_analysis(project, id).await?;
    let now = state.clock.now();
    let by_quarter = analysis.summary.as_ref().map_or_else(Vec::new, |stored| {
        sentiment_by_quarter(&transcript.turns, &stored.sentiment.turn_scores, call.duration_s.map(|s| (s * 1000.0) as i64))
    });
    let summary = analysis.summary.map(|stored| CallSummaryBlock::new(stored, &analysis.action_items, now));
    Ok(CallDetailView {
        call: CallListing::of(&call),
        updated_at,
        full_text: transcript.full_text,
        speakers: transcript.speakers,
        turns: transcript.turns,
        storage_path,
        pii_statistics: transcript.pii_statistics,
        classification: analysis.classification,
        summary,
        template_analysis: analysis.template_analysis,
        transcript_quality: transcript.quality,
        sentiment_by_quarter: by_quarter,
        characteristics: transcript.characteristics,
        rule_matches: state.store.call_rule_matches(project, id).await?,
    })
}

/// Get a call: transcript, speakers, PII statistics, classification, summary with its action
/// items, template answers.
#[utoipa::path(get, path = "/v1/projects/{projectId}/calls/{id}", tag = "Calls", params(ProjectPath, ("id" = Uuid, Path, description = "The call")),
    responses((status = 200, description = "The call", body = CallDetailView)))]
pub async fn get_call(State(state): State<AppState>, InProject { scope, id }: InProject<CallId>) -> Result<Json<CallDetailView>, ApiError> {
    Ok(Json(detail(&state, scope.id(), id).await?))
}

/// One recognised word with its timing, as the call page plays and highlights it.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct TimedWordView {
    /// The word with its punctuation (masked in a masked project, as the turns are).
    pub text: String,
    /// Start, milliseconds from the start of the recording.
    pub start_ms: i64,
    /// End, milliseconds.
    pub end_ms: i64,
    /// Who said it: a `speakerId` of the call's `speakers`.
    pub speaker_id: String,
    /// How sure the recogniser was of it (0–1); null for words kept before it was recorded.
    pub confidence: Option<f32>,
}

/// Where personal data was said: its type and time, never its value.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PiiSpanView {
    /// The PII type (`PHONE_NUMBER`, `EMAIL`, …).
    #[serde(rename = "type")]
    #[schema(example = "PHONE_NUMBER")]
    pub kind: String,
    /// Index of the turn in the call's `turns`.
    pub turn: usize,
    /// When it was said, milliseconds.
    pub start_ms: i64,
    /// When it ended, milliseconds.
    pub end_ms: i64,
    /// 0–1.
    pub confidence: f32,
}

/// A call's words in time order and the personal data found in them: what a player needs to
/// follow the recording word by word (beyond the interface spec; used by the web application).
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CallWordsView {
    /// Every recognised word, in time order.
    pub words: Vec<TimedWordView>,
    /// Personal data, in time order.
    pub pii_spans: Vec<PiiSpanView>,
}

/// Get a call's timed words and where its personal data was said.
#[utoipa::path(get, path = "/v1/projects/{projectId}/calls/{id}/words", tag = "Calls",
    params(ProjectPath, ("id" = Uuid, Path, description = "The call")),
    responses((status = 200, description = "The call's words and personal data spans", body = CallWordsView)))]
pub async fn get_call_words(State(state): State<AppState>, InProject { scope, id }: InProject<CallId>) -> Result<Json<CallWordsView>, ApiError> {
    let transcript = state.store.get_call_transcript(scope.id(), id).await?;
    let mut words: Vec<TimedWordView> = transcript
        .words
        .into_iter()
        .map(|w| TimedWordView {
            text: w.text,
            start_ms: w.start_ms,
            end_ms: w.end_ms,
            speaker_id: callscope_domain::speaker_id(w.speaker),
            confidence: w.confidence,
        })
        .collect();
    // Channels are transcribed one after the other; the page reads them as one timeline.
    words.sort_by_key(|w| (w.start_ms, w.end_ms));
    let mut pii_spans: Vec<PiiSpanView> = transcript
        .pii_spans
        .into_iter()
        .map(|p| PiiSpanView { kind: p.kind, turn: p.turn, start_ms: p.start_ms, end_ms: p.end_ms, confidence: p.confidence })
        .collect();
    pii_spans.sort_by_key(|p| (p.start_ms, p.turn));
    Ok(Json(CallWordsView { words, pii_spans }))
}

/// Body of a recategorisation.
#[derive(Debug, Deserialize, ToSchema)]
#[schema(example = json!({"categoryId": "0193a3c1-7f2e-7c61-9d3b-5f0f1b2c3d4e"}))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SetCategoryRequest {
    /// A category of this project, or null to leave the call uncategorized.
    #[serde(default, deserialize_with = "nullable")]
    #[schema(value_type = Option<Uuid>)]
    pub category_id: Option<Option<Uuid>>,
}

/// Set or clear a call's category by hand. The choice replaces the primary match (`modelUsed`
/// `manual`), is never overwritten by re-analysis, and raises `call.category_changed`.
#[utoipa::path(patch, path = "/v1/projects/{projectId}/calls/{id}/category", tag = "Calls",
    params(ProjectPath, ("id" = Uuid, Path, description = "The call")),
    request_body = SetCategoryRequest,
    responses((status = 200, description = "The call, recategorised", body = CallDetailView),
        (status = 422, description = "categoryId missing, or not a category of this project", body = Problem)))]
pub async fn set_call_category(
    State(state): State<AppState>,
    InProject { scope, id }: InProject<CallId>,
    ApiJson(body): ApiJson<SetCategoryRequest>,
) -> Result<Json<CallDetailView>, ApiError> {
    let Some(chosen) = body.category_id else {
        return Err(ApiError::invalid("categoryId", "is required (null clears the category)"));
    };
    let chosen = chosen.map(CategoryId);
    let categories = state.store.list_categories(scope.id()).await?;
    if chosen.is_some_and(|c| !categories.iter().any(|k| k.id == c)) {
        // Checked again in the store's transaction, in case the category goes meanwhile.
        return Err(ApiError::invalid("categoryId", "is not a category of this project"));
    }
    let classification = Classification::manual(&categories, chosen);
    state.store.set_call_category(scope.id(), id, chosen, Some(&classification)).await?;
    Ok(Json(detail(&state, scope.id(), id).await?))
}

/// Body of a renaming of a call's speakers.
#[derive(Debug, Deserialize, ToSchema)]
#[schema(example = json!({"names": {"speaker_1": "Customer", "speaker_2": "Agent"}}))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RenameSpeakersRequest {
    /// New names by `speakerId`: one or more speakers of the call, each name 1–100 characters.
    pub names: std::collections::BTreeMap<String, String>,
}

/// The longest speaker name.
const SPEAKER_NAME_MAX: usize = 100;

/// Rename a call's speakers, or swap their roles, all at once (beyond the spec). The call's
/// action items owned by a renamed speaker follow, each raising `action_item.updated`; swapping
/// two names moves each item once. Answers the call.
#[utoipa::path(put, path = "/v1/projects/{projectId}/calls/{id}/speakers", tag = "Calls",
    params(ProjectPath, ("id" = Uuid, Path, description = "The call")),
    request_body = RenameSpeakersRequest,
    responses((status = 200, description = "The call, its speakers renamed", body = CallDetailView),
        (status = 422, description = "No names, an empty or too long name, or a speakerId not of this call", body = Problem)))]
pub async fn rename_speakers(
    State(state): State<AppState>,
    InProject { scope, id }: InProject<CallId>,
    ApiJson(body): ApiJson<RenameSpeakersRequest>,
) -> Result<Json<CallDetailView>, ApiError> {
    let mut v = Validator::default();
    if body.names.is_empty() {
        v.error("names", "must name at least one speaker");
    }
    let mut names = Vec::with_capacity(body.names.len());
    for (speaker, name) in &body.names {
        let name = name.trim();
        if name.is_empty() || name.chars().count() > SPEAKER_NAME_MAX || name.chars().any(char::is_control) {
            v.error(format!("names.{speaker}"), format!("must be 1 to {SPEAKER_NAME_MAX} characters, without control characters"));
        }
        names.push((speaker.clone(), name.to_owned()));
    }
    v.finish()?;
    state.store.rename_call_speakers(scope.id(), id, &names).await?;
    Ok(Json(detail(&state, scope.id(), id).await?))
}

/// Body of a re-analysis (optional).
#[derive(Debug, Deserialize, ToSchema)]
#[schema(example = json!({"templateId": "0193a3c1-8a40-7d12-b6f1-2c9e8d7a6b5c"}))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ReanalyzeRequest {
    /// The template to answer; omitted: the one active when the job runs.
    #[schema(value_type = Option<Uuid>)]
    pub template_id: Option<Uuid>,
}

/// Re-run the analysis of a stored call (classification, summary, sentiment, action items,
/// template answers) with the current engine, categories and template. Queues a job (kind
/// `REANALYZE`); a category set by hand is kept; the call's action items are replaced.
#[utoipa::path(post, path = "/v1/projects/{projectId}/calls/{id}/reanalyze", tag = "Calls",
    params(ProjectPath, ("id" = Uuid, Path, description = "The call")),
    request_body(content = Option<ReanalyzeRequest>, description = "Optional: the template to use",
        example = json!({"templateId": "0193a3c1-8a40-7d12-b6f1-2c9e8d7a6b5c"})),
    responses((status = 202, description = "Queued; poll the job", body = Job),
        (status = 422, description = "templateId is not a template of this project", body = Problem)))]
pub async fn reanalyze_call(
    State(state): State<AppState>,
    InProject { scope, id }: InProject<CallId>,
    OptionalApiJson(body): OptionalApiJson<ReanalyzeRequest>,
) -> Result<Located<Job>, ApiError> {
    let template = body.and_then(|b| b.template_id).map(TemplateId);
    if let Some(template) = template {
        match state.store.get_template(scope.id(), template).await {
            Ok(_) => {}
            Err(callscope_store::StoreError::NotFound(_)) => return Err(ApiError::invalid("templateId", "is not a template of this project")),
            Err(other) => return Err(other.into()),
        }
    }
    let job = state.store.create_reanalysis_job(scope.id(), id, template).await?;
    let location = format!("/v1/projects/{}/calls/jobs/{}", scope.id(), job.id);
    Ok(Located::accepted(location, job))
}
