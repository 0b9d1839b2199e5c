//! The LLM engine over any OpenAI-compatible endpoint: the transcript, categories and template
//! go out (personal data masked unless switched off, by the client); a JSON object constrained by
//! a schema comes back. Every quote it gives as evidence must occur in the transcript (allowing
//! for small differences) or it is dropped and the confidence lowered; categories must be the
//! project's; template answers must have their type; deadlines are resolved here, not by the
//! model. Long calls are analysed in parts and the parts merged. When the endpoint fails or
//! answers something unusable, the rules engine's result is used, and `modelUsed` says so.

use std::time::{Duration, Instant};

use async_trait::async_trait;
use callscope_domain::{AnswerConfidence, AnswerType, AnswerValue};
use chrono::{DateTime, TimeZone, Utc};
use serde_json::{json, Value};

use crate::actions::{deadline_in, ActionDraft, CallTime, Priority};
use crate::classify::{by_id, chain, match_for, CategoryInfo, CategoryKeys, Classification};
use crate::engine::{AnalysisError, AnalysisInput, Analyzer, CallAnalysis, RulesEngine};
use crate::not_tasks::not_a_task;
use crate::openai::OpenAiClient;
use crate::sentiment::{CallSentiment, Overall};
use crate::summary::Summary;
use crate::template::{unanswered, Answer};
use crate::text::{fold, given, parties, transcript_block, TRANSCRIPT_IS_DATA};

/// The engine.
#[derive(Debug, Clone)]
pub struct LlmEngine {
    client: OpenAiClient,
    fallback: RulesEngine,
    /// Longest transcript sent in one request, in characters.
    context_chars: usize,
    /// The engine's name in `modelUsed`: `openai`, or `local` for the sidecar.
    kind: &'static str,
}

const SYSTEM: &str = "You analyse a recorded customer phone call for a contact centre. Answer only with the JSON object the schema describes. Keep it short: at most 10 key points, 10 next steps and 20 action items, quotes of one or two sentences. Quote evidence verbatim from the transcript. \
Summary: why the customer called, what was resolved, the amounts, dates and products in digits, and the next steps; whole sentences a supervisor can read, not fragments of the transcript. \
Category: one of the category ids given, or \"none\" when none fits, with the reason. \
Action items: a task to be done after the call by a party of the call, which that party committed to or was asked to do and accepted. Not an action item: something done during the call (\"let me check\", \"I'll read it back\"), a request for information given in the call (\"could you confirm your postcode\"), an offer or question nobody took up, a state or a feeling, something that happens automatically (\"you'll get a confirmation text\"), something already done. For each: the speaker's name as responsibleParty, the deadline words exactly as said (null if none) and that deadline as a date, YYYY-MM-DD, counted from the call's date (null if none). \
Answer template questions only from what the call says; otherwise answered false and value null. Write the summary in the call's language.";

