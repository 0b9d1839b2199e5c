//! Rules (beyond the spec; what AWS calls categories and Gong keyword trackers): a project's
//! own deterministic filing of calls. A rule names a label and holds conditions on what was said,
//! by whom and when, on the call's characteristics, sentiment, categories and personal data; a
//! call matches when all of them hold (or any, as the rule says), and the match keeps its
//! evidence: the moments and words that made it.
//!
//! Who is the agent and who the customer comes from the part told from the speakers' words,
//! else from their names (channel roles, the default preset, or a name set on the call page):
//! "agent", "konsultant", … and "customer", "klient", …. A rule about a party no speaker is
//! found for matches nothing.

use serde::{Deserialize, Serialize};

use crate::{
    sentiment_by_quarter, CallCharacteristics, CategoryId, ProjectId, RuleId, SentimentLevel, SpeakerRole, SpeakerStats, Timestamp, Turn,
    ValidationErrors, Validator,
};

/// Longest rule name (the label calls are filed under).
pub const RULE_NAME_MAX: usize = 100;
/// Longest rule description.
pub const RULE_DESCRIPTION_MAX: usize = 1000;
/// Most conditions in a rule.
pub const RULE_CONDITIONS_MAX: usize = 10;
/// Most phrases in one condition.
pub const RULE_PHRASES_MAX: usize = 50;
/// Longest phrase.
pub const RULE_PHRASE_MAX: usize = 200;
/// Most rules in a project.
pub const RULES_PER_PROJECT_MAX: usize = 100;
/// The longest time window, in seconds: a day.
const WINDOW_MAX_S: u32 = 86_400;
/// At most this many pieces of evidence are kept per match.
const EVIDENCE_MAX: usize = 10;
/// Longest quote in a piece of evidence, in characters.
const QUOTE_MAX: usize = 200;
/// A phrase word this long or longer also matches the words it begins ("zwrot" finds
/// "zwrotu", "refund" finds "refunded"); a shorter one only itself.
const STEM_MIN_CHARS: usize = 4;
/// A mean turn score at or above this is positive, at or below its negation negative: the
/// analysis's own thresholds.
const SENTIMENT_LEANS: f64 = 0.15;

/// Which party of the call a condition is about.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum Party {
    /// Anyone.
    #[default]
    Any,
    /// The speaker named as the agent.
    Agent,
    /// The speaker named as the customer.
    Customer,
}

/// Where a time window is counted from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum WindowEdge {
    /// The first `seconds` of the call.
    Start,
    /// The last `seconds` of the call.
    End,
}

/// The first or last seconds of a call.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct TimeWindow {
    /// From the start or the end.
    pub from: WindowEdge,
    /// How many seconds, 1–86400.
    #[cfg_attr(feature = "openapi", schema(minimum = 1, maximum = 86400))]
    pub seconds: u32,
}

/// Which part of the call a sentiment condition reads.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum SentimentSpan {
    /// The last quarter of the call.
    #[default]
    End,
    /// The first quarter.
    Start,
    /// The whole call.
    Call,
}

fn said() -> bool {
    true
}

fn customer() -> Party {
    Party::Customer
}

/// One condition of a rule.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum RuleCondition {
    /// Any of `phrases` said (with `said` false: none of them) by `by`, within `window` when
    /// given. A phrase's words of four letters or more also match the words they begin.
    #[serde(rename_all = "camelCase")]
    Phrase {
        /// 1–50 phrases of 1–200 characters.
        phrases: Vec<String>,
        /// True (the default): one of them is said; false: none is.
        #[serde(default = "said")]
        said: bool,
        /// Who says it (default anyone).
        #[serde(default)]
        by: Party,
        /// Only the first or last seconds of the call.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        window: Option<TimeWindow>,
    },
    /// A stretch nobody talks in longer than `overSeconds`.
    #[serde(rename_all = "camelCase")]
    NonTalk {
        /// Seconds, 0–86400.
        over_seconds: f64,
    },
    /// More than `over` interruptions, made by `by`.
    #[serde(rename_all = "camelCase")]
    Interruptions {
        /// How many are allowed.
        over: u32,
        /// Who interrupts (default anyone).
        #[serde(default)]
        by: Party,
    },
    /// `by`'s sentiment (default the customer's) in part of the call is `level`.
    #[serde(rename_all = "camelCase")]
    Sentiment {
        /// `positive`, `neutral` or `negative`.
        level: SentimentLevel,
        /// Whose (default the customer's).
        #[serde(default = "customer")]
        by: Party,
        /// Which part of the call (default its last quarter).
        #[serde(default)]
        during: SentimentSpan,
    },
    /// The call is filed under the category (or a category below it).
    #[serde(rename_all = "camelCase")]
    Category {
        /// The category.
        #[cfg_attr(feature = "openapi", schema(value_type = uuid::Uuid))]
        category_id: CategoryId,
    },
    /// Personal data of the type was found.
    #[serde(rename_all = "camelCase")]
    Pii {
        /// A type of `piiStatistics.types` (`PAYMENT_CARD`, `PESEL`, …).
        pii_type: String,
    },
}

