//! A project's rules and the calls they matched. The methods take a project the caller has
//! already found in its organization, and look every rule and call up within that project.

use async_trait::async_trait;
use callscope_domain::{CallId, ProjectId, Rule, RuleId, RuleInput, RuleMatch, Timestamp};

use crate::StoreResult;

/// Rules and their matches. The SQL is in `sql/rules.rs`.
#[async_trait]
pub trait RuleStore: Send + Sync {
    /// The project's rules, oldest first.
    async fn list_rules(&self, project: ProjectId) -> StoreResult<Vec<Rule>>;

    /// One rule.
    async fn get_rule(&self, project: ProjectId, id: RuleId) -> StoreResult<Rule>;

    /// Creates a rule (validated); a name the project already has, whatever its case, is
    /// `Rejected(DuplicateRule)`, a project at its limit `Rejected(TooManyRules)`.
    async fn create_rule(&self, project: ProjectId, input: &RuleInput) -> StoreResult<Rule>;

    /// Replaces a rule's content; the calls it matched keep their matches until evaluated again.
    async fn replace_rule(&self, project: ProjectId, id: RuleId, input: &RuleInput) -> StoreResult<Rule>;

    /// Deletes a rule and its matches.
    async fn delete_rule(&self, project: ProjectId, id: RuleId) -> StoreResult<()>;

    /// Sets the rules a call matches, in one transaction: `matches` replace those of the rules
    /// in `evaluated` (the others' stay), and each match the call did not have before raises a
    /// `call.rule_matched` event. The new matches come back. `NotFound` when the call is not
    /// the project's (it may have been erased since it was read).
    async fn set_rule_matches(&self, project: ProjectId, call: CallId, evaluated: &[RuleId], matches: &[RuleMatch]) -> StoreResult<Vec<RuleMatch>>;

    /// The rules a call matched, by label.
    async fn call_rule_matches(&self, project: ProjectId, call: CallId) -> StoreResult<Vec<RuleMatch>>;

    /// Takes a rule whose earlier calls are still to be filed, for `lease` (one whose lease
    /// passed is taken over where it stood): the rule and where its sweep is.
    async fn claim_rule_sweep(&self, worker: &str, lease: std::time::Duration) -> StoreResult<Option<RuleSweep>>;

    /// The project's calls stored after `after` in (stored, id) order, at most `limit`.
    async fn calls_after(&self, project: ProjectId, after: Option<(Timestamp, CallId)>, limit: u32) -> StoreResult<Vec<(Timestamp, CallId)>>;

    /// Records that the sweep filed `filed` more calls, up to `reached` (where it stood when
    /// none), and renews its lease; a finished sweep is no longer pending. False when the worker
    /// no longer holds it: the rule changed (its sweep starts over), was deleted, or another
    /// worker took it over.
    async fn advance_rule_sweep(
        &self,
        rule: RuleId,
        worker: &str,
        reached: Option<(Timestamp, CallId)>,
        filed: u64,
        finished: bool,
        lease: std::time::Duration,
    ) -> StoreResult<bool>;
}

/// A rule's sweep, as a worker takes it.
#[derive(Debug, Clone, PartialEq)]
pub struct RuleSweep {
    /// The rule.
    pub rule: Rule,
    /// The last call filed so far; none before the first.
    pub after: Option<(Timestamp, CallId)>,
}