/// The answer's schema: the category a closed choice among the project's keys (see
/// [`CategoryKeys`]), "none" when none fits.
fn schema(categories: &[CategoryInfo]) -> Value {
    let string = json!({"type": "string"});
    let strings = json!({"type": "array", "items": {"type": "string"}});
    let keys = CategoryKeys::new(categories);
    let mut primary = keys.all();
    let secondary = if primary.is_empty() { strings.clone() } else { json!({"type": "array", "items": {"enum": primary.clone()}}) };
    primary.push(NO_CATEGORY);
    json!({
        "type": "object",
        "additionalProperties": false,
        "required": ["title", "summary", "sentiment", "classification", "actionItems", "templateAnswers"],
        "properties": {
            "title": string,
            "summary": {"type": "object", "additionalProperties": false,
                "required": ["executiveSummary", "keyDiscussionPoints", "resolutionProvided", "followUpRequired", "nextSteps"],
                "properties": {"executiveSummary": string, "keyDiscussionPoints": strings, "resolutionProvided": string,
                    "followUpRequired": {"type": "boolean"}, "nextSteps": strings}},
            "sentiment": {"type": "object", "additionalProperties": false,
                "required": ["overallSentiment", "sentimentProgression", "confidence", "evidence"],
                "properties": {"overallSentiment": {"enum": ["very_positive", "positive", "neutral", "mixed", "negative", "very_negative"]},
                    "sentimentProgression": string, "confidence": {"type": "number"}, "evidence": string}},
            "classification": {"type": "object", "additionalProperties": false,
                "required": ["primaryCategoryId", "secondaryCategoryIds", "confidence", "evidence", "reasoning"],
                "properties": {"primaryCategoryId": {"enum": primary}, "secondaryCategoryIds": secondary,
                    "confidence": {"type": "number"}, "evidence": string, "reasoning": string}},
            "actionItems": {"type": "array", "items": {"type": "object", "additionalProperties": false,
                "required": ["description", "responsibleParty", "deadlineMentioned", "dueDate", "priority", "evidence"],
                "properties": {"description": string, "responsibleParty": string, "deadlineMentioned": {"type": ["string", "null"]},
                    "dueDate": {"type": ["string", "null"]}, "priority": {"enum": ["LOW", "MEDIUM", "HIGH"]}, "evidence": string}}},
            "templateAnswers": {"type": "array", "items": {"type": "object", "additionalProperties": false,
                "required": ["label", "value", "answered", "confidence", "evidence"],
                "properties": {"label": string, "value": {}, "answered": {"type": "boolean"},
                    "confidence": {"enum": ["HIGH", "MEDIUM", "LOW"]}, "evidence": strings}}},
        },
    })
}

/// The primary category the model names when none of the project's fits.
const NO_CATEGORY: &str = "none";

/// Longest quote looked up, in words: evidence is a sentence or two, and a longer "quote" is
/// looked up by its first words (the fuzzy look-up's cost grows with the quote's length).
const QUOTE_WORDS: usize = 60;
/// Time the quote checks of one answer may take; past it, the quotes left count as not found,
/// so that no answer (however many quotes it gives) holds the analysis up.
const GROUNDING_BUDGET: Duration = Duration::from_secs(2);

/// A transcript prepared for looking quotes up in it: folded and split into words once.
pub struct Grounding {
    words: Vec<String>,
    deadline: Option<Instant>,
}

/// Folded words: case, diacritics and punctuation do not count.
fn folded_words(s: &str) -> Vec<String> {
    fold(s).split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).map(str::to_owned).collect()
}

impl Grounding {
    /// `transcript`, with no time limit on look-ups.
    pub fn new(transcript: &str) -> Self {
        Self { words: folded_words(transcript), deadline: None }
    }

    /// `transcript`, whose look-ups answer "not found" once `deadline` has passed.
    pub fn until(transcript: &str, deadline: Instant) -> Self {
        Self { words: folded_words(transcript), deadline: Some(deadline) }
    }

    /// Whether `quote` occurs here: verbatim after folding case, diacritics and punctuation, or
    /// with at least 80 % of its words in order within a window of the same length.
    pub fn holds(&self, quote: &str) -> bool {
        let mut q = folded_words(quote);
        q.truncate(QUOTE_WORDS);
        let t = &self.words;
        if q.is_empty() {
            return false;
        }
        if t.windows(q.len()).any(|w| w == q.as_slice()) {
            return true;
        }
        let need = (q.len() * 4).div_ceil(5);
        let span = q.len() + q.len() / 4 + 1;
        for start in 0..t.len() {
            if start % 256 == 0 && self.deadline.is_some_and(|d| Instant::now() > d) {
                return false;
            }
            let window = &t[start..(start + span).min(t.len())];
            let mut at = 0;
            let mut hits = 0;
            for w in &q {
                if let Some(p) = window[at..].iter().position(|x| x == w) {
                    hits += 1;
                    at += p + 1;
                }
            }
            if hits >= need {
                return true;
            }
        }
        false
    }
}

/// Whether `quote` occurs in `transcript` (see [`Grounding::holds`]).
pub fn grounded(quote: &str, transcript: &str) -> bool {
    Grounding::new(transcript).holds(quote)
}

