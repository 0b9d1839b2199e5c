//! A call's stored `classification` after categories are deleted: matches that name a deleted
//! category, or one under it, go, so that no call keeps pointing at a category that is gone
//! (decisions §7: its calls become uncategorized).

use std::collections::HashSet;

use serde_json::Value;
use uuid::Uuid;

/// `classification` without the matches into `gone`; `None` when nothing changes. A removed
/// primary match leaves `primary` null and the overall confidence 0.
pub(crate) fn without_categories(classification: &Value, gone: &HashSet<Uuid>) -> Option<Value> {
    without_matches(classification, |id| gone.contains(id))
}

/// `classification` with only the matches whose categories all `exist`: what an analysis made
/// before some of them were deleted may store. `None` when nothing changes.
pub(crate) fn within(classification: &Value, exist: &HashSet<Uuid>) -> Option<Value> {
    without_matches(classification, |id| !exist.contains(id))
}

fn without_matches(classification: &Value, is_gone: impl Fn(&Uuid) -> bool) -> Option<Value> {
    let mut out = classification.clone();
    let mut changed = false;
    if out.get("primary").is_some_and(|p| names_any(p, &is_gone)) {
        out["primary"] = Value::Null;
        if out.get("overallConfidence").is_some() {
            out["overallConfidence"] = Value::from(0.0);
        }
        changed = true;
    }
    if let Some(secondary) = out.get_mut("secondary").and_then(Value::as_array_mut) {
        let before = secondary.len();
        secondary.retain(|m| !names_any(m, &is_gone));
        changed |= secondary.len() != before;
    }
    changed.then_some(out)
}

/// Whether a category match (`categoryId`, `categoryPath`) names a category that `is_gone`.
fn names_any(matched: &Value, is_gone: &impl Fn(&Uuid) -> bool) -> bool {
    let gone = |v: &Value| v.as_str().and_then(|s| s.parse::<Uuid>().ok()).is_some_and(|id| is_gone(&id));
    gone(&matched["categoryId"]) || matched["categoryPath"].as_array().is_some_and(|path| path.iter().any(gone))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn matches_into_a_deleted_subtree_go_and_others_stay() {
        let (root, leaf, other) = (Uuid::now_v7(), Uuid::now_v7(), Uuid::now_v7());
        let classification = json!({
            "primary": {"categoryId": leaf, "categoryPath": [root, leaf], "confidence": 1.0},
            "secondary": [{"categoryId": other, "categoryPath": [other]}, {"categoryId": root, "categoryPath": [root]}],
            "overallConfidence": 1.0,
            "modelUsed": "manual",
        });
        let gone = HashSet::from([root]);
        let left = without_categories(&classification, &gone).expect("changed");
        assert_eq!(left["primary"], Value::Null, "a leaf whose parent is deleted goes with it");
        assert_eq!(left["secondary"], json!([{"categoryId": other, "categoryPath": [other]}]));
        assert_eq!((left["overallConfidence"].as_f64(), left["modelUsed"].as_str()), (Some(0.0), Some("manual")));
        assert_eq!(without_categories(&classification, &HashSet::from([Uuid::now_v7()])), None, "nothing of it deleted");
        assert_eq!(without_categories(&Value::Null, &gone), None);

        let kept = within(&classification, &HashSet::from([other])).expect("changed");
        assert_eq!(kept["primary"], Value::Null);
        assert_eq!(kept["secondary"], json!([{"categoryId": other, "categoryPath": [other]}]));
        assert_eq!(within(&classification, &HashSet::from([root, leaf, other])), None, "every category still there");
    }
}
