//! Classification without a model: each category's name (weighted twice) and description are
//! keywords; a category scores by how often its keywords occur in the call, normalised by how
//! many it has, plus a share of its ancestors' score, so that "Billing › Refunds" beats
//! "Billing" when refunds are discussed.

use std::collections::HashMap;

use crate::text::{sentences, stems};

/// A category of the project's tree.
#[derive(Debug, Clone)]
pub struct CategoryInfo {
    pub id: String,
    pub parent: Option<String>,
    pub name: String,
    pub description: Option<String>,
}

/// One category the call belongs to.
#[derive(Debug, Clone, PartialEq)]
pub struct CategoryMatch {
    pub category_id: String,
    /// Ids root → node.
    pub category_path: Vec<String>,
    /// Names root → node.
    pub category_names: Vec<String>,
    pub confidence: f32,
    pub evidence: String,
    /// 0 for a root.
    pub depth: usize,
}

/// The call's categories.
#[derive(Debug, Clone, PartialEq)]
pub struct Classification {
    pub primary: Option<CategoryMatch>,
    pub secondary: Vec<CategoryMatch>,
    pub overall_confidence: f32,
    pub reasoning: String,
}

fn keywords(c: &CategoryInfo) -> HashMap<String, f32> {
    let mut k = HashMap::new();
    for s in stems(&c.name) {
        *k.entry(s).or_insert(0.0) += 2.0;
    }
    for s in stems(c.description.as_deref().unwrap_or("")) {
        *k.entry(s).or_insert(0.0) += 1.0;
    }
    k
}

/// The category and its ancestors, root first (a cycle stops the walk).
pub(crate) fn chain<'a>(by_id: &HashMap<&str, &'a CategoryInfo>, c: &'a CategoryInfo) -> Vec<&'a CategoryInfo> {
    let mut path = vec![c];
    let mut at = c;
    while let Some(parent) = at.parent.as_deref().and_then(|p| by_id.get(p)) {
        if path.iter().any(|x| x.id == parent.id) {
            break;
        }
        path.push(parent);
        at = parent;
    }
    path.reverse();
    path
}

/// Classifies the call's turns into `categories`; `None` when there are none.
pub fn classify(categories: &[CategoryInfo], turns: &[&str]) -> Option<Classification> {
    if categories.is_empty() {
        return None;
    }
    let text = turns.join("\n");
    let mut counts: HashMap<String, f32> = HashMap::new();
    for s in stems(&text) {
        *counts.entry(s).or_insert(0.0) += 1.0;
    }
    let own: HashMap<&str, (f32, Vec<String>)> = categories
        .iter()
        .map(|c| {
            let k = keywords(c);
            let total: f32 = k.values().sum();
            let mut hits: Vec<(String, f32)> = k.iter().filter_map(|(s, w)| counts.get(s).map(|n| (s.clone(), w * (1.0 + n).ln()))).collect();
            hits.sort_by(|a, b| b.1.total_cmp(&a.1));
            let score = if total > 0.0 { hits.iter().map(|h| h.1).sum::<f32>() / total.sqrt() } else { 0.0 };
            (c.id.as_str(), (score, hits.into_iter().map(|h| h.0).collect()))
        })
        .collect();
    let by_id: HashMap<&str, &CategoryInfo> = categories.iter().map(|c| (c.id.as_str(), c)).collect();
    let mut ranked: Vec<(f32, &CategoryInfo)> = categories
        .iter()
        .filter(|c| own[c.id.as_str()].0 > 0.0)
        .map(|c| {
            let path = chain(&by_id, c);
            let inherited: f32 = path[..path.len() - 1].iter().map(|a| own[a.id.as_str()].0).sum();
            (own[c.id.as_str()].0 + 0.3 * inherited, c)
        })
        .collect();
    ranked.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.name.cmp(&b.1.name)));
    let make = |score: f32, c: &CategoryInfo| {
        let path = chain(&by_id, c);
        let hits = &own[c.id.as_str()].1;
        let evidence =
            sentences(&text).into_iter().max_by_key(|s| stems(s).iter().filter(|x| hits.contains(x)).count()).unwrap_or_default().to_owned();
        CategoryMatch {
            category_id: c.id.clone(),
            category_path: path.iter().map(|a| a.id.clone()).collect(),
            category_names: path.iter().map(|a| a.name.clone()).collect(),
            confidence: ((1.0 - (-score).exp()).min(0.95) * 100.0).round() / 100.0,
            evidence,
            depth: path.len() - 1,
        }
    };
    let Some(&(best, top)) = ranked.first() else {
        return Some(Classification {
            primary: None,
            secondary: Vec::new(),
            overall_confidence: 0.0,
            reasoning: "No category's name or description words occur in the call.".into(),
        });
    };
    let primary = make(best, top);
    let secondary: Vec<CategoryMatch> =
        ranked[1..].iter().filter(|(s, c)| *s >= 0.5 * best && !primary.category_path.contains(&c.id)).take(3).map(|&(s, c)| make(s, c)).collect();
    let reasoning = format!(
        "Words of \"{}\" occur in the call: {}.",
        primary.category_names.join(" › "),
        own[top.id.as_str()].1.iter().take(5).cloned().collect::<Vec<_>>().join(", ")
    );
    Some(Classification { overall_confidence: primary.confidence, primary: Some(primary), secondary, reasoning })
}