/// The call's own spelling of a speaker the model names ("Agent" → "agent"), else the name as given.
/// An item's deadline from the words of its own sentence. The model's phrase stands when the
/// item's evidence says it; a phrase the sentence does not hold (the model took "10" from "$10"
/// elsewhere in the call) gives way to the deadline the sentence does say, if any. No phrase from
/// the model is no deadline. The day is always resolved here, never taken from the model.
fn item_deadline(said: Option<&str>, evidence: &str, call: impl Into<CallTime>) -> (Option<String>, Option<DateTime<Utc>>) {
    let call = call.into();
    let Some(said) = said else { return (None, None) };
    let in_sentence = fold(evidence).contains(&fold(said.trim()));
    match deadline_in(evidence, call) {
        Some((phrase, due)) if !in_sentence => (Some(phrase), Some(due)),
        _ => (Some(said.to_owned()), deadline_in(said, call).map(|(_, due)| due)),
    }
}

/// A date the model gave (YYYY-MM-DD) as a due time: the end of that day where the call took
/// place; `None` for anything else, or a day before the call or more than three years after it.
fn model_due(date: &str, call: CallTime) -> Option<DateTime<Utc>> {
    let day = chrono::NaiveDate::parse_from_str(date.trim(), "%Y-%m-%d").ok()?;
    let today = call.at.with_timezone(&call.zone).date_naive();
    if day < today || day > today + chrono::Days::new(3 * 366) {
        return None;
    }
    let end = day.and_hms_opt(23, 59, 59)?;
    call.zone.from_local_datetime(&end).latest().map(|t| t.with_timezone(&Utc))
}

/// The party of the call an item's owner names. A model may name someone who is not on the call
/// ("the technician", "billing") or a pronoun: "I"/"me" and unknown names become the speaker
/// who said the item's words, "you" the other party of a two-party call; so every owner is a
/// party of the call. A non-answer ("N/A") is no owner.
fn speaker_named(name: &str, said_in: Option<usize>, turns: &[(String, String)]) -> String {
    let parties = parties(turns.iter().map(|t| t.0.as_str()));
    let wanted = fold(name.trim());
    if given(name).is_none() {
        // No owner said is no owner (stored as none), not a guess.
        return String::new();
    }
    if let Some(party) = parties.iter().find(|p| fold(p) == wanted) {
        return (*party).to_owned();
    }
    let sayer = said_in.and_then(|i| turns.get(i)).map(|t| t.0.as_str());
    let addressed = matches!(wanted.as_str(), "you" | "ty" | "pan" | "pani" | "panstwo");
    let other = sayer.and_then(|me| (parties.len() == 2).then(|| parties.iter().copied().find(|p| *p != me)).flatten());
    match (addressed, other, sayer) {
        (true, Some(other), _) => other.to_owned(),
        (_, _, Some(sayer)) => sayer.to_owned(),
        _ => parties.first().map_or_else(|| name.to_owned(), |p| (*p).to_owned()),
    }
}

/// A description copied with its transcript label ("klient: …") loses the label.
fn strip_speaker(description: &str, turns: &[(String, String)]) -> String {
    for (speaker, _) in turns {
        if let Some((head, rest)) = description.split_once(':') {
            if fold(head.trim()) == fold(speaker) && !rest.trim().is_empty() {
                return rest.trim().to_owned();
            }
        }
    }
    description.to_owned()
}

fn transcript_text(turns: &[(String, String)]) -> String {
    turns.iter().map(|(who, text)| format!("{who}: {text}")).collect::<Vec<_>>().join("\n")
}

fn request(input: &AnalysisInput, turns: &[(String, String)]) -> String {
    let by_id = by_id(&input.categories);
    let keys = CategoryKeys::new(&input.categories);
    let path = |c: &CategoryInfo| chain(&by_id, c).iter().map(|n| n.name.as_str()).collect::<Vec<_>>().join(" > ");
    let local = input.call_date.with_timezone(&input.time_zone);
    // Dates are counted from the call's own day, where it took place.
    let mut out = format!("The call took place on {} ({}).\n", local.format("%A, %Y-%m-%d, %H:%M"), input.time_zone.name());
    if input.categories.is_empty() {
        out.push_str("Categories: none (primaryCategoryId null).\n");
    } else {
        out.push_str("Categories (id: path — description):\n");
        for c in &input.categories {
            out.push_str(&format!("- {}: {} — {}\n", keys.key(c.id), path(c), c.description.as_deref().unwrap_or("")));
        }
    }
    match &input.template {
        Some(t) => {
            out.push_str(&format!("Template \"{}\" questions (label [type; options]: question):\n", t.name));
            for q in &t.questions {
                out.push_str(&format!("- {} [{}; {}]: {}\n", q.label, q.answer_type, q.options.join(", "), q.prompt));
            }
        }
        None => out.push_str("Template: none (templateAnswers empty).\n"),
    }
    out.push_str(&transcript_block(turns));
    out
}

