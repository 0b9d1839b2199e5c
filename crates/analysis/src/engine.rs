//! The analysis engines behind one interface. [`RulesEngine`] needs no model: lexicon sentiment,
//! commitment patterns, keyword classification, an extractive summary and plain-statement
//! template answers. It is what `analysis_engine = "rules"` runs, and what the LLM engines fall
//! back to when a model fails or answers something invalid.

use std::sync::Arc;

use async_trait::async_trait;
use callscope_domain::{AnswerType, AnswerValue, SentimentReading, StoredSummary, SummaryText, TemplateAnalysis, TemplateResult};
use chrono::{DateTime, Utc};

use crate::actions::{extract_actions, ActionDraft, SpokenTurn};
use crate::classify::{classify, CategoryInfo, Classification};
use crate::sentiment::{call_sentiment, CallSentiment, Lexicon};
use crate::summary::{summarise, title, Summary};
use crate::template::{answer, Answer, Question};

/// The call's language, which picks the sentiment lexicon: the domain's, as the job carries it.
pub use callscope_domain::Language as Lang;

/// The project's active analysis template.
#[derive(Debug, Clone)]
pub struct TemplateSpec {
    pub name: String,
    pub questions: Vec<Question>,
}

/// What an engine gets: the transcript (turns with speakers' names), the call's date for
/// deadlines, the project's categories and template.
#[derive(Debug, Clone)]
pub struct AnalysisInput {
    pub turns: Vec<(String, String)>,
    pub language: Lang,
    pub call_date: DateTime<Utc>,
    /// Where the call took place (the project's zone): deadlines are resolved in it.
    pub time_zone: chrono_tz::Tz,
    pub categories: Vec<CategoryInfo>,
    pub template: Option<TemplateSpec>,
}

/// What an engine found.
#[derive(Debug, Clone)]
pub struct CallAnalysis {
    pub title: Option<String>,
    pub classification: Option<Classification>,
    pub summary: Summary,
    pub sentiment: CallSentiment,
    pub actions: Vec<ActionDraft>,
    pub template: Option<(String, Vec<Answer>)>,
    /// Engine and model, e.g. `rules` or `openai:gpt-4o-mini`.
    pub model_used: String,
}

/// Why analysis failed.
#[derive(Debug, thiserror::Error)]
pub enum AnalysisError {
    /// A passing failure (an endpoint down): worth retrying.
    #[error("{0}")]
    Unavailable(String),
}

/// An analysis engine.
#[async_trait]
pub trait Analyzer: Send + Sync {
    /// Engine and model, for `modelUsed`.
    fn model_used(&self) -> String;

    /// Analyses one call.
    async fn analyze(&self, input: &AnalysisInput) -> Result<CallAnalysis, AnalysisError>;
}

/// The engine without a model.
#[derive(Debug, Clone)]
pub struct RulesEngine {
    english: Arc<Lexicon>,
    polish: Arc<Lexicon>,
}

impl RulesEngine {
    /// An engine over the two sentiment lexicons.
    pub fn new(english: Arc<Lexicon>, polish: Arc<Lexicon>) -> Self {
        Self { english, polish }
    }

    /// Loads `en_valence.txt` and `pl_valence.txt` from `dir` (the `sentiment-lexicons`
    /// artifact).
    ///
    /// # Errors
    /// A lexicon that cannot be read.
    pub fn load(dir: &std::path::Path) -> std::io::Result<Self> {
        let read =
            |name: &str| Lexicon::load(&dir.join(name)).map_err(|e| std::io::Error::new(e.kind(), format!("{}: {e}", dir.join(name).display())));
        Ok(Self::new(Arc::new(read("en_valence.txt")?), Arc::new(read("pl_valence.txt")?)))
    }

    /// A model engine's analysis, or, when the model failed or answered something unusable,
    /// this engine's (logged; `modelUsed` then says `rules`).
    pub fn unless_failed(&self, model: Result<CallAnalysis, String>, input: &AnalysisInput) -> CallAnalysis {
        model.unwrap_or_else(|error| {
            tracing::warn!(%error, "the model's analysis failed; using the rules engine");
            self.run(input)
        })
    }

