//! Calls as the rest of the code sees them: the summary lists show, the transcript, the stored
//! analysis and the audio's facts.

use crate::{ActionItem, CallId, CategoryId, Language, PiiSpan, PiiStatistics, SentimentLevel, SpeakerStats, TimedWord, Timestamp, Turn};

/// A call's stored analysis with its action items.
#[derive(Debug, Clone, PartialEq)]
pub struct StoredAnalysis {
    pub title: Option<String>,
    pub sentiment_level: SentimentLevel,
    pub primary_category: Option<CategoryId>,
    pub classification: Option<serde_json::Value>,
    pub summary: Option<serde_json::Value>,
    pub template_analysis: Option<serde_json::Value>,
    pub action_items: Vec<ActionItem>,
}

/// A call's transcript: text, speaker turns, per-speaker statistics and the timed words.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CallTranscript {
    /// Turns' text, one turn per line.
    pub full_text: String,
    /// Speaker turns in time order.
    pub turns: Vec<Turn>,
    /// Who spoke, and how much.
    pub speakers: Vec<SpeakerStats>,
    /// Recognised words with timing and speaker.
    pub words: Vec<TimedWord>,
    /// The speech model that made it.
    pub speech_model: Option<String>,
    /// Personal data found, by type.
    pub pii_statistics: PiiStatistics,
    /// Where the personal data was.
    pub pii_spans: Vec<PiiSpan>,
}

/// A call as lists show it (decisions §4's call summary), plus when it last changed and where
/// its audio is.
#[derive(Debug, Clone, PartialEq)]
#[allow(missing_docs)]
pub struct CallSummary {
    pub id: CallId,
    pub filename: String,
    pub language: Language,
    pub size_bytes: i64,
    pub duration_s: Option<f64>,
    pub sentiment_level: SentimentLevel,
    /// The primary category's name.
    pub primary_category: Option<String>,
    pub action_items_count: i64,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
    pub title: Option<String>,
    /// Object-store key of the audio.
    pub storage_path: String,
}

/// A stored call's audio, as the audio endpoints show it (the API adds where its bytes are).
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct CallAudio {
    /// Upload file name.
    pub filename: String,
    /// Media type, recognised from the bytes.
    pub content_type: String,
    /// Bytes.
    pub size_bytes: i64,
    /// Length in seconds.
    pub duration_s: Option<f64>,
    /// Sample rate of the file.
    pub sample_rate: Option<i32>,
    /// Channels of the file.
    pub channels: Option<i32>,
    /// Codec (`pcm_s16le`, `pcm_mulaw`, `mp3`, `aac`, …).
    pub codec: Option<String>,
    /// Lower-case hex SHA-256 of the bytes.
    pub sha256: String,
    /// Object-store key.
    pub storage_path: String,
}
