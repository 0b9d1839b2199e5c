//! Calls as the rest of the code sees them: the summary lists show, the transcript, the stored
//! analysis and the audio's facts.

use crate::{
    ActionItem, CallCharacteristics, CallId, CategoryId, Classification, Language, PiiSpan, PiiStatistics, SentimentLevel, SpeakerStats,
    StoredSummary, TemplateAnalysis, TimedWord, Timestamp, TranscriptQuality, Turn,
};

/// A call's stored analysis with its action items.
#[derive(Debug, Clone, PartialEq)]
pub struct StoredAnalysis {
    pub title: Option<String>,
    pub sentiment_level: SentimentLevel,
    pub primary_category: Option<CategoryId>,
    /// Null when the project had no categories.
    pub classification: Option<Classification>,
    /// The summary block without its action items (those are `action_items`).
    pub summary: Option<StoredSummary>,
    /// Null when no template applied.
    pub template_analysis: Option<TemplateAnalysis>,
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
    /// How far the transcript can be trusted (`None` for calls transcribed before it was
    /// judged).
    pub quality: Option<TranscriptQuality>,
    /// Talk and non-talk time, interruptions, speed and loudness (`None` for calls transcribed
    /// before they were measured).
    pub characteristics: Option<CallCharacteristics>,
}

/// A call's transcript without its timed words: what the call detail and a re-analysis read
/// (the words are most of a long call's transcript, and only the word view serves them).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CallText {
    /// Turns' text, one turn per line.
    pub full_text: String,
    /// Speaker turns in time order.
    pub turns: Vec<Turn>,
    /// Who spoke, and how much.
    pub speakers: Vec<SpeakerStats>,
    /// Personal data found, by type.
    pub pii_statistics: PiiStatistics,
    /// How far the transcript can be trusted.
    pub quality: Option<TranscriptQuality>,
    /// Talk and non-talk time, interruptions, speed and loudness.
    pub characteristics: Option<CallCharacteristics>,
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
    /// When the call took place, as its upload said (`recorded_at`); `None` when not given.
    pub recorded_at: Option<Timestamp>,
    pub updated_at: Timestamp,
    pub title: Option<String>,
    /// Object-store key of the audio.
    pub storage_path: String,
    /// The characteristics lists show and sort by; `None` for calls transcribed before they
    /// were measured.
    pub figures: Option<CallFigures>,
    /// The labels of the rules the call matched, in order.
    pub rule_labels: Vec<String>,
}

/// The figures of a call's characteristics that lists show, sort and filter by (beyond the
/// spec): the rest is in the call detail's `characteristics`.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct CallFigures {
    /// Milliseconds nobody talks.
    pub non_talk_ms: i64,
    /// The longest stretch nobody talks in, milliseconds.
    pub longest_non_talk_ms: i64,
    /// Milliseconds of music or tones in the pauses (time on hold).
    pub music_ms: Option<i64>,
    /// Interruptions.
    pub interruption_count: i64,
    /// Words per minute of talk.
    pub words_per_minute: Option<f64>,
}

impl CallFigures {
    /// The figures of `characteristics`.
    pub fn of(characteristics: &CallCharacteristics) -> Self {
        Self {
            non_talk_ms: characteristics.non_talk_ms,
            longest_non_talk_ms: characteristics.longest_non_talk_ms,
            music_ms: characteristics.music_ms,
            interruption_count: i64::from(characteristics.interruption_count),
            words_per_minute: characteristics.words_per_minute,
        }
    }
}

impl CallSummary {
    /// The call's title as every view shows it: the generated one, or the file name when none
    /// could be made (or it is blank).
    pub fn display_title(&self) -> String {
        display_title(self.title.as_deref(), &self.filename)
    }
}

/// A call's title as every view shows it: `title`, or `filename` when there is none (or it is
/// blank). The one rule for the calls list, search hits and the `call.completed` event.
pub fn display_title(title: Option<&str>, filename: &str) -> String {
    title.map(str::trim).filter(|t| !t.is_empty()).unwrap_or(filename).to_owned()
}

/// A call as the calls list, search hits and the `call.completed` event show it (decisions §4's
/// call summary, in the spec's order).
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct CallListing {
    /// The call's id.
    #[cfg_attr(feature = "openapi", schema(value_type = uuid::Uuid))]
    pub id: CallId,
    /// The uploaded file's name.
    pub filename: String,
    /// The language it was transcribed in.
    pub language: Language,
    /// Bytes of the stored audio; absent from search hits (decisions §4).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "openapi", schema(minimum = 0))]
    pub size_bytes: Option<i64>,
    /// Length in seconds.
    #[cfg_attr(feature = "openapi", schema(minimum = 0))]
    pub duration_s: Option<f64>,
    /// The customer's sentiment, in three levels (`unknown` before analysis).
    pub sentiment_level: SentimentLevel,
    /// The primary category's name; null when uncategorized.
    pub primary_category: Option<String>,
    /// Action items extracted from the call.
    #[cfg_attr(feature = "openapi", schema(minimum = 0))]
    pub action_items_count: i64,
    /// When the call was stored.
    #[serde(serialize_with = "crate::rfc3339_millis")]
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = DateTime))]
    pub created_at: Timestamp,
    /// When the call took place, as the upload's `recorded_at` said (decisions §4, beyond the
    /// spec); null when the upload did not say. Spoken deadlines are counted from it.
    #[serde(serialize_with = "crate::rfc3339_millis_opt")]
    #[cfg_attr(feature = "openapi", schema(value_type = Option<String>, format = DateTime))]
    pub recorded_at: Option<Timestamp>,
    /// A short generated title (the file name when none could be made).
    pub title: String,
    /// Non-talk time, interruptions and talk speed (beyond the spec); absent for calls
    /// transcribed before they were measured.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub figures: Option<CallFigures>,
    /// The labels of the project's rules the call matched (beyond the spec); absent when none.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub rule_labels: Vec<String>,
}

impl CallListing {
    /// `call` as the calls list shows it.
    pub fn of(call: &CallSummary) -> Self {
        Self {
            id: call.id,
            filename: call.filename.clone(),
            language: call.language,
            size_bytes: Some(call.size_bytes),
            duration_s: call.duration_s,
            sentiment_level: call.sentiment_level,
            primary_category: call.primary_category.clone(),
            action_items_count: call.action_items_count,
            created_at: call.created_at,
            recorded_at: call.recorded_at,
            title: call.display_title(),
            figures: call.figures.clone(),
            rule_labels: call.rule_labels.clone(),
        }
    }

    /// As a search hit shows it: without its size.
    #[must_use]
    pub fn without_size(self) -> Self {
        Self { size_bytes: None, ..self }
    }
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