    /// The lexicon's sentiment of the call: overall (tempered by the customer's closing: the
    /// lexicon scores "great, thanks" as positive), per turn, and the customer's arc.
    pub fn sentiment(&self, input: &AnalysisInput) -> CallSentiment {
        let pairs: Vec<(&str, &str)> = input.turns.iter().map(|t| (t.0.as_str(), t.1.as_str())).collect();
        let lexicon = match input.language {
            Lang::En => &self.english,
            Lang::Pl => &self.polish,
        };
        let mut sentiment = call_sentiment(lexicon, &pairs, input.language);
        crate::warmth::read_closing(&mut sentiment, &pairs, false);
        sentiment
    }

    /// The analysis, synchronously (it takes milliseconds).
    pub fn run(&self, input: &AnalysisInput) -> CallAnalysis {
        let texts: Vec<&str> = input.turns.iter().map(|t| t.1.as_str()).collect();
        let pairs: Vec<(&str, &str)> = input.turns.iter().map(|t| (t.0.as_str(), t.1.as_str())).collect();
        let spoken: Vec<SpokenTurn<'_>> = pairs.iter().map(|&(speaker, text)| SpokenTurn { speaker, text }).collect();
        let actions = extract_actions(&spoken, crate::actions::CallTime::new(input.call_date, input.time_zone));
        CallAnalysis {
            title: title(&pairs),
            classification: classify(&input.categories, &texts),
            summary: summarise(&pairs, &actions, input.language),
            sentiment: self.sentiment(input),
            template: input.template.as_ref().map(|t| (t.name.clone(), answer(&t.questions, &texts))),
            actions,
            model_used: self.model_used(),
        }
    }
}

#[async_trait]
impl Analyzer for RulesEngine {
    fn model_used(&self) -> String {
        "rules".into()
    }

    async fn analyze(&self, input: &AnalysisInput) -> Result<CallAnalysis, AnalysisError> {
        Ok(self.run(input))
    }
}

/// A confidence as the stored analysis shows it: two decimals (an `f32` widened to `f64` would
/// show 0.6000000238418579).
fn round2(x: f32) -> f64 {
    callscope_domain::two_decimals(f64::from(x))
}

impl CallAnalysis {
    /// The same analysis of a transcript too poor to act on
    /// ([`callscope_domain::TranscriptQuality`]): the summary opens by saying so, in the call's
    /// language, and every confidence is halved, so nothing reads as sound.
    #[must_use]
    pub fn doubted(mut self, language: Lang) -> Self {
        let caveat = match language {
            Lang::En => "The recording was hard to make out and its transcript is unreliable: check this analysis against the audio.",
            Lang::Pl => "Nagranie było trudne do rozpoznania, a jego transkrypcja jest niepewna: sprawdź tę analizę z nagraniem.",
        };
        let summary = &mut self.summary.executive_summary;
        *summary = if summary.is_empty() { caveat.to_owned() } else { format!("{caveat} {summary}") };
        self.sentiment.confidence /= 2.0;
        if let Some(c) = &mut self.classification {
            c.overall_confidence /= 2.0;
            for m in c.primary.iter_mut().chain(c.secondary.iter_mut()) {
                m.confidence /= 2.0;
            }
        }
        self
    }