/// The match for a category chosen elsewhere (by a model, when no category's words occur in the
/// call, so there is no sentence to quote), with `confidence`. `None` for an id not in
/// `categories`.
pub fn match_for(categories: &[CategoryInfo], id: &str, confidence: f32) -> Option<CategoryMatch> {
    let by_id: HashMap<&str, &CategoryInfo> = categories.iter().map(|c| (c.id.as_str(), c)).collect();
    let path = chain(&by_id, by_id.get(id)?);
    Some(CategoryMatch {
        category_id: id.to_owned(),
        category_path: path.iter().map(|a| a.id.clone()).collect(),
        category_names: path.iter().map(|a| a.name.clone()).collect(),
        confidence,
        evidence: String::new(),
        depth: path.len() - 1,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cat(id: &str, parent: Option<&str>, name: &str, description: &str) -> CategoryInfo {
        CategoryInfo { id: id.into(), parent: parent.map(Into::into), name: name.into(), description: Some(description.into()) }
    }

    fn tree() -> Vec<CategoryInfo> {
        vec![
            cat("b", None, "Płatności", "faktury, płatności, rachunki"),
            cat("r", Some("b"), "Zwroty", "zwrot pieniędzy, zwrot towaru, reklamacja"),
            cat("t", None, "Wsparcie techniczne", "awaria, internet nie działa, router"),
            cat("s", None, "Sales", "new contract, upgrade, offer, price"),
        ]
    }

    #[test]
    fn the_most_specific_matching_category_wins_with_its_path() {
        let c = classify(&tree(), &["Dzień dobry, chciałam złożyć reklamację i prosić o zwrot pieniędzy.", "Zwrotu dokonamy na fakturę korygującą."])
            .unwrap();
        let p = c.primary.unwrap();
        assert_eq!(p.category_id, "r");
        assert_eq!(p.category_path, ["b", "r"]);
        assert_eq!(p.category_names, ["Płatności", "Zwroty"]);
        assert_eq!(p.depth, 1);
        assert!(p.evidence.contains("reklamację"), "{}", p.evidence);
        assert!(p.confidence > 0.5 && p.confidence <= 0.95);
        assert!(c.secondary.iter().all(|s| s.category_id != "b"), "an ancestor is not a secondary match");

        let sales = classify(&tree(), &["I'd like to upgrade my contract, what's the price of the new offer?"]).unwrap();
        assert_eq!(sales.primary.unwrap().category_id, "s");
        let none = classify(&tree(), &["Hello, is anybody there?"]).unwrap();
        assert!(none.primary.is_none() && none.overall_confidence == 0.0);
        assert!(classify(&[], &["anything"]).is_none(), "no categories: no classification");
    }
}