/// Splits the turns into parts of at most `budget` characters (a turn longer than that is a
/// part of its own).
fn parts(turns: &[(String, String)], budget: usize) -> Vec<Vec<(String, String)>> {
    let mut out: Vec<Vec<(String, String)>> = vec![Vec::new()];
    let mut size = 0;
    for t in turns {
        let len = t.0.len() + t.1.len() + 3;
        if size + len > budget && !out.last().is_some_and(Vec::is_empty) {
            out.push(Vec::new());
            size = 0;
        }
        out.last_mut().expect("one part at least").push(t.clone());
        size += len;
    }
    out
}

/// Checks a template answer against its question's type.
fn typed(value: &Value, answer_type: AnswerType, options: &[String]) -> Option<AnswerValue> {
    let option = |s: &str| options.iter().find(|o| o.eq_ignore_ascii_case(s.trim())).cloned();
    match (answer_type, value) {
        (AnswerType::Text, Value::String(s)) => given(s).map(|s| AnswerValue::Text(s.to_owned())),
        (AnswerType::Number, Value::Number(n)) => Some(AnswerValue::Number(n.clone())),
        (AnswerType::Number, Value::String(s)) => {
            s.trim().replace(',', ".").parse::<f64>().ok().and_then(serde_json::Number::from_f64).map(AnswerValue::Number)
        }
        (AnswerType::Boolean, Value::Bool(b)) => Some(AnswerValue::Boolean(*b)),
        (AnswerType::Date, Value::String(s)) => {
            chrono::NaiveDate::parse_from_str(s.trim(), "%Y-%m-%d").ok().map(|d| AnswerValue::Text(d.to_string()))
        }
        (AnswerType::SingleChoice, Value::String(s)) => option(s).map(AnswerValue::Text),
        (AnswerType::MultiChoice, Value::Array(items)) => {
            let chosen: Option<Vec<String>> = items.iter().map(|i| i.as_str().and_then(option)).collect();
            chosen.filter(|c| !c.is_empty()).map(AnswerValue::Options)
        }
        _ => None,
    }
}

/// One part's answer, checked.
struct PartResult {
    analysis: CallAnalysis,
    dropped_quotes: usize,
}

impl LlmEngine {
    /// An engine over `client`, falling back to `fallback`; parts of at most `context_chars`.
    pub fn new(client: OpenAiClient, fallback: RulesEngine, context_chars: usize) -> Self {
        Self { client, fallback, context_chars: context_chars.max(1000), kind: "openai" }
    }

    /// The same engine reported as `kind` in `modelUsed` (`local` for the embedded model).
    #[must_use]
    pub fn named(mut self, kind: &'static str) -> Self {
        self.kind = kind;
        self
    }