    /// The same analysis with every non-answer ("null", "N/A", an empty quote: see
    /// [`crate::text::is_non_answer`]) taken out, whichever engine wrote it: optional texts become
    /// absent, required ones empty, list entries and action items without a description go.
    #[must_use]
    pub fn without_non_answers(mut self) -> Self {
        use crate::text::{given, is_non_answer};
        let text = |s: &mut String| {
            *s = given(s).unwrap_or_default().to_owned();
        };
        let list = |items: &mut Vec<String>| {
            items.retain(|s| !is_non_answer(s));
            items.iter_mut().for_each(|s| *s = s.trim().to_owned());
        };
        self.title = self.title.as_deref().and_then(given).map(str::to_owned);
        text(&mut self.summary.executive_summary);
        text(&mut self.summary.resolution_provided);
        list(&mut self.summary.key_discussion_points);
        list(&mut self.summary.next_steps);
        text(&mut self.sentiment.progression);
        text(&mut self.sentiment.evidence);
        self.actions.retain(|a| !is_non_answer(&a.description));
        for action in &mut self.actions {
            text(&mut action.description);
            text(&mut action.responsible_party);
            text(&mut action.evidence);
            action.deadline_mentioned = action.deadline_mentioned.as_deref().and_then(given).map(str::to_owned);
            if action.deadline_mentioned.is_none() {
                action.due_at = None;
            }
        }
        if let Some(c) = &mut self.classification {
            text(&mut c.reasoning);
            for m in c.primary.iter_mut().chain(c.secondary.iter_mut()) {
                text(&mut m.evidence);
            }
        }
        if let Some((_, answers)) = &mut self.template {
            for answer in answers {
                list(&mut answer.evidence);
                // Only free text: "None" may well be one of a choice's options.
                if answer.answer_type == AnswerType::Text && matches!(&answer.value, Some(AnswerValue::Text(text)) if is_non_answer(text)) {
                    answer.value = None;
                    answer.answered = false;
                }
            }
        }
        self
    }

    /// The same analysis within the bounds every stored analysis keeps, whichever engine wrote
    /// it: a model that writes on (or a transcript that steers it) cannot make a call's record
    /// grow without end. Lists keep their first entries and texts their first characters.
    #[must_use]
    pub fn bounded(mut self) -> Self {
        use bounds::*;
        let list = |items: &mut Vec<String>, most: usize, chars: usize| {
            items.truncate(most);
            items.iter_mut().for_each(|s| clip(s, chars));
        };
        if let Some(title) = &mut self.title {
            clip(title, TITLE_CHARS);
        }
        clip(&mut self.summary.executive_summary, SUMMARY_CHARS);
        clip(&mut self.summary.resolution_provided, RESOLUTION_CHARS);
        list(&mut self.summary.key_discussion_points, MAX_POINTS, POINT_CHARS);
        list(&mut self.summary.next_steps, MAX_POINTS, POINT_CHARS);
        clip(&mut self.sentiment.progression, PROGRESSION_CHARS);
        clip(&mut self.sentiment.evidence, QUOTE_CHARS);
        self.actions.truncate(MAX_ACTION_ITEMS);
        for action in &mut self.actions {
            clip(&mut action.description, DESCRIPTION_CHARS);
            clip(&mut action.responsible_party, PARTY_CHARS);
            clip(&mut action.evidence, QUOTE_CHARS);
            if let Some(deadline) = &mut action.deadline_mentioned {
                clip(deadline, DEADLINE_CHARS);
            }
        }
        if let Some(c) = &mut self.classification {
            clip(&mut c.reasoning, REASONING_CHARS);
            c.secondary.truncate(MAX_SECONDARY_CATEGORIES);
            for m in c.primary.iter_mut().chain(c.secondary.iter_mut()) {
                clip(&mut m.evidence, QUOTE_CHARS);
            }
        }
        if let Some((_, answers)) = &mut self.template {
            for answer in answers {
                list(&mut answer.evidence, MAX_ANSWER_QUOTES, QUOTE_CHARS);
                if let Some(AnswerValue::Text(text)) = &mut answer.value {
                    clip(text, ANSWER_CHARS);
                }
            }
        }
        self
    }

    /// The `summary` block as the call keeps it (its action items are records of their own).
    pub fn summary_record(&self) -> StoredSummary {
        let s = &self.summary;
        StoredSummary {
            summary: SummaryText {
                executive_summary: s.executive_summary.clone(),
                key_discussion_points: s.key_discussion_points.clone(),
                resolution_provided: s.resolution_provided.clone(),
                follow_up_required: s.follow_up_required,
                next_steps: s.next_steps.clone(),
            },
            sentiment: SentimentReading {
                overall_sentiment: self.sentiment.overall,
                sentiment_progression: self.sentiment.progression.clone(),
                confidence: round2(self.sentiment.confidence),
                evidence: self.sentiment.evidence.clone(),
                turn_scores: self.sentiment.turns.iter().map(|s| s.map(round2)).collect(),
            },
            sentiment_level: self.sentiment.overall.level(),
            model_used: self.model_used.clone(),
        }
    }