/// Whether every condition must hold, or one is enough.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum Require {
    /// All of them.
    #[default]
    All,
    /// At least one.
    Any,
}

/// A rule as it is written: what a client sends to create or replace one.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct RuleInput {
    /// The label matched calls are filed under, 1–100 characters, unique in the project.
    pub name: String,
    /// What the rule is for, at most 1000 characters.
    #[serde(default)]
    pub description: String,
    /// Whether calls are filed by it (default true).
    #[serde(default = "said")]
    pub enabled: bool,
    /// `all` (the default) or `any` of the conditions.
    #[serde(default)]
    pub require: Require,
    /// 1–10 conditions.
    pub conditions: Vec<RuleCondition>,
}

/// A stored rule.
#[derive(Debug, Clone, PartialEq)]
pub struct Rule {
    /// The rule's id.
    pub id: RuleId,
    /// Its project.
    pub project_id: ProjectId,
    /// What was written, validated.
    pub input: RuleInput,
    /// When it was made.
    pub created_at: Timestamp,
    /// When it last changed.
    pub updated_at: Timestamp,
    /// Whether the calls stored before it was made or last changed are still being filed by it.
    pub filing_pending: bool,
    /// How many of those calls it has been evaluated on so far.
    pub calls_filed: i64,
}

/// The moment and words that made a rule match.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct RuleEvidence {
    /// When, milliseconds from the start of the recording.
    pub at_ms: i64,
    /// What shows it: a quote, or a measure ("42 s nobody talks").
    pub text: String,
}

/// A rule a call matched, with its evidence.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct RuleMatch {
    /// The rule.
    #[cfg_attr(feature = "openapi", schema(value_type = uuid::Uuid))]
    pub rule_id: RuleId,
    /// Its name when it matched: the label.
    pub label: String,
    /// The moments that made it (the first ten), in time order.
    pub evidence: Vec<RuleEvidence>,
}

impl RuleInput {
    /// Checks the rule's shape: the name, the description, each condition's values. Whether
    /// a category is the project's and a PII type exists is for the caller, which knows them.
    ///
    /// # Errors
    /// Every broken rule, by field (`conditions[2].phrases`).
    pub fn validate(mut self) -> Result<Self, ValidationErrors> {
        let mut v = Validator::default();
        self.name = v.text("name", &self.name, 1, RULE_NAME_MAX);
        self.description = v.optional_text("description", &self.description, RULE_DESCRIPTION_MAX).unwrap_or_default();
        if self.conditions.is_empty() || self.conditions.len() > RULE_CONDITIONS_MAX {
            v.error("conditions", format!("must hold 1 to {RULE_CONDITIONS_MAX} conditions"));
        }
        for (i, condition) in self.conditions.iter_mut().enumerate() {
            let field = |name: &str| format!("conditions[{i}].{name}");
            match condition {
                RuleCondition::Phrase { phrases, window, .. } => {
                    let kept: Vec<String> = phrases.iter().map(|p| p.trim().to_owned()).filter(|p| !p.is_empty()).collect();
                    if kept.is_empty() || kept.len() > RULE_PHRASES_MAX {
                        v.error(field("phrases"), format!("must hold 1 to {RULE_PHRASES_MAX} phrases that are not blank"));
                    }
                    if kept.iter().any(|p| p.chars().count() > RULE_PHRASE_MAX) {
                        v.error(field("phrases"), format!("a phrase must be at most {RULE_PHRASE_MAX} characters"));
                    }
                    *phrases = kept;
                    if window.is_some_and(|w| w.seconds == 0 || w.seconds > WINDOW_MAX_S) {
                        v.error(field("window.seconds"), format!("must be 1 to {WINDOW_MAX_S}"));
                    }
                }
                RuleCondition::NonTalk { over_seconds } => {
                    if !over_seconds.is_finite() || *over_seconds < 0.0 || *over_seconds > f64::from(WINDOW_MAX_S) {
                        v.error(field("overSeconds"), format!("must be 0 to {WINDOW_MAX_S} seconds"));
                    }
                }
                RuleCondition::Sentiment { level, .. } => {
                    if *level == SentimentLevel::Unknown {
                        v.error(field("level"), "must be positive, neutral or negative");
                    }
                }
                RuleCondition::Pii { pii_type } => {
                    *pii_type = pii_type.trim().to_ascii_uppercase();
                    if pii_type.is_empty() {
                        v.error(field("piiType"), "must not be empty");
                    }
                }
                RuleCondition::Interruptions { .. } | RuleCondition::Category { .. } => {}
            }
        }
        v.finish()?;
        Ok(self)
    }
}

