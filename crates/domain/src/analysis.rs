//! A call's analysis as it is stored, served and sent: the one home of its shape. The analysis
//! engines produce these records, the worker stores them (as JSON columns, in this shape), the
//! store returns them and the API serves them; the `action_item.*` events carry the same item
//! view as the API. Editing a classification (a manual choice, categories deleted) is done by the
//! methods here, never by editing JSON.
//!
//! Fields are declared in the alphabetical order of their JSON names: before these types the
//! records were `serde_json` maps, which sort their keys, and clients keep receiving the same
//! bytes.

use serde::{Deserialize, Serialize};

use crate::{
    rfc3339_millis, ActionItem, ActionItemId, ActionItemPriority, ActionItemStatus, AnswerType, CallId, Category, CategoryId, ProjectId,
    SentimentLevel, Timestamp,
};

/// A confidence as it is shown: two decimals (an `f32` widened to `f64` would show
/// 0.6000000238418579).
pub fn two_decimals(x: f64) -> f64 {
    (x * 100.0).round() / 100.0
}

/// One category a call belongs to.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct CategoryMatch {
    /// The category.
    #[cfg_attr(feature = "openapi", schema(value_type = uuid::Uuid))]
    pub category_id: CategoryId,
    /// The names along the same path.
    pub category_names: Vec<String>,
    /// The ids from the root of the tree down to the category.
    #[cfg_attr(feature = "openapi", schema(value_type = Vec<uuid::Uuid>))]
    pub category_path: Vec<CategoryId>,
    /// 0–1, two decimals.
    #[cfg_attr(feature = "openapi", schema(minimum = 0, maximum = 1))]
    pub confidence: f64,
    /// The category's depth: 0 for a root.
    #[cfg_attr(feature = "openapi", schema(minimum = 0))]
    pub depth: u32,
    /// What in the call shows it (a quote, or "set manually").
    pub evidence: String,
}

/// `classification`: the call's categories.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct Classification {
    /// The engine that classified (`rules`, `local:…`, `openai:…`), or `manual`.
    pub model_used: String,
    /// 0–1, two decimals: 0 without a primary category.
    #[cfg_attr(feature = "openapi", schema(minimum = 0, maximum = 1))]
    pub overall_confidence: f64,
    /// The category the call is filed under; null when none fits (or the choice was cleared).
    pub primary: Option<CategoryMatch>,
    /// Why, in a sentence.
    pub reasoning: String,
    /// Other categories that fit, best first.
    pub secondary: Vec<CategoryMatch>,
}

/// What a manual choice of category says of itself.
const SET_MANUALLY: &str = "set manually";

impl Classification {
    /// The classification a manual choice stands for: `chosen` (found in `categories`) as the
    /// primary match with confidence 1 and nothing secondary; no primary when `chosen` is
    /// `None` (cleared) or not among them.
    pub fn manual(categories: &[Category], chosen: Option<CategoryId>) -> Self {
        let primary = chosen.and_then(|id| {
            let mut chain = Vec::new();
            let mut at = categories.iter().find(|c| c.id == id);
            while let Some(node) = at {
                chain.push(node);
                // A tree has no cycles; the bound keeps a corrupt one from looping.
                if chain.len() > categories.len() {
                    break;
                }
                at = node.parent_id.and_then(|p| categories.iter().find(|c| c.id == p));
            }
            chain.reverse();
            (!chain.is_empty()).then(|| CategoryMatch {
                category_id: id,
                category_path: chain.iter().map(|c| c.id).collect(),
                category_names: chain.iter().map(|c| c.name.clone()).collect(),
                confidence: 1.0,
                evidence: SET_MANUALLY.into(),
                depth: u32::try_from(chain.len() - 1).unwrap_or(u32::MAX),
            })
        });
        Self {
            primary,
            secondary: Vec::new(),
            overall_confidence: if chosen.is_some() { 1.0 } else { 0.0 },
            reasoning: if chosen.is_some() { SET_MANUALLY } else { "cleared manually" }.into(),
            model_used: "manual".into(),
        }
    }