    fn check(&self, input: &AnalysisInput, answer: &Value, transcript: &str) -> Result<PartResult, String> {
        // Every text the model gives: trimmed, and empty where it wrote a non-answer ("null").
        let s = |v: &Value| v.as_str().and_then(given).unwrap_or("").to_owned();
        let deadline = Instant::now() + GROUNDING_BUDGET;
        let whole = Grounding::until(transcript, deadline);
        let turns: Vec<Grounding> = input.turns.iter().map(|t| Grounding::until(&t.1, deadline)).collect();
        let mut dropped = 0;
        let mut keep = |quote: &str| {
            let ok = !quote.trim().is_empty() && whole.holds(quote);
            if !ok && !quote.trim().is_empty() {
                dropped += 1;
            }
            ok
        };
        let sentiment = &answer["sentiment"];
        let overall = sentiment["overallSentiment"].as_str().and_then(|s| s.parse::<Overall>().ok()).ok_or("no valid overallSentiment")?;
        let evidence = s(&sentiment["evidence"]);
        let evidence_ok = keep(&evidence);
        let mut confidence = sentiment["confidence"].as_f64().unwrap_or(0.5).clamp(0.0, 1.0) as f32;
        if !evidence_ok {
            confidence *= 0.7;
        }
        // The model's own progression is not kept: it is read from the turns, through the
        // model's overall level (`try_analyze`).
        let sentiment = CallSentiment::judged(overall, confidence, if evidence_ok { evidence } else { String::new() }, input.language);
        let summary = &answer["summary"];
        let strings =
            |v: &Value| v.as_array().map(|a| a.iter().filter_map(|x| x.as_str().and_then(given).map(str::to_owned)).collect()).unwrap_or_default();
        let mut actions = Vec::new();
        for item in answer["actionItems"].as_array().into_iter().flatten() {
            let description = s(&item["description"]);
            let evidence = s(&item["evidence"]);
            if description.is_empty() || !keep(&evidence) {
                continue;
            }
            let said_in = turns.iter().position(|t| t.holds(&evidence));
            // The same definition of a task as the rules': what the filters reject, the model's
            // word does not bring back.
            let answer = said_in.and_then(|i| input.turns.get(i + 1).filter(|next| next.0 != input.turns[i].0)).map(|next| next.1.as_str());
            if let Some(why) = not_a_task(&evidence, answer) {
                tracing::debug!(?why, evidence, "the model's item is not a task");
                continue;
            }
            let call = CallTime::new(input.call_date, input.time_zone);
            let (deadline, mut due_at) = item_deadline(item["deadlineMentioned"].as_str().and_then(given), &evidence, call);
            // The model's date stands only where our tagger cannot read the words; where both
            // read them, ours is kept (and a disagreement logged).
            let model_date = item["dueDate"].as_str().and_then(|d| model_due(d, call));
            match (due_at, model_date) {
                (None, Some(date)) if deadline.is_some() => due_at = Some(date),
                (Some(ours), Some(theirs)) if ours != theirs => tracing::debug!(%ours, %theirs, "the model's date differs from the tagger's"),
                _ => {}
            }
            let priority = match item["priority"].as_str() {
                Some("HIGH") => Priority::High,
                Some("MEDIUM") => Priority::Medium,
                _ => Priority::Low,
            };
            let turn = said_in.unwrap_or(0);
            let responsible_party = speaker_named(&s(&item["responsibleParty"]), said_in, &input.turns);
            let description = strip_speaker(&description, &input.turns);
            actions.push(ActionDraft { description, responsible_party, deadline_mentioned: deadline, due_at, priority, evidence, turn });
        }
        let classification = if input.categories.is_empty() {
            None
        } else {
            let c = &answer["classification"];
            let keys = CategoryKeys::new(&input.categories);
            let evidence = s(&c["evidence"]);
            let evidence_ok = keep(&evidence);
            let mut confidence = c["confidence"].as_f64().unwrap_or(0.5).clamp(0.0, 1.0) as f32;
            if !evidence_ok {
                confidence *= 0.7;
            }
            let matched = |key: &str, confidence: f32, evidence: &str| {
                let mut found = match_for(&input.categories, keys.id(key)?, confidence)?;
                found.evidence = evidence.to_owned();
                Some(found)
            };
            let shown = if evidence_ok { evidence.as_str() } else { "" };
            let primary = c["primaryCategoryId"].as_str().and_then(|id| matched(id, confidence, shown));
            let secondary = c["secondaryCategoryIds"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|v| v.as_str())
                .filter(|key| primary.as_ref().is_none_or(|p| keys.id(key).is_none_or(|id| !p.category_path.contains(&id))))
                .filter_map(|id| matched(id, confidence * 0.6, ""))
                .take(3)
                .collect();
            Some(Classification {
                overall_confidence: primary.as_ref().map_or(0.0, |p| p.confidence),
                primary,
                secondary,
                reasoning: s(&c["reasoning"]),
            })
        };
        let template = input.template.as_ref().map(|t| {
            let answers = t
                .questions
                .iter()
                .map(|q| {
                    let given = answer["templateAnswers"].as_array().into_iter().flatten().find(|a| a["label"].as_str() == Some(q.label.as_str()));
                    let unanswered = unanswered(q);
                    let Some(a) = given.filter(|a| a["answered"].as_bool() == Some(true)) else { return unanswered };
                    let Some(value) = typed(&a["value"], q.answer_type, &q.options) else { return unanswered };
                    let quotes: Vec<String> = strings(&a["evidence"]);
                    let total = quotes.len();
                    let evidence: Vec<String> = quotes.into_iter().filter(|q| keep(q)).collect();
                    let confidence = match (a["confidence"].as_str(), evidence.len() < total) {
                        (Some("HIGH"), false) => AnswerConfidence::High,
                        (Some("HIGH"), true) | (Some("MEDIUM"), false) => AnswerConfidence::Medium,
                        _ => AnswerConfidence::Low,
                    };
                    Answer { label: q.label.clone(), value: Some(value), answer_type: q.answer_type, confidence, evidence, answered: true }
                })
                .collect();
            (t.name.clone(), answers)
        });
        let title: String = s(&answer["title"]).chars().take(79).collect();
        Ok(PartResult {
            analysis: CallAnalysis {
                title: (!title.is_empty()).then_some(title),
                classification,
                summary: Summary {
                    executive_summary: s(&summary["executiveSummary"]),
                    key_discussion_points: strings(&summary["keyDiscussionPoints"]),
                    resolution_provided: s(&summary["resolutionProvided"]),
                    follow_up_required: summary["followUpRequired"].as_bool().unwrap_or(!actions.is_empty()),
                    next_steps: strings(&summary["nextSteps"]),
                },
                sentiment,
                actions,
                template,
                model_used: format!("{}:{}", self.kind, self.client.model()),
            },
            dropped_quotes: dropped,
        })
    }

