//! Scoring an engine against scripted calls: classification accuracy, action item precision and
//! recall, deadline resolution accuracy, sentiment agreement, titles, the key facts of the
//! summary and the time per call.
//!
//! Two corpora: `corpus/calls.json`, the project's own 14 calls (the rules were written looking
//! at them), and `corpus/heldout.json`, 40 calls written by someone who had not seen the code,
//! each marked `tune` or `heldout` before any code was run on them. The mistakes on `heldout`
//! calls are never shown, only counted: that half measures, it is not worked on.

use std::time::Instant;

use chrono::{NaiveDate, TimeZone, Utc};
use serde::Deserialize;

use crate::classify::CategoryInfo;
use crate::engine::{AnalysisInput, Analyzer, Lang};
use crate::text::fold;

#[derive(Debug, Deserialize)]
struct Corpus {
    /// The day every call took place; 2026-11-18 when not given.
    call_date: Option<NaiveDate>,
    categories: Vec<CorpusCategory>,
    calls: Vec<CorpusCall>,
}

/// The split of the project's own calls, which carry none.
fn own() -> String {
    OWN.into()
}

/// The split of calls the code was written looking at.
pub const OWN: &str = "own";
/// The split changes may be tuned on.
pub const TUNE: &str = "tune";
/// The split no change is tuned on: its mistakes are never shown.
pub const HELDOUT: &str = "heldout";

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
    #[serde(default = "own")]
    split: String,
    language: String,
    category: String,
    sentiment: String,
    /// Words of which a title naming what the call was about has one.
    #[serde(default)]
    title_words: Vec<String>,
    /// Key facts a summary must state, each as keywords that must all appear in it.
    #[serde(default)]
    facts: Vec<String>,
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
    pub titles_expected: usize,
    pub titles_right: usize,
    pub facts_expected: usize,
    pub facts_right: usize,
    pub seconds: f64,
    /// Calls an LLM engine left to its rules fallback (its answer failed or was unusable).
    pub fallbacks: usize,
    /// What went wrong, a line each (never for held-out calls).
    pub mistakes: Vec<String>,
    /// How many mistakes were made on held-out calls, which are not shown.
    pub hidden_mistakes: usize,
}

/// Which calls a report covers.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Part {
    /// `en` or `pl`.
    pub language: String,
    /// [`OWN`], [`TUNE`] or [`HELDOUT`].
    pub split: String,
}

