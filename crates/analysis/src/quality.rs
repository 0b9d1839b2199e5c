//! Scoring an engine against the scripted calls in `corpus/calls.json`: classification accuracy,
//! action item precision and recall, deadline resolution accuracy, sentiment agreement and the
//! time per call.

use std::time::Instant;

use chrono::{NaiveDate, TimeZone, Utc};
use serde::Deserialize;

use crate::classify::CategoryInfo;
use crate::engine::{AnalysisInput, Analyzer, Lang};
use crate::text::fold;

#[derive(Debug, Deserialize)]
struct Corpus {
    categories: Vec<CorpusCategory>,
    calls: Vec<CorpusCall>,
}

#[derive(Debug, Deserialize)]
struct CorpusCategory {
    id: String,
    parent: Option<String>,
    name: String,
    description: String,
}

#[derive(Debug, Deserialize)]
struct CorpusCall {
    id: String,
    language: String,
    category: String,
    sentiment: String,
    actions: Vec<ExpectedAction>,
    turns: Vec<(String, String)>,
}

#[derive(Debug, Deserialize)]
struct ExpectedAction {
    who: String,
    due: Option<NaiveDate>,
    word: String,
}

/// The figures for one engine.
#[derive(Debug, Default, Clone)]
pub struct Report {
    pub calls: usize,
    pub categories_right: usize,
    pub actions_expected: usize,
    pub actions_found: usize,
    pub actions_right: usize,
    pub deadlines_expected: usize,
    pub deadlines_right: usize,
    pub sentiment_right: usize,
    pub seconds: f64,
    /// Calls an LLM engine left to its rules fallback (its answer failed or was unusable).
    pub fallbacks: usize,
    /// What went wrong, a line each.
    pub mistakes: Vec<String>,
}

impl Report {
    fn ratio(a: usize, b: usize) -> f64 {
        if b == 0 { 1.0 } else { a as f64 / b as f64 }
    }
    pub fn classification_accuracy(&self) -> f64 {
        Self::ratio(self.categories_right, self.calls)
    }
    pub fn action_precision(&self) -> f64 {
        Self::ratio(self.actions_right, self.actions_found)
    }
    pub fn action_recall(&self) -> f64 {
        Self::ratio(self.actions_right, self.actions_expected)
    }
    pub fn deadline_accuracy(&self) -> f64 {
        Self::ratio(self.deadlines_right, self.deadlines_expected)
    }
    pub fn sentiment_agreement(&self) -> f64 {
        Self::ratio(self.sentiment_right, self.calls)
    }
    pub fn seconds_per_call(&self) -> f64 {
        self.seconds / self.calls.max(1) as f64
    }
}

/// Runs `engine` over the corpus (`corpus/calls.json`'s text).
///
/// # Errors
/// A corpus that does not parse.
pub async fn evaluate(engine: &dyn Analyzer, corpus: &str) -> Result<Report, String> {
    let corpus: Corpus = serde_json::from_str(corpus).map_err(|e| e.to_string())?;
    let categories: Vec<CategoryInfo> = corpus
        .categories
        .iter()
        .map(|c| CategoryInfo { id: c.id.clone(), parent: c.parent.clone(), name: c.name.clone(), description: Some(c.description.clone()) })
        .collect();
    let mut report = Report::default();
    for call in &corpus.calls {
        let input = AnalysisInput {
            turns: call.turns.clone(),
            language: if call.language == "pl" { Lang::Pl } else { Lang::En },
            call_date: Utc.with_ymd_and_hms(2026, 11, 18, 10, 0, 0).single().ok_or("date")?,
            categories: categories.clone(),
            template: None,
        };
        let started = Instant::now();
        let analysis = engine.analyze(&input).await.map_err(|e| e.to_string())?;
        report.seconds += started.elapsed().as_secs_f64();
        report.calls += 1;
        if analysis.model_used != engine.model_used() {
            report.fallbacks += 1;
            report.mistakes.push(format!("{}: answered by {} (fallback)", call.id, analysis.model_used));
        }
        let got = analysis.classification.as_ref().and_then(|c| c.primary.as_ref()).map(|p| p.category_id.clone());
        if got.as_deref() == Some(call.category.as_str()) {
            report.categories_right += 1;
        } else {
            report.mistakes.push(format!("{}: category {:?}, expected {}", call.id, got, call.category));
        }
        let level = analysis.sentiment.overall.level();
        if level == call.sentiment {
            report.sentiment_right += 1;
        } else {
            report.mistakes.push(format!("{}: sentiment {level}, expected {}", call.id, call.sentiment));
        }
        report.actions_expected += call.actions.len();
        report.actions_found += analysis.actions.len();
        let mut used = vec![false; analysis.actions.len()];
        for expected in &call.actions {
            if expected.due.is_some() {
                report.deadlines_expected += 1;
            }
            let found = analysis.actions.iter().enumerate().find(|(i, a)| {
                !used[*i] && a.responsible_party == expected.who && fold(&a.description).contains(&fold(&expected.word))
            });
            match found {
                Some((i, a)) => {
                    used[i] = true;
                    report.actions_right += 1;
                    if let Some(due) = expected.due {
                        if a.due_at.map(|d| d.date_naive()) == Some(due) {
                            report.deadlines_right += 1;
                        } else {
                            report.mistakes.push(format!("{}: \"{}\" due {:?}, expected {due}", call.id, a.description, a.due_at.map(|d| d.date_naive())));
                        }
                    }
                }
                None => report.mistakes.push(format!("{}: missed the {}'s \"{}\" item", call.id, expected.who, expected.word)),
            }
        }
        for (a, used) in analysis.actions.iter().zip(used) {
            if !used {
                report.mistakes.push(format!("{}: extra item \"{}\" ({})", call.id, a.description, a.responsible_party));
            }
        }
    }
    Ok(report)
}
