//! Filing stored calls by the project's rules: what a call offers the rules is read back from
//! the store (its turns, speakers, characteristics, sentiment, categories and personal data),
//! each rule is evaluated, and the matches are stored, raising `call.rule_matched` for each new
//! one. A call is filed when it is processed and when it is re-analysed; the calls stored before
//! a rule was made or changed are filed by the rules sweep.

use callscope_domain::{CallId, CategoryId, ProjectId, Rule, RuleMatch, RuleSubject};
use callscope_store::{Store, StoreResult};

/// Files `call` by `rules`: their matches replace what they matched before (other rules' stay).
/// The matches new to the call come back.
///
/// # Errors
/// The store failing, or the call gone (`NotFound`).
pub async fn file_call(store: &dyn Store, project: ProjectId, call: CallId, rules: &[Rule]) -> StoreResult<Vec<RuleMatch>> {
    if rules.is_empty() {
        return Ok(Vec::new());
    }
    let summary = store.get_call_summary(project, call).await?;
    let text = store.get_call_text(project, call).await?;
    let analysis = store.get_call_analysis(project, call).await?;
    let mut categories: Vec<CategoryId> = Vec::new();
    if let Some(classification) = &analysis.classification {
        for found in classification.primary.iter().chain(&classification.secondary) {
            categories.extend(found.category_path.iter().copied());
            categories.push(found.category_id);
        }
    }
    categories.extend(analysis.primary_category);
    let pii_types: Vec<String> = text.pii_statistics.types.iter().filter(|(_, n)| **n > 0).map(|(kind, _)| kind.clone()).collect();
    let turn_scores = analysis.summary.as_ref().map(|s| s.sentiment.turn_scores.as_slice()).unwrap_or_default();
    let duration_ms = summary.duration_s.map_or_else(|| text.turns.last().map_or(0, |t| t.end_ms), |s| (s * 1000.0).round() as i64);
    let subject = RuleSubject {
        turns: &text.turns,
        speakers: &text.speakers,
        duration_ms,
        characteristics: text.characteristics.as_ref(),
        turn_scores,
        categories: &categories,
        pii_types: &pii_types,
    };
    let matches: Vec<RuleMatch> = rules.iter().filter_map(|rule| rule.evaluate(&subject)).collect();
    let evaluated: Vec<_> = rules.iter().map(|r| r.id).collect();
    store.set_rule_matches(project, call, &evaluated, &matches).await
}