    /// Takes out every match that names a category (as itself or on its path) for which
    /// `is_gone` holds: a deleted category's, or one under it. A removed primary match leaves no
    /// primary and the overall confidence 0. Whether anything changed.
    pub fn remove_matches(&mut self, is_gone: impl Fn(CategoryId) -> bool) -> bool {
        let names_any = |m: &CategoryMatch| is_gone(m.category_id) || m.category_path.iter().any(|&id| is_gone(id));
        let mut changed = false;
        if self.primary.as_ref().is_some_and(names_any) {
            self.primary = None;
            self.overall_confidence = 0.0;
            changed = true;
        }
        let before = self.secondary.len();
        self.secondary.retain(|m| !names_any(m));
        changed || self.secondary.len() != before
    }
}

/// `overallSentiment`: the customer's sentiment over the call, on six values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum OverallSentiment {
    VeryPositive,
    Positive,
    Neutral,
    Mixed,
    Negative,
    VeryNegative,
}

text_enum!(OverallSentiment {
    VeryPositive = "very_positive",
    Positive = "positive",
    Neutral = "neutral",
    Mixed = "mixed",
    Negative = "negative",
    VeryNegative = "very_negative"
});

impl OverallSentiment {
    /// The three levels lists and the dashboard group by (mixed counts as neutral).
    pub fn level(self) -> SentimentLevel {
        match self {
            Self::VeryPositive | Self::Positive => SentimentLevel::Positive,
            Self::Neutral | Self::Mixed => SentimentLevel::Neutral,
            Self::Negative | Self::VeryNegative => SentimentLevel::Negative,
        }
    }
}

/// `summary.summary`: what the call was about and what came of it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct SummaryText {
    /// A few sentences on the call.
    pub executive_summary: String,
    /// Whether something is left to do after the call.
    pub follow_up_required: bool,
    /// The main points discussed.
    pub key_discussion_points: Vec<String>,
    /// What happens next.
    pub next_steps: Vec<String>,
    /// What the agent did about the reason for the call; empty when nothing.
    pub resolution_provided: String,
}

impl SummaryText {
    /// What search indexes of it: the executive summary, the key points, the resolution and the
    /// next steps, one per line, empty ones left out.
    pub fn searchable_text(&self) -> String {
        let mut lines: Vec<&str> = vec![&self.executive_summary];
        lines.extend(self.key_discussion_points.iter().map(String::as_str));
        lines.push(&self.resolution_provided);
        lines.extend(self.next_steps.iter().map(String::as_str));
        lines.retain(|l| !l.trim().is_empty());
        lines.join("\n")
    }
}

/// `summary.sentiment`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct SentimentReading {
    /// 0–1, two decimals.
    #[cfg_attr(feature = "openapi", schema(minimum = 0, maximum = 1))]
    pub confidence: f64,
    /// The words that show it best.
    pub evidence: String,
    /// The customer's sentiment over the call.
    pub overall_sentiment: OverallSentiment,
    /// How it moved through the call, in a sentence.
    pub sentiment_progression: String,
    /// Each turn's score, −1 (negative) to 1 (positive), in the order of the call's `turns`;
    /// null for a turn that says nothing either way (beyond the spec; empty for calls analysed
    /// before turns were scored).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[cfg_attr(feature = "openapi", schema(value_type = Vec<Option<f64>>))]
    pub turn_scores: Vec<Option<f64>>,
}

/// One speaker's sentiment in each quarter of the call (beyond the spec).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct SpeakerSentimentQuarters {
    /// A `speakerId` of the call's `speakers`.
    pub speaker_id: String,
    /// The mean score (−1…1) of the speaker's scored turns that start in each quarter of the
    /// call's time, in order; null for a quarter where they said nothing either way.
    #[cfg_attr(feature = "openapi", schema(min_items = 4, max_items = 4))]
    pub quarters: [Option<f64>; 4],
}