impl Report {
    fn ratio(a: usize, b: usize) -> f64 {
        if b == 0 {
            1.0
        } else {
            a as f64 / b as f64
        }
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
    pub fn action_f1(&self) -> f64 {
        let (p, r) = (self.action_precision(), self.action_recall());
        if p + r == 0.0 {
            0.0
        } else {
            2.0 * p * r / (p + r)
        }
    }
    /// Share of calls with a title that names what they were about, among those annotated.
    pub fn title_accuracy(&self) -> f64 {
        Self::ratio(self.titles_right, self.titles_expected)
    }
    /// Share of the annotated key facts the summary states.
    pub fn facts_recall(&self) -> f64 {
        Self::ratio(self.facts_right, self.facts_expected)
    }

    fn mistake(&mut self, split: &str, line: String) {
        if split == HELDOUT {
            self.hidden_mistakes += 1;
        } else {
            self.mistakes.push(line);
        }
    }

    fn add(&mut self, other: &Report) {
        self.calls += other.calls;
        self.categories_right += other.categories_right;
        self.actions_expected += other.actions_expected;
        self.actions_found += other.actions_found;
        self.actions_right += other.actions_right;
        self.deadlines_expected += other.deadlines_expected;
        self.deadlines_right += other.deadlines_right;
        self.sentiment_right += other.sentiment_right;
        self.titles_expected += other.titles_expected;
        self.titles_right += other.titles_right;
        self.facts_expected += other.facts_expected;
        self.facts_right += other.facts_right;
        self.seconds += other.seconds;
        self.fallbacks += other.fallbacks;
        self.mistakes.extend(other.mistakes.iter().cloned());
        self.hidden_mistakes += other.hidden_mistakes;
    }
}

/// Runs `engine` over a corpus's text, all calls in one report.
///
/// # Errors
/// A corpus that does not parse, or an engine that fails.
pub async fn evaluate(engine: &dyn Analyzer, corpus: &str) -> Result<Report, String> {
    let mut all = Report::default();
    for (_, report) in evaluate_parts(engine, corpus).await? {
        all.add(&report);
    }
    Ok(all)
}

/// Runs `engine` over a corpus's text, a report per language and split.
///
/// # Errors
/// A corpus that does not parse, or an engine that fails.
pub async fn evaluate_parts(engine: &dyn Analyzer, corpus: &str) -> Result<Vec<(Part, Report)>, String> {
    evaluate_parts_where(engine, corpus, |_, _| true).await
}

/// [`evaluate_parts`] over the calls `keep` takes, given each call's part and its place among
/// the calls of that part so far (0-based).
///
/// # Errors
/// A corpus that does not parse, or an engine that fails.
pub async fn evaluate_parts_where(engine: &dyn Analyzer, corpus: &str, keep: impl Fn(&Part, usize) -> bool) -> Result<Vec<(Part, Report)>, String> {
    let corpus: Corpus = serde_json::from_str(corpus).map_err(|e| e.to_string())?;
    let categories: Vec<CategoryInfo> = corpus
        .categories
        .iter()
        .map(|c| CategoryInfo { id: c.id.clone(), parent: c.parent.clone(), name: c.name.clone(), description: Some(c.description.clone()) })
        .collect();
    let day = corpus.call_date.unwrap_or(NaiveDate::from_ymd_opt(2026, 11, 18).ok_or("date")?);
    let call_date = Utc.from_utc_datetime(&day.and_hms_opt(10, 0, 0).ok_or("date")?);
    let mut parts: std::collections::BTreeMap<Part, Report> = std::collections::BTreeMap::new();
    let mut seen: std::collections::BTreeMap<Part, usize> = std::collections::BTreeMap::new();
    for call in &corpus.calls {
        let part = Part { language: call.language.clone(), split: call.split.clone() };
        let place = seen.entry(part.clone()).or_default();
        *place += 1;
        if !keep(&part, *place - 1) {
            continue;
        }
        let input = AnalysisInput {
            turns: call.turns.clone(),
            language: if call.language == "pl" { Lang::Pl } else { Lang::En },
            call_date,
            categories: categories.clone(),
            template: None,
        };
        let started = Instant::now();
        let analysis = engine.analyze(&input).await.map_err(|e| e.to_string())?.without_non_answers();
        let report = parts.entry(part).or_default();
        report.seconds += started.elapsed().as_secs_f64();
        score(report, call, &analysis, &engine.model_used());
    }
    Ok(parts.into_iter().collect())
}

/// Adds one call's figures to `report`.
fn score(report: &mut Report, call: &CorpusCall, analysis: &crate::engine::CallAnalysis, engine: &str) {
    let split = call.split.as_str();
    report.calls += 1;
    if analysis.model_used != engine {
        report.fallbacks += 1;
        report.mistake(split, format!("{}: answered by {} (fallback)", call.id, analysis.model_used));
    }
    let got = analysis.classification.as_ref().and_then(|c| c.primary.as_ref()).map(|p| p.category_id.clone());
    if got.as_deref() == Some(call.category.as_str()) {
        report.categories_right += 1;
    } else {
        report.mistake(split, format!("{}: category {:?}, expected {}", call.id, got, call.category));
    }
    let level = analysis.sentiment.overall.level();
    if level.as_str() == call.sentiment {
        report.sentiment_right += 1;
    } else {
        report.mistake(split, format!("{}: sentiment {level}, expected {}", call.id, call.sentiment));
    }
    if !call.title_words.is_empty() {
        report.titles_expected += 1;
        let title = fold(analysis.title.as_deref().unwrap_or_default());
        if call.title_words.iter().any(|w| title.contains(&fold(w))) {
            report.titles_right += 1;
        } else {
            report.mistake(split, format!("{}: title {:?} names none of {:?}", call.id, analysis.title, call.title_words));
        }
    }
    let summary = &analysis.summary;
    let written = fold(
        &[summary.executive_summary.as_str(), summary.resolution_provided.as_str()]
            .into_iter()
            .chain(summary.key_discussion_points.iter().map(String::as_str))
            .chain(summary.next_steps.iter().map(String::as_str))
            .collect::<Vec<_>>()
            .join(" \n "),
    );
    for fact in &call.facts {
        report.facts_expected += 1;
        if fact.split_whitespace().all(|word| written.contains(&fold(word))) {
            report.facts_right += 1;
        } else {
            report.mistake(split, format!("{}: the summary does not say \"{fact}\"", call.id));
        }
    }
    report.actions_expected += call.actions.len();
    report.actions_found += analysis.actions.len();
    let mut used = vec![false; analysis.actions.len()];
    for expected in &call.actions {
        if expected.due.is_some() {
            report.deadlines_expected += 1;
        }
        let found = analysis
            .actions
            .iter()
            .enumerate()
            .find(|(i, a)| !used[*i] && a.responsible_party == expected.who && fold(&a.description).contains(&fold(&expected.word)));
        match found {
            Some((i, a)) => {
                used[i] = true;
                report.actions_right += 1;
                if let Some(due) = expected.due {
                    if a.due_at.map(|d| d.date_naive()) == Some(due) {
                        report.deadlines_right += 1;
                    } else {
                        let line = format!("{}: \"{}\" due {:?}, expected {due}", call.id, a.description, a.due_at.map(|d| d.date_naive()));
                        report.mistake(split, line);
                    }
                }
            }
            None => report.mistake(split, format!("{}: missed the {}'s \"{}\" item", call.id, expected.who, expected.word)),
        }
    }
    for (a, used) in analysis.actions.iter().zip(used) {
        if !used {
            report.mistake(split, format!("{}: extra item \"{}\" ({})", call.id, a.description, a.responsible_party));
        }
    }
}

/// The parts in reading order: by language, then own, tune, held-out.
pub fn in_order(mut parts: Vec<(Part, Report)>) -> Vec<(Part, Report)> {
    let rank = |split: &str| [OWN, TUNE, HELDOUT].iter().position(|s| *s == split);
    parts.sort_by(|(a, _), (b, _)| (&a.language, rank(&a.split)).cmp(&(&b.language, rank(&b.split))));
    parts
}

/// The header of the table [`table_row`] writes rows of.
pub fn table_header(first: &str) -> String {
    format!(
        "{first:<26} {:<4} {:<8} {:>5} {:>6} {:>7} {:>7} {:>8} {:>8} {:>9} {:>6} {:>6} {:>8}",
        "lang", "split", "calls", "class.", "items P", "items R", "items F1", "deadline", "sentiment", "title", "facts", "ms/call"
    )
}

/// One row of figures, then (with `mistakes`) what went wrong: on held-out calls only how many.
pub fn table_row(name: &str, part: &Part, r: &Report, mistakes: bool) -> String {
    // A share with two decimals, or `-` when nothing was annotated for it.
    let share = |value: f64, annotated: usize| if annotated == 0 { format!("{:>6}", "-") } else { format!("{value:>6.2}") };
    let mut out = format!(
        "{name:<26} {:<4} {:<8} {:>5} {:>6.2} {:>7.2} {:>7.2} {:>8.2} {:>8.2} {:>9.2} {} {} {:>8.0}{}",
        part.language,
        part.split,
        r.calls,
        r.classification_accuracy(),
        r.action_precision(),
        r.action_recall(),
        r.action_f1(),
        r.deadline_accuracy(),
        r.sentiment_agreement(),
        share(r.title_accuracy(), r.titles_expected),
        share(r.facts_recall(), r.facts_expected),
        r.seconds_per_call() * 1000.0,
        if r.fallbacks > 0 { format!("  ({} fell back to rules)", r.fallbacks) } else { String::new() },
    );
    if mistakes {
        for m in &r.mistakes {
            out.push_str(&format!("\n    {m}"));
        }
        if r.hidden_mistakes > 0 {
            out.push_str(&format!("\n    ({} mistakes on held-out calls, not shown)", r.hidden_mistakes));
        }
    }
    out
}
