//! The vocabulary of callscope: identifiers, organizations, API keys, projects and the rules
//! that hold for them whatever stores or serves them. No HTTP and no SQL here.

#[macro_use]
mod text_enum;

mod action_item;
mod analysis;
mod call;
mod category;
mod characteristics;
mod clock;
mod event;
pub mod export;
mod health;
mod ids;
mod job;
mod keys;
mod pii;
mod preset;
mod project;
mod rules;
mod sentiment;
mod template;
mod transcript;
mod validation;
mod vocabulary;
mod webhook;

pub use action_item::{ActionItem, ActionItemPriority, ActionItemStatus, NewActionItem};
pub use analysis::{
    sentiment_by_quarter, two_decimals, ActionItemView, AnswerConfidence, AnswerValue, CallSummaryBlock, CategoryMatch, Classification,
    OverallSentiment, SentimentReading, SpeakerSentimentQuarters, StoredSummary, SummaryText, TemplateAnalysis, TemplateResult,
};
pub use call::{display_title, CallAudio, CallFigures, CallListing, CallSummary, CallText, CallTranscript, StoredAnalysis};
pub use category::{
    build_tree, insert_at, level_of, name_key, subtree, subtree_levels, would_cycle, Category, CategoryMove, CategoryNode, CategoryPatch,
    NewCategory, CATEGORY_LEVELS_MAX,
};
pub use characteristics::{
    quarter_of, talk_spans, CallCharacteristics, Interruption, NonTalkStretch, PauseSound, SpeakerCharacteristics, BRIDGED_PAUSE_MS, LISTED_MAX,
    NON_TALK_LISTED_MS,
};
pub use clock::{rfc3339_millis, rfc3339_millis_opt, rfc3339_millis_text, Clock, ManualClock, SystemClock, Timestamp};
pub use event::{CallCompleted, CategoryChange, Event, RuleMatched};
pub use health::WorkerHealth;
pub use ids::{
    ActionItemId, ApiKeyId, CallId, CategoryId, JobId, OrgId, ProjectId, RuleId, SpeakerPresetId, TaxonomyId, TemplateFieldId, TemplateId,
    WebhookDeliveryId, WebhookId,
};
pub use job::{parse_channel_roles, Job, JobKind, JobStage, JobStatus, NewJob};
pub use keys::{random_secret_hex, ApiKey, ApiKeySecret, KeyDigest, Principal};
pub use pii::{PiiSpan, PiiStatistics};
pub use preset::{PresetInput, SpeakerPreset};
pub use project::{time_zone, Language, NewProject, Organization, PiiRedaction, Project, ProjectPatch, PROJECT_DESCRIPTION_MAX, PROJECT_NAME_MAX};
pub use rules::{
    Party, Require, Rule, RuleCondition, RuleEvidence, RuleInput, RuleMatch, RuleSubject, SentimentSpan, TimeWindow, WindowEdge,
    RULES_PER_PROJECT_MAX, RULE_CONDITIONS_MAX, RULE_DESCRIPTION_MAX, RULE_NAME_MAX, RULE_PHRASES_MAX, RULE_PHRASE_MAX,
};
pub use sentiment::SentimentLevel;
pub use template::{AnalysisTemplate, AnswerType, FieldInput, TemplateField, TemplateInput};
pub use transcript::{build_transcript, speaker_id, speaker_name, SpeakerRole, SpeakerStats, TimedWord, TranscriptQuality, Turn};
pub use validation::{is_non_answer, FieldError, ValidationErrors, Validator};
pub use vocabulary::{Vocabulary, VocabularyTerm, SPOKEN_FORMS_MAX, VOCABULARY_TERMS_MAX, VOCABULARY_TERM_MAX};
pub use webhook::{generate_secret, is_public_ip, parse_events, DeliveryStatus, Webhook, WebhookDelivery, ALL_EVENTS, EVENT_TYPES, WEBHOOK_URL_MAX};

/// A page request with the 1-based page numbers the calls and projects lists use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PageRequest {
    /// 1-based page number.
    pub page: u32,
    /// Items per page, at least 1.
    pub page_size: u32,
}

impl PageRequest {
    /// Rows to skip before this page.
    pub fn offset(&self) -> u64 {
        u64::from(self.page.saturating_sub(1)) * u64::from(self.page_size)
    }

    /// Pages of this size that `total` rows fill: `ceil(total / page_size)`.
    pub fn pages_for(&self, total: u64) -> u64 {
        total.div_ceil(u64::from(self.page_size.max(1)))
    }
}

/// One page of results plus the total number of matching rows.
#[derive(Debug, Clone, PartialEq)]
pub struct Page<T> {
    /// The rows of this page.
    pub items: Vec<T>,
    /// How many rows match in all pages together.
    pub total: u64,
}

impl<T> Page<T> {
    /// `ceil(total / page_size)`.
    pub fn total_pages(&self, page_size: u32) -> u64 {
        PageRequest { page: 1, page_size }.pages_for(self.total)
    }
}