/// Each speaker's sentiment per quarter of the call, from the turns' scores and start times
/// (`duration_ms`: the call's length; the last turn's end when unknown). Empty when the scores
/// do not match the turns (an analysis of an older transcript).
pub fn sentiment_by_quarter(turns: &[crate::Turn], scores: &[Option<f64>], duration_ms: Option<i64>) -> Vec<SpeakerSentimentQuarters> {
    if scores.len() != turns.len() || turns.is_empty() {
        return Vec::new();
    }
    let length = duration_ms.filter(|d| *d > 0).unwrap_or_else(|| turns.iter().map(|t| t.end_ms).max().unwrap_or(0)).max(1);
    let mut out: Vec<(SpeakerSentimentQuarters, [(f64, u32); 4])> = Vec::new();
    for (turn, score) in turns.iter().zip(scores) {
        let at = match out.iter().position(|(s, _)| s.speaker_id == turn.speaker_id) {
            Some(at) => at,
            None => {
                out.push((SpeakerSentimentQuarters { speaker_id: turn.speaker_id.clone(), quarters: [None; 4] }, [(0.0, 0); 4]));
                out.len() - 1
            }
        };
        if let Some(score) = score {
            let quarter = usize::try_from(turn.start_ms.clamp(0, length - 1) * 4 / length).unwrap_or(0).min(3);
            let (sum, n) = &mut out[at].1[quarter];
            *sum += score;
            *n += 1;
        }
    }
    out.into_iter()
        .map(|(mut speaker, sums)| {
            for (quarter, (sum, n)) in speaker.quarters.iter_mut().zip(sums) {
                *quarter = (n > 0).then(|| (sum / f64::from(n) * 100.0).round() / 100.0);
            }
            speaker
        })
        .collect()
}

/// `summary`, as it is stored: everything but the action items, which are records of their own
/// and join it when the call is read ([`CallSummaryBlock`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct StoredSummary {
    /// The engine that wrote it.
    pub model_used: String,
    /// The customer's sentiment.
    pub sentiment: SentimentReading,
    /// `sentiment.overallSentiment` folded to three levels.
    pub sentiment_level: SentimentLevel,
    /// What the call was about.
    pub summary: SummaryText,
}

/// `summary` as the call detail serves it: the stored block and the call's action items.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct CallSummaryBlock {
    /// The call's action items as the action item routes show them.
    pub action_items: Vec<ActionItemView>,
    /// The engine that wrote it.
    pub model_used: String,
    /// The customer's sentiment.
    pub sentiment: SentimentReading,
    /// `sentiment.overallSentiment` folded to three levels.
    pub sentiment_level: SentimentLevel,
    /// What the call was about.
    pub summary: SummaryText,
}

impl CallSummaryBlock {
    /// The stored block with the call's items, as they stand at `now`.
    pub fn new(stored: StoredSummary, items: &[ActionItem], now: Timestamp) -> Self {
        let StoredSummary { summary, sentiment, sentiment_level, model_used } = stored;
        Self { summary, sentiment, sentiment_level, action_items: items.iter().map(|i| ActionItemView::new(i, now)).collect(), model_used }
    }
}

/// How sure an answer to a template question is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum AnswerConfidence {
    High,
    Medium,
    Low,
}

text_enum!(AnswerConfidence { High = "HIGH", Medium = "MEDIUM", Low = "LOW" });

/// A template answer's value, by its question's `answerType`: text (TEXT, DATE as `YYYY-MM-DD`,
/// SINGLE_CHOICE), a number, yes or no, or the options chosen (MULTI_CHOICE).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(untagged)]
pub enum AnswerValue {
    /// BOOLEAN.
    Boolean(bool),
    /// NUMBER, as the engine wrote it (an integer stays one).
    #[cfg_attr(feature = "openapi", schema(value_type = f64))]
    Number(serde_json::Number),
    /// TEXT, DATE, SINGLE_CHOICE.
    Text(String),
    /// MULTI_CHOICE.
    Options(Vec<String>),
}

/// One answered (or unanswered) question of the project's template.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct TemplateResult {
    /// The question's answer type.
    pub answer_type: AnswerType,
    /// Whether the call answers it.
    pub answered: bool,
    /// How sure the answer is.
    pub confidence: AnswerConfidence,
    /// Quotes that support it.
    pub evidence: Vec<String>,
    /// The question's label.
    pub label: String,
    /// The answer; null when the call does not answer it.
    pub value: Option<AnswerValue>,
}

/// `templateAnalysis`: the project's template questions, answered from the call.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct TemplateAnalysis {
    /// When.
    #[serde(serialize_with = "rfc3339_millis")]
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = DateTime))]
    pub analyzed_at: Timestamp,
    /// The engine that answered.
    pub model_used: String,
    /// One result per question, in the template's order.
    pub results: Vec<TemplateResult>,
    /// The template's name.
    pub template_name: String,
}

