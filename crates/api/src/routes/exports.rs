//! Calls as files people open elsewhere (beyond the spec): a call's transcript as plain text,
//! SubRip or WebVTT subtitles, the speaker's name in each cue; the calls list and the action
//! items as CSV, with the lists' filters, safe to open in a spreadsheet program.

use axum::extract::{RawQuery, State};
use axum::http::header;
use axum::response::{IntoResponse, Response};
use callscope_domain::export::{self, csv_row, TranscriptFormat};
use callscope_domain::{rfc3339_millis_text, ActionItemView, CallId, PageRequest};
use serde::Deserialize;
use utoipa::IntoParams;

use crate::error::Problem;
use crate::extract::{ApiQuery, InProject, ProjectPath, ProjectScope};
use crate::routes::action_items::parse_list_query;
use crate::routes::calls::CallListQuery;
use crate::views::DateRangeQuery;
use crate::{ApiError, AppState};

/// Query of a transcript download.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct TranscriptFileQuery {
    /// `txt` (one line per turn, the default), `srt` (SubRip) or `vtt` (WebVTT).
    #[param(example = "srt")]
    pub format: Option<String>,
}

/// The name a downloaded file gets: the upload's name with the format's extension, in ASCII
/// (a header cannot carry more) and without quotes.
fn file_name(upload: &str, extension: &str) -> String {
    let stem = upload.rsplit_once('.').map_or(upload, |(stem, _)| stem);
    let safe: String = stem.chars().map(|c| if c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | ' ') { c } else { '_' }).collect();
    let safe = safe.trim();
    format!("{}.{extension}", if safe.is_empty() { "call" } else { safe })
}

/// Download a call's transcript as plain text or subtitles (beyond the spec). Cues are a
/// speaker's words, at most two lines and seven seconds each; in a masked project the values
/// are placeholders, as in the turns.
#[utoipa::path(get, path = "/v1/projects/{projectId}/calls/{id}/transcript", tag = "Calls",
    params(ProjectPath, ("id" = Uuid, Path, description = "The call"), TranscriptFileQuery),
    responses((status = 200, description = "The transcript file, as an attachment",
            content((String = "text/plain"), (String = "application/x-subrip"), (String = "text/vtt"))),
        (status = 422, description = "`format` is not `txt`, `srt` or `vtt`", body = Problem)))]
pub async fn get_transcript_file(
    State(state): State<AppState>,
    InProject { scope, id }: InProject<CallId>,
    ApiQuery(query): ApiQuery<TranscriptFileQuery>,
) -> Result<Response, ApiError> {
    let format = match query.format.as_deref() {
        None => TranscriptFormat::Text,
        Some(name) => TranscriptFormat::parse(name).ok_or_else(|| ApiError::invalid("format", format!("{name:?} is not one of txt, srt, vtt")))?,
    };
    let call = state.store.get_call_summary(scope.id(), id).await?;
    let transcript = state.store.get_call_transcript(scope.id(), id).await?;
    let cues = export::cues(&transcript.turns, &transcript.words, &transcript.speakers);
    let body = export::render(format, &transcript.turns, &cues, &transcript.speakers);
    let disposition = format!("attachment; filename=\"{}\"", file_name(&call.filename, format.extension()));
    Ok(([(header::CONTENT_TYPE, format.media_type().to_string()), (header::CONTENT_DISPOSITION, disposition)], body).into_response())
}

/// The most rows one CSV file holds; more asks for a narrower range.
const MAX_ROWS: u64 = 100_000;
/// Rows read from the store at a time.
const BATCH: u32 = 100;

fn csv_file(body: String, name: &str) -> Response {
    let disposition = format!("attachment; filename=\"{name}\"");
    ([(header::CONTENT_TYPE, "text/csv; charset=utf-8".to_string()), (header::CONTENT_DISPOSITION, disposition)], body).into_response()
}

fn too_many(total: u64) -> ApiError {
    ApiError::invalid("to", format!("{total} rows match, more than the {MAX_ROWS} one file holds: narrow from and to"))
}

/// Download the calls list as CSV (beyond the spec): every call the list's filters match, in the
/// list's order, one row each, with its characteristics (empty for calls not measured) and the
/// labels of the rules it matched. Cells a spreadsheet would run as a formula start with an apostrophe.
#[utoipa::path(get, path = "/v1/projects/{projectId}/calls/export", tag = "Calls", params(ProjectPath, DateRangeQuery, CallListQuery),
    responses((status = 200, description = "The calls as CSV (RFC 4180, a header row), as an attachment", content((String = "text/csv"))),
        (status = 422, description = "A filter value not allowed, from after to, or more than 100,000 calls", body = Problem)))]