    /// The `classification`; `None` without categories.
    pub fn classification_record(&self) -> Option<callscope_domain::Classification> {
        let c = self.classification.as_ref()?;
        let one = |m: &crate::classify::CategoryMatch| callscope_domain::CategoryMatch {
            category_id: m.category_id,
            category_path: m.category_path.clone(),
            category_names: m.category_names.clone(),
            confidence: round2(m.confidence),
            evidence: m.evidence.clone(),
            depth: u32::try_from(m.depth).unwrap_or(u32::MAX),
        };
        Some(callscope_domain::Classification {
            primary: c.primary.as_ref().map(one),
            secondary: c.secondary.iter().map(one).collect(),
            overall_confidence: round2(c.overall_confidence),
            reasoning: c.reasoning.clone(),
            model_used: self.model_used.clone(),
        })
    }

    /// The `templateAnalysis`, made at `analyzed_at`; `None` without an active template.
    pub fn template_record(&self, analyzed_at: DateTime<Utc>) -> Option<TemplateAnalysis> {
        let (name, answers) = self.template.as_ref()?;
        Some(TemplateAnalysis {
            template_name: name.clone(),
            results: answers
                .iter()
                .map(|a| TemplateResult {
                    label: a.label.clone(),
                    value: a.value.clone(),
                    answer_type: a.answer_type,
                    confidence: a.confidence,
                    evidence: a.evidence.clone(),
                    answered: a.answered,
                })
                .collect(),
            model_used: self.model_used.clone(),
            analyzed_at,
        })
    }
}

#[cfg(test)]
mod tests {
    use callscope_domain::CategoryId;
    use chrono::TimeZone;

    use super::*;

    const TECHNICAL: CategoryId = CategoryId(uuid::Uuid::from_u128(0x0193a3c1_7f2e_7c61_9d3b_5f0f1b2c3d4e));
    const BILLING: CategoryId = CategoryId(uuid::Uuid::from_u128(0x0193a3c1_7f2e_7c61_9d3b_5f0f1b2c3d4f));

    #[tokio::test]
    async fn the_rules_engine_fills_every_part_of_the_analysis() {
        let lexicon = Lexicon::parse("broken\t-2.0\nangry\t-2.5\ngreat\t3.1\nhappy\t2.7\n");
        let engine = RulesEngine::new(Arc::new(lexicon), Arc::new(Lexicon::default()));
        let input = AnalysisInput {
            turns: vec![
                ("agent".into(), "Good morning, how can I help?".into()),
                ("customer".into(), "My router is broken again and I am angry about the internet outage.".into()),
                ("agent".into(), "I will send a technician tomorrow to replace the router.".into()),
                ("customer".into(), "Great, I am happy with that.".into()),
            ],
            language: Lang::En,
            call_date: Utc.with_ymd_and_hms(2026, 11, 18, 9, 0, 0).unwrap(),
            time_zone: chrono_tz::UTC,
            categories: vec![
                CategoryInfo { id: TECHNICAL, parent: None, name: "Technical support".into(), description: Some("router, internet outage".into()) },
                CategoryInfo { id: BILLING, parent: None, name: "Billing".into(), description: Some("invoice, payment".into()) },
            ],
            template: Some(TemplateSpec {
                name: "QA".into(),
                questions: vec![Question {
                    label: "Device".into(),
                    prompt: "Which device failed?".into(),
                    answer_type: AnswerType::SingleChoice,
                    options: vec!["router".into(), "phone".into()],
                }],
            }),
        };
        let a = engine.analyze(&input).await.unwrap();
        assert_eq!(a.model_used, "rules");
        assert_eq!(a.title.as_deref(), Some("My router is broken again and I am angry about the internet outage"));
        assert_eq!(a.classification.as_ref().unwrap().primary.as_ref().unwrap().category_id, TECHNICAL);
        assert_eq!(a.actions.len(), 1);
        assert_eq!(a.actions[0].deadline_mentioned.as_deref(), Some("tomorrow"));
        assert_eq!(a.sentiment.progression, "started negative, ended positive");
        let block = a.summary_record();
        assert_eq!(block.model_used, "rules");
        assert!(block.summary.follow_up_required);
        assert_eq!(block.sentiment_level, a.sentiment.overall.level());
        // Every turn's score is kept, in the turns' order, for the sentiment over the call.
        assert_eq!(block.sentiment.turn_scores.len(), input.turns.len());
        assert_eq!(block.sentiment.turn_scores, a.sentiment.turns.iter().map(|s| s.map(round2)).collect::<Vec<_>>());
        let scores = &block.sentiment.turn_scores;
        assert!(scores[1].is_some_and(|s| s < 0.0) && scores[3].is_some_and(|s| s > 0.0), "angry, then pleased: {scores:?}");
        let template = serde_json::to_value(a.template_record(input.call_date).unwrap()).unwrap();
        assert_eq!(template["results"][0]["value"], "router");
        assert_eq!(template["analyzedAt"], "2026-11-18T09:00:00.000Z");
        let classification = a.classification_record().unwrap();
        let primary = classification.primary.unwrap();
        assert_eq!((primary.category_id, primary.category_names), (TECHNICAL, vec!["Technical support".to_owned()]));

        // The same call from a transcript too poor to trust says so and claims less.
        let doubted = a.clone().doubted(Lang::Pl);
        assert!(doubted.summary.executive_summary.starts_with("Nagranie było trudne do rozpoznania"), "{}", doubted.summary.executive_summary);
        assert!(doubted.summary.executive_summary.ends_with(&a.summary.executive_summary));
        assert_eq!(doubted.sentiment.confidence, a.sentiment.confidence / 2.0);
        let confidence = |x: &CallAnalysis| x.classification.as_ref().unwrap().primary.as_ref().unwrap().confidence;
        assert_eq!(confidence(&doubted), confidence(&a) / 2.0);
    }
}