/// An action item as the API shows it and the `action_item.*` events carry it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct ActionItemView {
    /// When the call took place.
    #[serde(serialize_with = "rfc3339_millis")]
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = DateTime))]
    pub call_date: Timestamp,
    /// The call's file name.
    pub call_filename: String,
    /// When it was marked done.
    #[serde(serialize_with = "crate::rfc3339_millis_opt")]
    #[cfg_attr(feature = "openapi", schema(value_type = Option<String>, format = DateTime))]
    pub completed_at: Option<Timestamp>,
    /// When analysis made it.
    #[serde(serialize_with = "rfc3339_millis")]
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = DateTime))]
    pub created_at: Timestamp,
    /// The deadline as said in the call.
    pub deadline_mentioned: Option<String>,
    /// What is to be done.
    pub description: String,
    /// The deadline as a time, when it could be resolved.
    #[serde(serialize_with = "crate::rfc3339_millis_opt")]
    #[cfg_attr(feature = "openapi", schema(value_type = Option<String>, format = DateTime))]
    pub due_at: Option<Timestamp>,
    /// The words of the call it comes from.
    pub evidence: Option<String>,
    /// The item's id.
    #[cfg_attr(feature = "openapi", schema(value_type = uuid::Uuid))]
    pub id: ActionItemId,
    /// Open, with its due time passed.
    pub is_overdue: bool,
    /// Notes people added.
    pub notes: Option<String>,
    /// How urgent it is.
    pub priority: ActionItemPriority,
    /// Its project.
    #[cfg_attr(feature = "openapi", schema(value_type = uuid::Uuid))]
    pub project_id: ProjectId,
    /// Who is to do it; null when the call does not say.
    pub responsible_party: Option<String>,
    /// Where it stands.
    pub status: ActionItemStatus,
    /// The call it came from.
    #[cfg_attr(feature = "openapi", schema(value_type = uuid::Uuid))]
    pub transcript_id: CallId,
    /// Its place among the call's items, from 0.
    #[cfg_attr(feature = "openapi", schema(minimum = 0))]
    pub transcript_index: i32,
    /// When it last changed.
    #[serde(serialize_with = "rfc3339_millis")]
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = DateTime))]
    pub updated_at: Timestamp,
}

