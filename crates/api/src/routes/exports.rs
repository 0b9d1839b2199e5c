//! Calls as files people open elsewhere (beyond the spec): a call's transcript as plain text,
//! SubRip or WebVTT subtitles, the speaker's name in each cue.

use axum::extract::State;
use axum::http::header;
use axum::response::{IntoResponse, Response};
use callscope_domain::export::{self, TranscriptFormat};
use callscope_domain::CallId;
use serde::Deserialize;
use utoipa::IntoParams;

use crate::error::Problem;
use crate::extract::{ApiQuery, InProject, ProjectPath};
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
        (status = 404, description = "No such project or call", body = Problem),
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