/// What a call offers rules to read.
#[derive(Debug, Clone, Copy)]
pub struct RuleSubject<'a> {
    /// The turns, in time order.
    pub turns: &'a [Turn],
    /// The speakers, whose names say their party.
    pub speakers: &'a [SpeakerStats],
    /// The recording's length, milliseconds.
    pub duration_ms: i64,
    /// The call's characteristics, when measured.
    pub characteristics: Option<&'a CallCharacteristics>,
    /// Each turn's sentiment score (−1 to 1), in the turns' order; empty when not scored.
    pub turn_scores: &'a [Option<f64>],
    /// The categories the call is filed under, with every category above them.
    pub categories: &'a [CategoryId],
    /// The types of personal data found in it.
    pub pii_types: &'a [String],
}

/// The party a speaker's name says they are.
fn party_of(name: &str) -> Party {
    let name = name.trim().to_lowercase();
    const AGENTS: [&str; 8] = ["agent", "konsultant", "konsultantka", "doradca", "doradczyni", "operator", "operatorka", "representative"];
    const CUSTOMERS: [&str; 6] = ["customer", "client", "caller", "klient", "klientka", "rozmówca"];
    if AGENTS.contains(&name.as_str()) {
        Party::Agent
    } else if CUSTOMERS.contains(&name.as_str()) {
        Party::Customer
    } else {
        Party::Any
    }
}

/// The party a speaker is: the part told from their words, else what their name says.
fn party_of_speaker(speaker: &SpeakerStats) -> Party {
    match speaker.role {
        Some(SpeakerRole::Agent) => Party::Agent,
        Some(SpeakerRole::Customer) => Party::Customer,
        None => party_of(&speaker.name),
    }
}

impl RuleSubject<'_> {
    /// Whether the speaker is of `party`.
    fn speaks_for(&self, speaker_id: &str, party: Party) -> bool {
        party == Party::Any || self.speakers.iter().any(|s| s.speaker_id == speaker_id && party_of_speaker(s) == party)
    }

    /// The ids of `party`'s speakers.
    fn speakers_of(&self, party: Party) -> Vec<&str> {
        self.speakers.iter().filter(|s| self.speaks_for(&s.speaker_id, party)).map(|s| s.speaker_id.as_str()).collect()
    }

    /// Whether a turn falls in the window (any part of it).
    fn in_window(&self, turn: &Turn, window: Option<TimeWindow>) -> bool {
        match window {
            None => true,
            Some(TimeWindow { from: WindowEdge::Start, seconds }) => turn.start_ms < i64::from(seconds) * 1000,
            Some(TimeWindow { from: WindowEdge::End, seconds }) => turn.end_ms > self.duration_ms - i64::from(seconds) * 1000,
        }
    }
}

/// Lower-case words without their punctuation.
fn words_of(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_alphanumeric() && c != '\'' && c != '’')
        .map(|w| w.trim_matches(|c| c == '\'' || c == '’').to_lowercase())
        .filter(|w| !w.is_empty())
        .collect()
}