/// The most a stored analysis holds, whatever wrote it ([`CallAnalysis::bounded`]). Generous for
/// a four-hour call, and small enough that a record stays a record.
pub mod bounds {
    /// Characters of the title.
    pub const TITLE_CHARS: usize = 80;
    /// Characters of the executive summary.
    pub const SUMMARY_CHARS: usize = 2_000;
    /// Characters of the resolution.
    pub const RESOLUTION_CHARS: usize = 1_000;
    /// Key points, and next steps.
    pub const MAX_POINTS: usize = 10;
    /// Characters of one key point or next step.
    pub const POINT_CHARS: usize = 300;
    /// Characters of the sentiment progression.
    pub const PROGRESSION_CHARS: usize = 300;
    /// Characters of one quote given as evidence.
    pub const QUOTE_CHARS: usize = 500;
    /// Characters of the classification's reasoning.
    pub const REASONING_CHARS: usize = 1_000;
    /// Secondary categories.
    pub const MAX_SECONDARY_CATEGORIES: usize = 3;
    /// Action items of one call.
    pub const MAX_ACTION_ITEMS: usize = 50;
    /// Characters of an action item's description.
    pub const DESCRIPTION_CHARS: usize = 500;
    /// Characters of an action item's owner.
    pub const PARTY_CHARS: usize = 100;
    /// Characters of a deadline as said.
    pub const DEADLINE_CHARS: usize = 100;
    /// Quotes given as evidence for one template answer.
    pub const MAX_ANSWER_QUOTES: usize = 5;
    /// Characters of a free-text template answer.
    pub const ANSWER_CHARS: usize = 2_000;

    /// Cuts `text` to at most `most` characters, the last of them an ellipsis when it was cut.
    pub fn clip(text: &mut String, most: usize) {
        if let Some((at, _)) = text.char_indices().nth(most) {
            let keep = text[..at].char_indices().nth(most.saturating_sub(1)).map_or(at, |(i, _)| i);
            text.truncate(keep);
            text.push('…');
        }
    }

    #[cfg(test)]
    mod tests {
        use super::clip;

        #[test]
        fn clipping_keeps_whole_characters_and_marks_the_cut() {
            let mut short = "żółw".to_owned();
            clip(&mut short, 4);
            assert_eq!(short, "żółw", "at the limit: untouched");
            let mut long = "zażółć gęślą jaźń".to_owned();
            clip(&mut long, 6);
            assert_eq!(long, "zażół…");
            assert_eq!(long.chars().count(), 6);
        }
    }
}