impl ActionItemView {
    /// `item` as it stands at `now` (which decides `isOverdue`).
    pub fn new(item: &ActionItem, now: Timestamp) -> Self {
        Self {
            id: item.id,
            project_id: item.project_id,
            transcript_id: item.call_id,
            transcript_index: item.transcript_index,
            call_date: item.call_date,
            call_filename: item.call_filename.clone(),
            description: item.description.clone(),
            responsible_party: item.responsible_party.clone(),
            deadline_mentioned: item.deadline_mentioned.clone(),
            due_at: item.due_at,
            evidence: item.evidence.clone(),
            status: item.status,
            priority: item.priority,
            notes: item.notes.clone(),
            completed_at: item.completed_at,
            created_at: item.created_at,
            updated_at: item.updated_at,
            is_overdue: item.is_overdue(now),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{ProjectId, TaxonomyId};

    #[test]
    fn sentiment_by_quarter_averages_each_speakers_turns_by_when_they_start() {
        let turn = |speaker: &str, start_ms: i64| crate::Turn { speaker_id: speaker.into(), text: String::new(), start_ms, end_ms: start_ms + 1_000 };
        let turns = [turn("speaker_1", 0), turn("speaker_2", 1_000), turn("speaker_2", 2_000), turn("speaker_1", 5_000), turn("speaker_2", 9_500)];
        let scores = [Some(0.5), Some(-0.6), Some(-0.2), None, Some(0.3)];
        let quarters = sentiment_by_quarter(&turns, &scores, Some(10_000));
        assert_eq!(quarters.len(), 2);
        assert_eq!(quarters[0], SpeakerSentimentQuarters { speaker_id: "speaker_1".into(), quarters: [Some(0.5), None, None, None] });
        assert_eq!(quarters[1], SpeakerSentimentQuarters { speaker_id: "speaker_2".into(), quarters: [Some(-0.4), None, None, Some(0.3)] });
        // Without a duration the last turn's end is the call's length; scores that do not match
        // the turns give nothing rather than a wrong picture.
        assert_eq!(sentiment_by_quarter(&turns, &scores, None)[1].quarters, [Some(-0.4), None, None, Some(0.3)]);
        assert!(sentiment_by_quarter(&turns, &scores[..4], Some(10_000)).is_empty());
    }

    fn category(name: &str, parent: Option<&Category>) -> Category {
        Category {
            id: CategoryId::new(),
            project_id: ProjectId::new(),
            taxonomy_id: TaxonomyId::new(),
            parent_id: parent.map(|p| p.id),
            name: name.into(),
            description: None,
            display_order: 0,
            created_at: chrono::Utc::now(),
            updated_at: chrono::Utc::now(),
        }
    }

    #[test]
    fn a_manual_choice_is_the_primary_match_with_its_path() {
        let root = category("Billing", None);
        let leaf = category("Refunds", Some(&root));
        let all = [root.clone(), leaf.clone()];
        let chosen = Classification::manual(&all, Some(leaf.id));
        let primary = chosen.primary.as_ref().expect("a primary match");
        assert_eq!(primary.category_names, ["Billing", "Refunds"]);
        assert_eq!(primary.category_path, [root.id, leaf.id]);
        assert_eq!((primary.depth, primary.confidence, primary.evidence.as_str()), (1, 1.0, "set manually"));
        assert_eq!((chosen.model_used.as_str(), chosen.overall_confidence), ("manual", 1.0));
        // As clients have always received it: keys in order, confidences as numbers.
        let json = serde_json::to_string(&chosen).unwrap();
        assert!(json.starts_with(r#"{"modelUsed":"manual","overallConfidence":1.0,"primary":{"categoryId":"#), "{json}");
        let cleared = Classification::manual(&all, None);
        assert!(cleared.primary.is_none() && cleared.secondary.is_empty());
        assert_eq!((cleared.overall_confidence, cleared.reasoning.as_str()), (0.0, "cleared manually"));
    }

    #[test]
    fn matches_into_a_deleted_subtree_go_and_others_stay() {
        let root = category("Billing", None);
        let leaf = category("Refunds", Some(&root));
        let other = category("Outages", None);
        let all = [root.clone(), leaf.clone(), other.clone()];
        let of = |c: &Category| Classification::manual(&all, Some(c.id)).primary.unwrap();
        let classification = Classification {
            primary: Some(of(&leaf)),
            secondary: vec![of(&other), of(&root)],
            overall_confidence: 0.9,
            reasoning: "said so".into(),
            model_used: "rules".into(),
        };
        let mut left = classification.clone();
        assert!(left.remove_matches(|id| id == root.id), "a leaf whose parent is deleted goes with it");
        assert_eq!((left.primary.as_ref(), left.overall_confidence), (None, 0.0));
        assert_eq!(left.secondary, [of(&other)]);
        assert_eq!(left.model_used, "rules");
        let mut untouched = classification.clone();
        assert!(!untouched.remove_matches(|id| id == CategoryId::new()), "nothing of it deleted");
        assert_eq!(untouched, classification);
    }

    #[test]
    fn stored_records_read_back_as_they_were_written() {
        // A template analysis as the JSON column holds it (an integer stays one, null stays null).
        let stored = r#"{"analyzedAt":"2026-11-20T09:30:00.000Z","modelUsed":"rules","results":[
            {"answerType":"NUMBER","answered":true,"confidence":"MEDIUM","evidence":["two"],"label":"Lines","value":2},
            {"answerType":"MULTI_CHOICE","answered":true,"confidence":"LOW","evidence":[],"label":"Plans","value":["Fibre","Mobile"]},
            {"answerType":"BOOLEAN","answered":true,"confidence":"LOW","evidence":[],"label":"Churn","value":false},
            {"answerType":"TEXT","answered":false,"confidence":"LOW","evidence":[],"label":"Reason","value":null}],
            "templateName":"Sales"}"#;
        let analysis: TemplateAnalysis = serde_json::from_str(stored).unwrap();
        assert_eq!(analysis.results[0].value, Some(AnswerValue::Number(2.into())));
        assert_eq!(analysis.results[1].value, Some(AnswerValue::Options(vec!["Fibre".into(), "Mobile".into()])));
        let compact: String = stored.split_whitespace().collect::<Vec<_>>().join("");
        assert_eq!(serde_json::to_string(&analysis).unwrap(), compact);
    }

    #[test]
    fn search_reads_every_line_of_a_summary_that_says_something() {
        let text = SummaryText {
            executive_summary: "A refund.".into(),
            key_discussion_points: vec!["the invoice".into(), " ".into()],
            resolution_provided: String::new(),
            follow_up_required: true,
            next_steps: vec!["send the form".into()],
        };
        assert_eq!(text.searchable_text(), "A refund.\nthe invoice\nsend the form");
    }
}