/// Whether `words` hold `phrase` (already split) at some place.
fn holds_phrase(words: &[String], phrase: &[String]) -> bool {
    if phrase.is_empty() || phrase.len() > words.len() {
        return false;
    }
    let fits = |word: &str, wanted: &str| {
        if wanted.chars().count() >= STEM_MIN_CHARS {
            word.starts_with(wanted)
        } else {
            word == wanted
        }
    };
    words.windows(phrase.len()).any(|run| run.iter().zip(phrase).all(|(w, p)| fits(w, p)))
}

fn quote(text: &str) -> String {
    let text = text.trim();
    if text.chars().count() <= QUOTE_MAX {
        return text.to_owned();
    }
    let cut: String = text.chars().take(QUOTE_MAX - 1).collect();
    format!("{}…", cut.trim_end())
}

fn level_of(score: f64) -> SentimentLevel {
    if score >= SENTIMENT_LEANS {
        SentimentLevel::Positive
    } else if score <= -SENTIMENT_LEANS {
        SentimentLevel::Negative
    } else {
        SentimentLevel::Neutral
    }
}

impl RuleCondition {
    /// The evidence that the condition holds for `call`; `None` when it does not.
    fn holds(&self, call: &RuleSubject<'_>) -> Option<Vec<RuleEvidence>> {
        match self {
            Self::Phrase { phrases, said, by, window } => {
                let wanted: Vec<Vec<String>> = phrases.iter().map(|p| words_of(p)).collect();
                let found: Vec<RuleEvidence> = call
                    .turns
                    .iter()
                    .filter(|t| call.speaks_for(&t.speaker_id, *by) && call.in_window(t, *window))
                    .filter(|t| {
                        let words = words_of(&t.text);
                        wanted.iter().any(|p| holds_phrase(&words, p))
                    })
                    .map(|t| RuleEvidence { at_ms: t.start_ms, text: quote(&t.text) })
                    .collect();
                match (said, found.is_empty()) {
                    (true, false) => Some(found),
                    (false, true) => Some(vec![RuleEvidence { at_ms: 0, text: format!("not said: {}", phrases.join(", ")) }]),
                    _ => None,
                }
            }
            Self::NonTalk { over_seconds } => {
                let c = call.characteristics?;
                let over_ms = (over_seconds * 1000.0).round() as i64;
                let long: Vec<RuleEvidence> = c
                    .non_talk_stretches
                    .iter()
                    .filter(|s| s.end_ms - s.start_ms > over_ms)
                    .map(|s| RuleEvidence { at_ms: s.start_ms, text: format!("{} s nobody talks", (s.end_ms - s.start_ms) / 1000) })
                    .collect();
                if !long.is_empty() {
                    Some(long)
                } else if c.longest_non_talk_ms > over_ms {
                    // Longer than asked, though shorter than the stretches listed one by one.
                    Some(vec![RuleEvidence { at_ms: 0, text: format!("{} s nobody talks", c.longest_non_talk_ms / 1000) }])
                } else {
                    None
                }
            }
            Self::Interruptions { over, by } => {
                let c = call.characteristics?;
                let cuts: Vec<_> = c.interruptions.iter().filter(|i| call.speaks_for(&i.speaker_id, *by)).collect();
                let count = if *by == Party::Any { c.interruption_count as usize } else { cuts.len() };
                (count > *over as usize).then(|| {
                    cuts.iter()
                        .map(|i| RuleEvidence { at_ms: i.at_ms, text: format!("{} interrupts {}", i.speaker_id, i.interrupted_speaker_id) })
                        .collect()
                })
            }
            Self::Sentiment { level, by, during } => {
                let speakers = call.speakers_of(*by);
                let quarters = sentiment_by_quarter(call.turns, call.turn_scores, Some(call.duration_ms));
                let scores: Vec<f64> = match during {
                    SentimentSpan::Call => call
                        .turns
                        .iter()
                        .zip(call.turn_scores)
                        .filter(|(t, _)| speakers.contains(&t.speaker_id.as_str()))
                        .filter_map(|(_, s)| *s)
                        .collect(),
                    SentimentSpan::Start | SentimentSpan::End => {
                        let quarter = if *during == SentimentSpan::Start { 0 } else { 3 };
                        quarters.iter().filter(|q| speakers.contains(&q.speaker_id.as_str())).filter_map(|q| q.quarters[quarter]).collect()
                    }
                };
                if scores.is_empty() {
                    return None;
                }
                let mean = scores.iter().sum::<f64>() / scores.len() as f64;
                (level_of(mean) == *level).then(|| {
                    let at = match during {
                        SentimentSpan::End => call.duration_ms * 3 / 4,
                        SentimentSpan::Start | SentimentSpan::Call => 0,
                    };
                    vec![RuleEvidence { at_ms: at, text: format!("sentiment {} ({mean:.2})", level.as_str()) }]
                })
            }
            Self::Category { category_id } => {
                call.categories.contains(category_id).then(|| vec![RuleEvidence { at_ms: 0, text: "filed under the category".into() }])
            }
            Self::Pii { pii_type } => call.pii_types.contains(pii_type).then(|| vec![RuleEvidence { at_ms: 0, text: format!("{pii_type} found") }]),
        }
    }
}