    async fn try_analyze(&self, input: &AnalysisInput) -> Result<CallAnalysis, String> {
        let mut results = Vec::new();
        for part in parts(&input.turns, self.context_chars) {
            let system = format!("{SYSTEM} {TRANSCRIPT_IS_DATA}");
            let answer = self
                .client
                .chat_json(&system, &request(input, &part), "call_analysis", &schema(&input.categories))
                .await
                .map_err(|e| e.to_string())?;
            let transcript = transcript_text(&part);
            // The checks look every quote up in the transcript: work for a blocking thread, not
            // for the runtime that serves requests.
            let (engine, owned_input) = (self.clone(), input.clone());
            let checked = tokio::task::spawn_blocking(move || engine.check(&owned_input, &answer, &transcript))
                .await
                .map_err(|e| format!("the answer's check stopped: {e}"))??;
            if checked.dropped_quotes > 0 {
                tracing::info!(dropped = checked.dropped_quotes, "quotes not found in the transcript were dropped");
            }
            results.push(checked.analysis);
        }
        let mut merged = merge(results);
        merged.sentiment = merged.sentiment.with_turns_of(self.fallback.sentiment(input));
        Ok(merged)
    }
}

/// Merges the analyses of consecutive parts of one call.
fn merge(mut parts: Vec<CallAnalysis>) -> CallAnalysis {
    if parts.len() == 1 {
        return parts.remove(0);
    }
    let first = parts[0].clone();
    let last = parts[parts.len() - 1].clone();
    let rank = |o: Overall| match o {
        Overall::VeryNegative => -2.0,
        Overall::Negative => -1.0,
        Overall::Neutral | Overall::Mixed => 0.0,
        Overall::Positive => 1.0,
        Overall::VeryPositive => 2.0,
    };
    let mean: f32 = parts.iter().map(|p| rank(p.sentiment.overall)).sum::<f32>() / parts.len() as f32;
    let spread = parts.iter().any(|p| rank(p.sentiment.overall) < 0.0) && parts.iter().any(|p| rank(p.sentiment.overall) > 0.0);
    let overall = match mean {
        m if m >= 1.5 => Overall::VeryPositive,
        m if m >= 0.5 => Overall::Positive,
        m if m <= -1.5 => Overall::VeryNegative,
        m if m <= -0.5 => Overall::Negative,
        _ if spread => Overall::Mixed,
        _ => Overall::Neutral,
    };
    let best_classification =
        parts.iter().filter_map(|p| p.classification.clone()).max_by(|a, b| a.overall_confidence.total_cmp(&b.overall_confidence));
    let mut actions: Vec<ActionDraft> = Vec::new();
    for a in parts.iter().flat_map(|p| p.actions.iter()) {
        if !actions.iter().any(|x| fold(&x.description) == fold(&a.description)) {
            actions.push(a.clone());
        }
    }
    let template = first.template.as_ref().map(|(name, answers)| {
        let merged = answers
            .iter()
            .enumerate()
            .map(|(i, a)| {
                parts.iter().filter_map(|p| p.template.as_ref().and_then(|t| t.1.get(i))).find(|x| x.answered).cloned().unwrap_or_else(|| a.clone())
            })
            .collect();
        (name.clone(), merged)
    });
    CallAnalysis {
        title: first.title.clone(),
        classification: best_classification,
        summary: Summary {
            executive_summary: parts.iter().map(|p| p.summary.executive_summary.as_str()).filter(|s| !s.is_empty()).collect::<Vec<_>>().join(" "),
            key_discussion_points: parts.iter().flat_map(|p| p.summary.key_discussion_points.clone()).take(8).collect(),
            resolution_provided: last.summary.resolution_provided.clone(),
            follow_up_required: parts.iter().any(|p| p.summary.follow_up_required) || !actions.is_empty(),
            next_steps: parts.iter().flat_map(|p| p.summary.next_steps.clone()).collect(),
        },
        sentiment: CallSentiment {
            score: mean / 2.0,
            // The parts were judged one by one: the first and the last say where it went.
            arc: Some((first.sentiment.overall.level(), last.sentiment.overall.level())),
            ..CallSentiment::judged(
                overall,
                parts.iter().map(|p| p.sentiment.confidence).sum::<f32>() / parts.len() as f32,
                parts.iter().map(|p| p.sentiment.evidence.clone()).find(|e| !e.is_empty()).unwrap_or_default(),
                first.sentiment.language,
            )
        },
        actions,
        template,
        model_used: first.model_used.clone(),
    }
}

