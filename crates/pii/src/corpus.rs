//! Scoring the detector against a labeled corpus: lines of `lang<TAB>text`, personal data
//! marked `[[TYPE|value]]` (see `corpus/calls.txt`).

use std::collections::BTreeMap;

use crate::{Detector, Entity, Lang, PiiType};

/// One utterance: its text without marks and the marked spans.
#[derive(Debug, Clone)]
pub struct Example {
    pub lang: Lang,
    pub text: String,
    pub gold: Vec<Entity>,
}

/// Parses the corpus; `#` lines are comments.
///
/// # Errors
/// A line that is not `pl|en<TAB>text` or a mark with an unknown type, with its line number.
pub fn parse(corpus: &str) -> Result<Vec<Example>, String> {
    let mut out = Vec::new();
    for (n, line) in corpus.lines().enumerate() {
        if line.trim().is_empty() || line.starts_with('#') {
            continue;
        }
        let (lang, marked) = line.split_once('\t').ok_or_else(|| format!("line {}: no tab", n + 1))?;
        let lang = match lang {
            "pl" => Lang::Pl,
            "en" => Lang::En,
            other => return Err(format!("line {}: unknown language {other:?}", n + 1)),
        };
        let mut text = String::new();
        let mut gold = Vec::new();
        let mut rest = marked;
        while let Some(open) = rest.find("[[") {
            text.push_str(&rest[..open]);
            let close = rest[open..].find("]]").ok_or_else(|| format!("line {}: unclosed mark", n + 1))? + open;
            let (kind, value) = rest[open + 2..close].split_once('|').ok_or_else(|| format!("line {}: mark without |", n + 1))?;
            let kind = PiiType::parse(kind).ok_or_else(|| format!("line {}: unknown type {kind}", n + 1))?;
            gold.push(Entity { kind, start: text.len(), end: text.len() + value.len(), confidence: 1.0 });
            text.push_str(value);
            rest = &rest[close + 2..];
        }
        text.push_str(rest);
        out.push(Example { lang, text, gold });
    }
    Ok(out)
}

/// Counts for one type.
#[derive(Debug, Clone, Copy, Default)]
pub struct Counts {
    pub gold: usize,
    pub predicted: usize,
    pub correct: usize,
}

impl Counts {
    pub fn precision(&self) -> f64 {
        if self.predicted == 0 {
            1.0
        } else {
            self.correct as f64 / self.predicted as f64
        }
    }

    pub fn recall(&self) -> f64 {
        if self.gold == 0 {
            1.0
        } else {
            self.correct as f64 / self.gold as f64
        }
    }
}

/// A detection that matched no gold span, or a gold span nothing matched.
#[derive(Debug, Clone)]
pub struct Miss {
    pub kind: PiiType,
    pub value: String,
    pub text: String,
    /// `true`: predicted but wrong; `false`: in the gold data but not found.
    pub spurious: bool,
}

/// Per-type counts and the mistakes.
#[derive(Debug, Default)]
pub struct Score {
    pub by_type: BTreeMap<PiiType, Counts>,
    pub misses: Vec<Miss>,
}

impl Score {
    pub fn total(&self) -> Counts {
        self.by_type.values().fold(Counts::default(), |a, c| Counts {
            gold: a.gold + c.gold,
            predicted: a.predicted + c.predicted,
            correct: a.correct + c.correct,
        })
    }
}

/// A prediction is correct when it has the gold span's type and covers at least half of it
/// while spilling over by no more than half of it.
fn matches(p: &Entity, g: &Entity) -> bool {
    let overlap = p.end.min(g.end).saturating_sub(p.start.max(g.start));
    let len = g.end - g.start;
    p.kind == g.kind && overlap * 2 >= len && (p.end - p.start) <= len + len / 2
}

/// Runs `detector` over `examples`.
pub fn score(detector: &Detector, examples: &[Example]) -> Score {
    let mut s = Score::default();
    for ex in examples {
        let predicted = detector.detect(&ex.text, ex.lang);
        let mut used = vec![false; predicted.len()];
        for g in &ex.gold {
            s.by_type.entry(g.kind).or_default().gold += 1;
            match predicted.iter().enumerate().find(|(i, p)| !used[*i] && matches(p, g)) {
                Some((i, _)) => {
                    used[i] = true;
                    s.by_type.entry(g.kind).or_default().correct += 1;
                }
                None => s.misses.push(Miss { kind: g.kind, value: ex.text[g.start..g.end].to_owned(), text: ex.text.clone(), spurious: false }),
            }
        }
        for (p, used) in predicted.iter().zip(used) {
            s.by_type.entry(p.kind).or_default().predicted += 1;
            if !used {
                s.misses.push(Miss { kind: p.kind, value: ex.text[p.start..p.end].to_owned(), text: ex.text.clone(), spurious: true });
            }
        }
    }
    s
}