impl Rule {
    /// The match of `call`, when the rule is enabled and its conditions hold as it requires.
    pub fn evaluate(&self, call: &RuleSubject<'_>) -> Option<RuleMatch> {
        let rule = &self.input;
        if !rule.enabled {
            return None;
        }
        let held: Vec<Option<Vec<RuleEvidence>>> = rule.conditions.iter().map(|c| c.holds(call)).collect();
        let matched = match rule.require {
            Require::All => held.iter().all(Option::is_some),
            Require::Any => held.iter().any(Option::is_some),
        };
        if !matched || held.is_empty() {
            return None;
        }
        let mut evidence: Vec<RuleEvidence> = held.into_iter().flatten().flatten().collect();
        evidence.sort_by_key(|e| e.at_ms);
        evidence.dedup();
        evidence.truncate(EVIDENCE_MAX);
        Some(RuleMatch { rule_id: self.id, label: rule.name.clone(), evidence })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{speaker_id, TimedWord};

    fn turn(speaker: usize, start_ms: i64, text: &str) -> Turn {
        Turn { speaker_id: speaker_id(speaker), text: text.into(), start_ms, end_ms: start_ms + 4000 }
    }

    fn speaker(label: usize, name: &str) -> SpeakerStats {
        SpeakerStats::named(&speaker_id(label), name)
    }

    fn rule(require: Require, conditions: Vec<RuleCondition>) -> Rule {
        let input = RuleInput { name: "Escalation".into(), description: String::new(), enabled: true, require, conditions };
        Rule {
            id: RuleId::new(),
            project_id: ProjectId::new(),
            input: input.validate().unwrap(),
            created_at: chrono::Utc::now(),
            updated_at: chrono::Utc::now(),
            filing_pending: false,
            calls_filed: 0,
        }
    }

    fn phrase(phrases: &[&str], said: bool, by: Party, window: Option<TimeWindow>) -> RuleCondition {
        RuleCondition::Phrase { phrases: phrases.iter().map(|p| (*p).to_owned()).collect(), said, by, window }
    }

    struct Call {
        turns: Vec<Turn>,
        speakers: Vec<SpeakerStats>,
        scores: Vec<Option<f64>>,
        characteristics: Option<CallCharacteristics>,
        categories: Vec<CategoryId>,
        pii: Vec<String>,
    }

    impl Call {
        /// A 60-second call: the agent greets, the customer wants a refund and a manager, the
        /// agent closes; the customer ends angry.
        fn angry() -> Self {
            let turns = vec![
                turn(0, 0, "Good morning, you are through to Acme support."),
                turn(1, 5000, "I want a refund for the broken kettle, now."),
                turn(0, 20_000, "I understand. Let me check the order."),
                turn(1, 45_000, "This is useless, get me your manager!"),
                turn(0, 55_000, "Thank you for calling, goodbye."),
            ];
            let words: Vec<TimedWord> = turns
                .iter()
                .enumerate()
                .map(|(i, t)| TimedWord { text: "w".into(), start_ms: t.start_ms, end_ms: t.end_ms, speaker: i % 2, confidence: None })
                .collect();
            Call {
                turns,
                speakers: vec![speaker(0, "Agent"), speaker(1, "klient")],
                scores: vec![Some(0.3), Some(-0.4), None, Some(-0.8), Some(0.2)],
                characteristics: Some(CallCharacteristics::from_words(&words, 60_000)),
                categories: vec![CategoryId::new()],
                pii: vec!["PAYMENT_CARD".into()],
            }
        }

        fn subject(&self) -> RuleSubject<'_> {
            RuleSubject {
                turns: &self.turns,
                speakers: &self.speakers,
                duration_ms: 60_000,
                characteristics: self.characteristics.as_ref(),
                turn_scores: &self.scores,
                categories: &self.categories,
                pii_types: &self.pii,
            }
        }
    }

