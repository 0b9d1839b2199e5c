//! Calls as the API reads them: lists, the transcript, the audio facts, the analysis, the
//! category chosen by hand, and erasure.

use async_trait::async_trait;
use callscope_domain::{ActionItem, CallId, CategoryId, Page, PageRequest, ProjectId, SentimentLevel, Timestamp};

use crate::StoreResult;

/// Calls, their transcripts and analyses. The SQL is in `sql/calls.rs`.
#[async_trait]
pub trait CallStore: Send + Sync {
    /// Sets (or with `None` clears) the call's category by hand: `classification` replaces the
    /// stored one, the call is marked so that re-analysis keeps it, and `call.category_changed`
    /// goes to the outbox. Returns the previous primary category.
    async fn set_call_category(
        &self,
        project: ProjectId,
        call: CallId,
        category: Option<CategoryId>,
        classification: Option<&serde_json::Value>,
    ) -> StoreResult<Option<CategoryId>>;

    /// Creation time, sentiment level and sentiment confidence of the project's calls created
    /// within the inclusive bounds given (for the sentiment dashboard).
    async fn call_sentiments(
        &self,
        project: ProjectId,
        from: Option<Timestamp>,
        to: Option<Timestamp>,
    ) -> StoreResult<Vec<(Timestamp, SentimentLevel, Option<f64>)>>;

    /// The project's calls, newest first, created within the inclusive bounds given.
    async fn list_calls(
        &self,
        project: ProjectId,
        from: Option<Timestamp>,
        to: Option<Timestamp>,
        page: PageRequest,
    ) -> StoreResult<Page<CallSummary>>;

    /// Erases a call with its transcript and action items, and the jobs that made or re-analysed
    /// it (their file names are personal data too). The audio is the caller's to delete, first.
    async fn delete_call(&self, project: ProjectId, call: CallId) -> StoreResult<()>;

    /// A call of the project as lists show it.
    async fn get_call_summary(&self, project: ProjectId, call: CallId) -> StoreResult<CallSummary>;

    /// The audio facts of a call of the project.
    async fn get_call_audio(&self, project: ProjectId, call: CallId) -> StoreResult<CallAudio>;

    /// The transcript of a call of the project.
    async fn get_call_transcript(&self, project: ProjectId, call: CallId) -> StoreResult<CallTranscript>;

    /// A call's analysis and action items; `NotFound` when the call is not the project's.
    async fn get_call_analysis(&self, project: ProjectId, call: CallId) -> StoreResult<StoredAnalysis>;

    /// The project's calls named, as lists show them (those that exist, in no order).
    async fn call_summaries(&self, project: ProjectId, ids: &[CallId]) -> StoreResult<Vec<CallSummary>>;
}

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
    pub turns: Vec<callscope_domain::Turn>,
    /// Who spoke, and how much.
    pub speakers: Vec<callscope_domain::SpeakerStats>,
    /// Recognised words with timing and speaker.
    pub words: Vec<callscope_domain::TimedWord>,
    /// The speech model that made it.
    pub speech_model: Option<String>,
    /// Personal data found, by type.
    pub pii_statistics: callscope_domain::PiiStatistics,
    /// Where the personal data was.
    pub pii_spans: Vec<callscope_domain::PiiSpan>,
}

/// A call as lists show it (decisions §4's call summary), plus when it last changed and where
/// its audio is.
#[derive(Debug, Clone, PartialEq)]
#[allow(missing_docs)]
pub struct CallSummary {
    pub id: CallId,
    pub filename: String,
    pub language: callscope_domain::Language,
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

/// A stored call's audio, as the audio endpoints show it.
#[derive(Debug, Clone, PartialEq)]
pub struct CallAudio {
    /// Upload file name.
    pub filename: String,
    /// Media type.
    pub content_type: String,
    /// Bytes.
    pub size_bytes: i64,
    /// Length in seconds.
    pub duration_s: Option<f64>,
    /// Sample rate of the file.
    pub sample_rate: Option<i32>,
    /// Channels of the file.
    pub channels: Option<i32>,
    /// Codec short name.
    pub codec: Option<String>,
    /// SHA-256 of the bytes.
    pub sha256: String,
    /// Object-store key.
    pub storage_path: String,
}