pub async fn export_calls(
    State(state): State<AppState>,
    scope: ProjectScope,
    ApiQuery(dates): ApiQuery<DateRangeQuery>,
    ApiQuery(query): ApiQuery<CallListQuery>,
) -> Result<Response, ApiError> {
    let mut filter = query.filter(&state, scope.id(), &dates).await?;
    // Calls stored while the file is written would shift the pages under it: none after now.
    let now = state.clock.now();
    filter.to = Some(filter.to.map_or(now, |to| to.min(now)));
    let mut body = csv_row(&[
        "id", "createdAt", "filename", "language", "durationS", "title", "sentimentLevel", "primaryCategory", "actionItemsCount", "nonTalkS",
        "longestNonTalkS", "onHoldS", "interruptions", "wordsPerMinute", "rules",
    ]);
    let seconds = |ms: Option<i64>| ms.map(|ms| format!("{:.1}", ms as f64 / 1000.0)).unwrap_or_default();
    for page in 1.. {
        let batch = state.store.list_calls(scope.id(), &filter, PageRequest { page, page_size: BATCH }).await?;
        if batch.total > MAX_ROWS {
            return Err(too_many(batch.total));
        }
        for call in &batch.items {
            body.push_str(&csv_row(&[
                call.id.to_string(),
                rfc3339_millis_text(&call.created_at),
                call.filename.clone(),
                call.language.as_str().to_string(),
                call.duration_s.map(|d| format!("{d:.1}")).unwrap_or_default(),
                call.display_title(),
                call.sentiment_level.as_str().to_string(),
                call.primary_category.clone().unwrap_or_default(),
                call.action_items_count.to_string(),
                seconds(call.figures.as_ref().map(|f| f.non_talk_ms)),
                seconds(call.figures.as_ref().map(|f| f.longest_non_talk_ms)),
                seconds(call.figures.as_ref().and_then(|f| f.music_ms)),
                call.figures.as_ref().map(|f| f.interruption_count.to_string()).unwrap_or_default(),
                call.figures.as_ref().and_then(|f| f.words_per_minute).map(|w| format!("{w:.1}")).unwrap_or_default(),
                call.rule_labels.join("; "),
            ]));
        }
        if batch.items.len() < BATCH as usize || u64::from(page) * u64::from(BATCH) >= batch.total {
            break;
        }
    }
    Ok(csv_file(body, "calls.csv"))
}

/// Download the action items as CSV (beyond the spec): every item the list's filters match
/// (`status`, `priority`, `responsibleParty`, `transcriptId`, `from`, `to`, `search`), in its
/// sort order, one row each. Cells a spreadsheet would run as a formula start with an apostrophe.
#[utoipa::path(get, path = "/v1/projects/{projectId}/action-items/export", tag = "Action items", params(ProjectPath),
    responses((status = 200, description = "The action items as CSV (RFC 4180, a header row), as an attachment", content((String = "text/csv"))),
        (status = 422, description = "Unknown enum values, from after to, or more than 100,000 items", body = Problem)))]
pub async fn export_action_items(State(state): State<AppState>, scope: ProjectScope, RawQuery(raw): RawQuery) -> Result<Response, ApiError> {
    let mut query = parse_list_query(raw.as_deref())?;
    let now = state.clock.now();
    let mut body = csv_row(&[
        "id", "transcriptId", "callFilename", "callDate", "description", "responsibleParty", "deadlineMentioned", "dueAt", "status", "priority",
        "isOverdue", "evidence", "notes", "createdAt",
    ]);
    query.page_size = BATCH;
    // Pages of items count from 0 (the spec's action item list).
    for page in 0.. {
        query.page = page;
        let batch = state.store.list_action_items(scope.id(), &query, now).await?;
        if batch.total > MAX_ROWS {
            return Err(too_many(batch.total));
        }
        for item in &batch.items {
            let view = ActionItemView::new(item, now);
            body.push_str(&csv_row(&[
                view.id.to_string(),
                view.transcript_id.to_string(),
                view.call_filename.clone(),
                rfc3339_millis_text(&view.call_date),
                view.description.clone(),
                view.responsible_party.clone().unwrap_or_default(),
                view.deadline_mentioned.clone().unwrap_or_default(),
                view.due_at.as_ref().map(rfc3339_millis_text).unwrap_or_default(),
                view.status.as_str().to_string(),
                view.priority.as_str().to_string(),
                view.is_overdue.to_string(),
                view.evidence.clone().unwrap_or_default(),
                view.notes.clone().unwrap_or_default(),
                rfc3339_millis_text(&view.created_at),
            ]));
        }
        if batch.items.len() < BATCH as usize || u64::from(page + 1) * u64::from(BATCH) >= batch.total {
            break;
        }
    }
    Ok(csv_file(body, "action-items.csv"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_downloaded_file_is_named_after_the_upload_in_plain_ascii() {
        assert_eq!(file_name("rozmowa z klientem.wav", "srt"), "rozmowa z klientem.srt");
        assert_eq!(file_name("Łódź \"VIP\";.mp3", "vtt"), "__d_ _VIP__.vtt");
        assert_eq!(file_name("\u{202e}.wav", "txt"), "_.txt");
        assert_eq!(file_name(".wav", "txt"), "call.txt");
    }
}