    #[test]
    fn a_phrase_is_found_by_its_words_their_speaker_and_its_window() {
        let call = Call::angry();
        let found = rule(Require::All, vec![phrase(&["manager", "supervisor"], true, Party::Customer, None)]).evaluate(&call.subject()).unwrap();
        assert_eq!(found.label, "Escalation");
        assert_eq!(found.evidence, vec![RuleEvidence { at_ms: 45_000, text: "This is useless, get me your manager!".into() }]);
        // Case and punctuation do not matter; a stem finds its word ("kett" finds "kettle"), but a
        // short word only itself ("no" is not "now").
        assert!(rule(Require::All, vec![phrase(&["REFUND for"], true, Party::Any, None)]).evaluate(&call.subject()).is_some());
        assert!(rule(Require::All, vec![phrase(&["kett"], true, Party::Any, None)]).evaluate(&call.subject()).is_some());
        assert!(rule(Require::All, vec![phrase(&["kettles"], true, Party::Any, None)]).evaluate(&call.subject()).is_none());
        assert!(rule(Require::All, vec![phrase(&["no"], true, Party::Any, None)]).evaluate(&call.subject()).is_none());
        // The agent never says "manager"; the customer's refund is in the first 10 s, not the last.
        assert!(rule(Require::All, vec![phrase(&["manager"], true, Party::Agent, None)]).evaluate(&call.subject()).is_none());
        let first = Some(TimeWindow { from: WindowEdge::Start, seconds: 10 });
        let last = Some(TimeWindow { from: WindowEdge::End, seconds: 10 });
        assert!(rule(Require::All, vec![phrase(&["refund"], true, Party::Customer, first)]).evaluate(&call.subject()).is_some());
        assert!(rule(Require::All, vec![phrase(&["refund"], true, Party::Customer, last)]).evaluate(&call.subject()).is_none());
        // The agent greets in the first 10 s and closes in the last: a script kept.
        let greeting = phrase(&["good morning", "dzień dobry"], true, Party::Agent, first);
        let closing = phrase(&["thank you for calling"], true, Party::Agent, last);
        assert!(rule(Require::All, vec![greeting, closing]).evaluate(&call.subject()).is_some());
    }

    #[test]
    fn a_phrase_not_said_matches_only_when_nobody_says_it() {
        let call = Call::angry();
        let no_name = rule(Require::All, vec![phrase(&["my name is"], false, Party::Agent, None)]).evaluate(&call.subject()).unwrap();
        assert_eq!(no_name.evidence[0].text, "not said: my name is");
        assert!(rule(Require::All, vec![phrase(&["refund"], false, Party::Any, None)]).evaluate(&call.subject()).is_none());
    }

    #[test]
    fn the_customers_sentiment_at_the_end_and_over_the_call() {
        let call = Call::angry();
        let negative_end = RuleCondition::Sentiment { level: SentimentLevel::Negative, by: Party::Customer, during: SentimentSpan::End };
        let found = rule(Require::All, vec![negative_end]).evaluate(&call.subject()).unwrap();
        assert_eq!(found.evidence[0].at_ms, 45_000);
        let positive_start = RuleCondition::Sentiment { level: SentimentLevel::Positive, by: Party::Agent, during: SentimentSpan::Start };
        assert!(rule(Require::All, vec![positive_start]).evaluate(&call.subject()).is_some());
        let customer_call = RuleCondition::Sentiment { level: SentimentLevel::Negative, by: Party::Customer, during: SentimentSpan::Call };
        assert!(rule(Require::All, vec![customer_call]).evaluate(&call.subject()).is_some());
        // Without scores there is nothing to read.
        let mut unscored = Call::angry();
        unscored.scores.clear();
        let negative_end = RuleCondition::Sentiment { level: SentimentLevel::Negative, by: Party::Customer, during: SentimentSpan::End };
        assert!(rule(Require::All, vec![negative_end]).evaluate(&unscored.subject()).is_none());
    }

