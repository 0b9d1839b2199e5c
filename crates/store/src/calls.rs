//! Calls as the API reads them: lists, the transcript, the audio facts, the analysis, the
//! category chosen by hand, and erasure.

use async_trait::async_trait;
use callscope_domain::{
    CallAudio, CallFigures, CallId, CallSummary, CallText, CallTranscript, CategoryId, Classification, Language, Page, PageRequest, ProjectId,
    RuleId, SentimentLevel, StoredAnalysis, Timestamp,
};

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
        classification: Option<&Classification>,
    ) -> StoreResult<Option<CategoryId>>;

    /// Creation time, sentiment level and sentiment confidence of the project's calls created
    /// within the inclusive bounds given (for the sentiment dashboard).
    async fn call_sentiments(
        &self,
        project: ProjectId,
        from: Option<Timestamp>,
        to: Option<Timestamp>,
    ) -> StoreResult<Vec<(Timestamp, SentimentLevel, Option<f64>)>>;

    /// Creation time, length and figures of the project's measured calls created within the
    /// inclusive bounds given (for the characteristics dashboard).
    async fn call_figures(
        &self,
        project: ProjectId,
        from: Option<Timestamp>,
        to: Option<Timestamp>,
    ) -> StoreResult<Vec<(Timestamp, f64, CallFigures)>>;

    /// The project's calls that pass `filter`, in its order.
    async fn list_calls(&self, project: ProjectId, filter: &CallFilter, page: PageRequest) -> StoreResult<Page<CallSummary>>;

    /// Gives the call's speakers new names, all at once (`names`: speaker id → name), and the
    /// call's action items owned by a renamed speaker follow (`action_item.updated` for each),
    /// so that swapping two names moves each item once. Answers the items that changed.
    async fn rename_call_speakers(
        &self,
        project: ProjectId,
        call: CallId,
        names: &[(String, String)],
    ) -> StoreResult<Vec<callscope_domain::ActionItem>>;

    /// Erases a call with its transcript and action items, and the jobs that made or re-analysed
    /// it (their file names are personal data too). The audio is the caller's to delete, first.
    async fn delete_call(&self, project: ProjectId, call: CallId) -> StoreResult<()>;

    /// Every object-store key that may hold the call's audio: the uploads of the jobs that made
    /// it (an original whose deletion after redaction failed), then, last, the one it plays, so
    /// that an erasure stopped part way leaves the call playable. Erasure deletes them all.
    async fn call_audio_keys(&self, project: ProjectId, call: CallId) -> StoreResult<Vec<String>>;

    /// A call of the project as lists show it.
    async fn get_call_summary(&self, project: ProjectId, call: CallId) -> StoreResult<CallSummary>;

    /// The audio facts of a call of the project.
    async fn get_call_audio(&self, project: ProjectId, call: CallId) -> StoreResult<CallAudio>;

    /// The transcript of a call of the project.
    async fn get_call_transcript(&self, project: ProjectId, call: CallId) -> StoreResult<CallTranscript>;

    /// The transcript of a call of the project without its timed words (nor where its personal
    /// data was said): its text, turns, speakers and PII counts.
    async fn get_call_text(&self, project: ProjectId, call: CallId) -> StoreResult<CallText>;

    /// A call's analysis and action items; `NotFound` when the call is not the project's.
    async fn get_call_analysis(&self, project: ProjectId, call: CallId) -> StoreResult<StoredAnalysis>;

    /// The project's calls named, as lists show them (those that exist, in no order).
    async fn call_summaries(&self, project: ProjectId, ids: &[CallId]) -> StoreResult<Vec<CallSummary>>;
}

/// What the calls list is ordered by (beyond the spec). Calls without the figure (transcribed
/// before it was measured) come last either way; ties go newest first.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum CallSort {
    /// When the call was stored.
    #[default]
    CreatedAt,
    /// The recording's length.
    Duration,
    /// All the time nobody talks.
    NonTalk,
    /// The longest stretch nobody talks in.
    LongestNonTalk,
    /// Time on hold: music or tones in the pauses.
    Music,
    /// How many interruptions.
    Interruptions,
    /// Words per minute.
    TalkSpeed,
}

impl CallSort {
    /// The column of the calls table (`c`) it orders by.
    pub(crate) fn column(self) -> &'static str {
        match self {
            Self::CreatedAt => "c.created_at",
            Self::Duration => "c.duration_s",
            Self::NonTalk => "c.non_talk_ms",
            Self::LongestNonTalk => "c.longest_non_talk_ms",
            Self::Music => "c.music_ms",
            Self::Interruptions => "c.interruption_count",
            Self::TalkSpeed => "c.words_per_minute",
        }
    }
}

/// Which calls a list shows, and in what order: decisions §4's bounds on `createdAt`, and the
/// filters the web application offers (beyond the spec). Every filter given must hold.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CallFilter {
    /// Created at or after.
    pub from: Option<Timestamp>,
    /// Created at or before.
    pub to: Option<Timestamp>,
    /// Any of these sentiment levels (none: all).
    pub sentiment: Vec<SentimentLevel>,
    /// Calls in this language.
    pub language: Option<Language>,
    /// Calls whose primary category is one of these (a category with its subtree).
    pub categories: Option<Vec<CategoryId>>,
    /// Calls with an action item still open (pending or in progress) and due before this instant.
    pub overdue_at: Option<Timestamp>,
    /// Calls with a stretch nobody talks in longer than this many milliseconds.
    pub non_talk_over_ms: Option<i64>,
    /// Calls with more interruptions than this.
    pub interruptions_over: Option<i64>,
    /// Calls that matched this rule.
    pub rule: Option<RuleId>,
    /// The order (newest first by default).
    pub sort: CallSort,
    /// Smallest first rather than largest.
    pub ascending: bool,
}