#[async_trait]
impl Analyzer for LlmEngine {
    fn model_used(&self) -> String {
        format!("{}:{}", self.kind, self.client.model())
    }

    async fn analyze(&self, input: &AnalysisInput) -> Result<CallAnalysis, AnalysisError> {
        Ok(self.fallback.unless_failed(self.try_analyze(input).await, input))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn owners_are_parties_of_the_call_in_its_spelling_and_copied_labels_are_dropped() {
        let turns = vec![("konsultant".to_owned(), "Wyślę fakturę jutro.".to_owned()), ("Klient".to_owned(), "Dobrze.".to_owned())];
        assert_eq!(speaker_named("Konsultant", Some(1), &turns), "konsultant");
        assert_eq!(speaker_named("klient", Some(0), &turns), "Klient");
        // Every owner is a party of the call: someone else named is whoever said the words,
        // "you" the other party.
        assert_eq!(speaker_named("the bank", Some(0), &turns), "konsultant");
        assert_eq!(speaker_named("I", Some(1), &turns), "Klient");
        assert_eq!(speaker_named("Pan", Some(0), &turns), "Klient");
        assert_eq!(speaker_named("you", Some(1), &turns), "konsultant");
        assert_eq!(speaker_named("the technician", None, &turns), "konsultant");
        assert_eq!(strip_speaker("konsultant: Wyślę fakturę", &turns), "Wyślę fakturę");
        assert_eq!(strip_speaker("Note: send the invoice", &turns), "Note: send the invoice");
    }

    #[test]
    fn an_items_deadline_comes_from_its_own_sentence() {
        use chrono::TimeZone;
        let call = Utc.with_ymd_and_hms(2026, 10, 27, 9, 0, 0).unwrap();
        // The model took "10" from "$10" elsewhere in the call: the sentence says "today".
        let (said, due) = item_deadline(Some("10"), "I'll send you a confirmation email today.", call);
        assert_eq!((said.as_deref(), due.map(|d| d.to_rfc3339())), (Some("today"), Some("2026-10-27T23:59:59+00:00".into())));
        // The model's words, when the sentence has them, stand and are resolved here.
        let (said, due) = item_deadline(Some("by November 20th"), "Sign it and send it back by November 20th.", call);
        assert_eq!((said.as_deref(), due.map(|d| d.to_rfc3339())), (Some("by November 20th"), Some("2026-11-20T23:59:59+00:00".into())));
        // A sentence with no deadline of its own keeps what the model said.
        let (said, due) = item_deadline(Some("within 14 days"), "We will process the refund.", call);
        assert_eq!((said.as_deref(), due.map(|d| d.to_rfc3339())), (Some("within 14 days"), Some("2026-11-10T23:59:59+00:00".into())));
        assert_eq!(item_deadline(None, "I'll call you back tomorrow.", call), (None, None), "no deadline from the model is none");
    }

    #[test]
    fn quotes_are_found_despite_case_punctuation_and_small_differences() {
        let t = "customer: My router is broken, and the internet keeps dropping!\\nagent: I will send a technician tomorrow.";
        assert!(grounded("my router is broken and the internet keeps dropping", t));
        assert!(grounded("I'll send a technician tomorrow", t), "one word differs");
        assert!(!grounded("The customer asked for a refund of 200 dollars", t));
        assert!(!grounded("", t));
    }

    #[test]
    fn look_ups_are_bounded_in_length_and_time() {
        let transcript = "alpha beta gamma delta ".repeat(5_000);
        // A "quote" of thousands of words is looked up by its first sixty.
        let long_quote = format!("{} {}", "alpha beta gamma delta ".repeat(15), "omega ".repeat(5_000));
        assert!(Grounding::new(&transcript).holds(&long_quote));
        // Past its deadline, a look-up that needs the fuzzy search answers "not found" at once.
        let spent = Grounding::until(&transcript, Instant::now() - Duration::from_secs(1));
        let started = Instant::now();
        assert!(!spent.holds("alpha beta epsilon gamma delta alpha beta"));
        assert!(started.elapsed() < Duration::from_millis(200), "{:?}", started.elapsed());
        assert!(spent.holds("gamma delta alpha"), "a verbatim quote is still found");
    }

    #[test]
    fn answers_are_typed_or_refused() {
        let options = vec!["Fibre".to_owned(), "Mobile".to_owned()];
        let json_of = |v: Option<AnswerValue>| v.map(|v| serde_json::to_value(v).unwrap());
        assert_eq!(json_of(typed(&json!("fibre"), AnswerType::SingleChoice, &options)), Some(json!("Fibre")));
        assert_eq!(typed(&json!("Cable"), AnswerType::SingleChoice, &options), None);
        assert_eq!(json_of(typed(&json!(["Mobile", "Fibre"]), AnswerType::MultiChoice, &options)), Some(json!(["Mobile", "Fibre"])));
        assert_eq!(json_of(typed(&json!("12,5"), AnswerType::Number, &[])), Some(json!(12.5)));
        assert_eq!(json_of(typed(&json!(7), AnswerType::Number, &[])), Some(json!(7)), "an integer stays one");
        assert_eq!(typed(&json!("yes"), AnswerType::Boolean, &[]), None);
        assert_eq!(json_of(typed(&json!("2026-12-15"), AnswerType::Date, &[])), Some(json!("2026-12-15")));
        assert_eq!(typed(&json!("15 grudnia"), AnswerType::Date, &[]), None);
        assert_eq!(typed(&json!("  "), AnswerType::Text, &[]), None);
    }

    #[test]
    fn long_calls_are_split_at_turns() {
        let turns: Vec<(String, String)> = (0..10).map(|i| ("a".to_owned(), "x".repeat(300 + i))).collect();
        let split = parts(&turns, 1000);
        assert!(split.len() >= 4 && split.iter().all(|p| !p.is_empty()));
        assert_eq!(split.iter().map(Vec::len).sum::<usize>(), 10);
    }
}