    #[test]
    fn characteristics_categories_and_personal_data_are_read() {
        let call = Call::angry();
        // The longest pause is from 24 s to 45 s: 21 s.
        let pause = rule(Require::All, vec![RuleCondition::NonTalk { over_seconds: 20.0 }]).evaluate(&call.subject()).unwrap();
        assert_eq!(pause.evidence, vec![RuleEvidence { at_ms: 24_000, text: "21 s nobody talks".into() }]);
        assert!(rule(Require::All, vec![RuleCondition::NonTalk { over_seconds: 30.0 }]).evaluate(&call.subject()).is_none());
        assert!(rule(Require::All, vec![RuleCondition::Interruptions { over: 0, by: Party::Any }]).evaluate(&call.subject()).is_none());
        let category = RuleCondition::Category { category_id: call.categories[0] };
        let card = RuleCondition::Pii { pii_type: "payment_card".into() };
        assert!(rule(Require::All, vec![category.clone(), card]).evaluate(&call.subject()).is_some(), "the type is read in capitals");
        let pesel = RuleCondition::Pii { pii_type: "PESEL".into() };
        assert!(rule(Require::All, vec![category.clone(), pesel.clone()]).evaluate(&call.subject()).is_none(), "all must hold");
        assert!(rule(Require::Any, vec![category, pesel]).evaluate(&call.subject()).is_some(), "any is enough");
        // A call never measured matches no rule on its characteristics.
        let mut unmeasured = Call::angry();
        unmeasured.characteristics = None;
        assert!(rule(Require::All, vec![RuleCondition::NonTalk { over_seconds: 0.0 }]).evaluate(&unmeasured.subject()).is_none());
    }

    #[test]
    fn a_disabled_rule_matches_nothing() {
        let call = Call::angry();
        let mut off = rule(Require::All, vec![phrase(&["refund"], true, Party::Any, None)]);
        off.input.enabled = false;
        assert!(off.evaluate(&call.subject()).is_none());
    }

    #[test]
    fn rules_are_read_as_written_and_checked() {
        let written = serde_json::json!({
            "name": "  Escalation ",
            "conditions": [
                {"type": "phrase", "phrases": ["manager", " "], "by": "customer", "window": {"from": "end", "seconds": 60}},
                {"type": "non_talk", "overSeconds": 30},
                {"type": "sentiment", "level": "negative"},
                {"type": "pii", "piiType": "pesel"}
            ]
        });
        let rule: RuleInput = serde_json::from_value(written).unwrap();
        let rule = rule.validate().unwrap();
        assert_eq!(rule.name, "Escalation");
        assert!(rule.enabled && rule.require == Require::All);
        assert_eq!(rule.conditions[0], phrase(&["manager"], true, Party::Customer, Some(TimeWindow { from: WindowEdge::End, seconds: 60 })));
        assert_eq!(rule.conditions[2], RuleCondition::Sentiment { level: SentimentLevel::Negative, by: Party::Customer, during: SentimentSpan::End });
        assert_eq!(rule.conditions[3], RuleCondition::Pii { pii_type: "PESEL".into() });
        let back = serde_json::to_value(&rule).unwrap();
        assert_eq!(back["conditions"][1], serde_json::json!({"type": "non_talk", "overSeconds": 30.0}));

        let bad = RuleInput {
            name: " ".into(),
            description: String::new(),
            enabled: true,
            require: Require::Any,
            conditions: vec![
                phrase(&[" "], true, Party::Any, Some(TimeWindow { from: WindowEdge::Start, seconds: 0 })),
                RuleCondition::NonTalk { over_seconds: -1.0 },
                RuleCondition::Sentiment { level: SentimentLevel::Unknown, by: Party::Any, during: SentimentSpan::Call },
            ],
        };
        let fields: Vec<String> = bad.validate().unwrap_err().0.into_iter().map(|e| e.field).collect();
        assert_eq!(fields, ["name", "conditions[0].phrases", "conditions[0].window.seconds", "conditions[1].overSeconds", "conditions[2].level"]);
        let empty = RuleInput { name: "x".into(), description: String::new(), enabled: true, require: Require::All, conditions: vec![] };
        assert_eq!(empty.validate().unwrap_err().0[0].field, "conditions");
    }
}
