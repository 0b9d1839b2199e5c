//! The category tree of a project (decisions §7): nodes with 0-based, contiguous display orders
//! among their siblings, sibling names unique regardless of case.

use std::collections::HashMap;

use crate::{CategoryId, ProjectId, TaxonomyId, Timestamp, ValidationErrors, Validator};

/// Longest category name.
pub const CATEGORY_NAME_MAX: usize = 200;
/// Longest category description.
pub const CATEGORY_DESCRIPTION_MAX: usize = 2000;
/// Most levels a tree may have (a root is level 1): more than any taxonomy a team keeps, and a
/// bound on the recursion that builds, sends and walks the tree.
pub const CATEGORY_LEVELS_MAX: usize = 20;

/// A node of the tree.
#[derive(Debug, Clone, PartialEq)]
pub struct Category {
    /// The node's id.
    pub id: CategoryId,
    /// Its project.
    pub project_id: ProjectId,
    /// The project's taxonomy.
    pub taxonomy_id: TaxonomyId,
    /// Parent node; `None` for a root.
    pub parent_id: Option<CategoryId>,
    /// Name, unique among siblings regardless of case.
    pub name: String,
    /// What belongs here; also used by classification.
    pub description: Option<String>,
    /// 0-based position among its siblings.
    pub display_order: i32,
    /// When it was created.
    pub created_at: Timestamp,
    /// When it last changed.
    pub updated_at: Timestamp,
}

/// The key under which sibling names must be unique.
pub fn name_key(name: &str) -> String {
    name.trim().to_lowercase()
}

/// A validated new node.
#[derive(Debug, Clone, PartialEq)]
pub struct NewCategory {
    /// Trimmed name.
    pub name: String,
    /// Description, `None` when blank.
    pub description: Option<String>,
    /// Parent node, which must be in the same project.
    pub parent_id: Option<CategoryId>,
    /// Position among the siblings; `None` puts it after the last one.
    pub display_order: Option<u32>,
}

impl NewCategory {
    /// Checks a create request.
    ///
    /// # Errors
    /// Every broken rule, by field.
    pub fn parse(name: &str, description: Option<&str>, parent_id: Option<CategoryId>, display_order: Option<i64>) -> Result<Self, ValidationErrors> {
        let mut v = Validator::default();
        let name = v.text("name", name, 1, CATEGORY_NAME_MAX);
        let description = description.and_then(|d| v.optional_text("description", d, CATEGORY_DESCRIPTION_MAX));
        let display_order = display_order.and_then(|o| position(&mut v, o));
        v.finish()?;
        Ok(Self { name, description, parent_id, display_order })
    }
}

fn position(v: &mut Validator, order: i64) -> Option<u32> {
    match u32::try_from(order) {
        Ok(o) if i32::try_from(o).is_ok() => Some(o),
        _ => {
            v.error("displayOrder", "must be between 0 and 2147483647");
            None
        }
    }
}

/// A validated rename or re-description. `description: Some(None)` clears it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CategoryPatch {
    /// New name.
    pub name: Option<String>,
    /// New description.
    pub description: Option<Option<String>>,
}

impl CategoryPatch {
    /// Checks an update request.
    ///
    /// # Errors
    /// Every broken rule, by field.
    pub fn parse(name: Option<&str>, description: Option<Option<&str>>) -> Result<Self, ValidationErrors> {
        let mut v = Validator::default();
        let name = name.map(|n| v.text("name", n, 1, CATEGORY_NAME_MAX));
        let description = description.map(|d| d.and_then(|d| v.optional_text("description", d, CATEGORY_DESCRIPTION_MAX)));
        v.finish()?;
        Ok(Self { name, description })
    }
}

/// A validated move: to a new parent (or to the roots) at a position.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CategoryMove {
    /// The new parent: `Some(None)` makes the node a root, `None` keeps its parent.
    pub parent_id: Option<Option<CategoryId>>,
    /// Position among the new siblings; `None` puts it last.
    pub display_order: Option<u32>,
}

impl CategoryMove {
    /// Checks a move request.
    ///
    /// # Errors
    /// A negative or too large `displayOrder`.
    pub fn parse(parent_id: Option<Option<CategoryId>>, display_order: Option<i64>) -> Result<Self, ValidationErrors> {
        let mut v = Validator::default();
        let display_order = display_order.and_then(|o| position(&mut v, o));
        v.finish()?;
        Ok(Self { parent_id, display_order })
    }
}

/// Whether moving `node` under `new_parent` would put it under itself or a descendant.
pub fn would_cycle(categories: &[Category], node: CategoryId, new_parent: CategoryId) -> bool {
    let parent_of: HashMap<CategoryId, Option<CategoryId>> = categories.iter().map(|c| (c.id, c.parent_id)).collect();
    let mut cursor = Some(new_parent);
    let mut steps = 0;
    while let Some(current) = cursor {
        if current == node {
            return true;
        }
        steps += 1;
        if steps > categories.len() {
            return true; // a cycle already stored would loop forever: refuse rather than spin
        }
        cursor = parent_of.get(&current).copied().flatten();
    }
    false
}

/// The level `node` sits at: 1 for a root (and for an id not in `categories`).
pub fn level_of(categories: &[Category], node: CategoryId) -> usize {
    let parent_of: HashMap<CategoryId, Option<CategoryId>> = categories.iter().map(|c| (c.id, c.parent_id)).collect();
    let mut level = 1;
    let mut cursor = parent_of.get(&node).copied().flatten();
    // A stored cycle cannot be walked to a root: it stops at the number of nodes.
    while let Some(current) = cursor.filter(|_| level <= categories.len()) {
        level += 1;
        cursor = parent_of.get(&current).copied().flatten();
    }
    level
}

/// How many levels `node`'s subtree has, `node` included: 1 for a leaf.
pub fn subtree_levels(categories: &[Category], node: CategoryId) -> usize {
    let mut children: HashMap<CategoryId, Vec<CategoryId>> = HashMap::new();
    for category in categories {
        if let Some(parent) = category.parent_id {
            children.entry(parent).or_default().push(category.id);
        }
    }
    let mut levels = 0;
    let mut current = vec![node];
    while !current.is_empty() && levels <= categories.len() {
        levels += 1;
        current = current.iter().flat_map(|id| children.get(id).into_iter().flatten().copied()).collect();
    }
    levels
}

/// The ids of `node` and all its descendants.
pub fn subtree(categories: &[Category], node: CategoryId) -> Vec<CategoryId> {
    let mut out = vec![node];
    let mut i = 0;
    while i < out.len() {
        let current = out[i];
        out.extend(categories.iter().filter(|c| c.parent_id == Some(current)).map(|c| c.id));
        i += 1;
    }
    out
}

/// The new sibling order after inserting `node` at `position` (clamped; `None` = last) into
/// `siblings` (already ordered, `node` not among them).
pub fn insert_at(siblings: &[CategoryId], node: CategoryId, position: Option<u32>) -> Vec<CategoryId> {
    let mut order: Vec<CategoryId> = siblings.iter().copied().filter(|&id| id != node).collect();
    let at = position.map_or(order.len(), |p| (p as usize).min(order.len()));
    order.insert(at, node);
    order
}

/// A node of the tree as `GET …/categories` shows it.
#[derive(Debug, Clone, PartialEq)]
pub struct CategoryNode {
    /// The node.
    pub category: Category,
    /// Calls whose primary category is this node.
    pub call_count: u64,
    /// Calls filed here or anywhere below.
    pub total_call_count: u64,
    /// Children, by display order then name.
    pub children: Vec<CategoryNode>,
}

/// Builds the forest of a project's categories with call counts per node.
pub fn build_tree(mut categories: Vec<Category>, call_counts: &HashMap<CategoryId, u64>) -> Vec<CategoryNode> {
    categories.sort_by(|a, b| (a.display_order, &a.name, a.id).cmp(&(b.display_order, &b.name, b.id)));
    let mut children: HashMap<Option<CategoryId>, Vec<Category>> = HashMap::new();
    for category in categories {
        children.entry(category.parent_id).or_default().push(category);
    }
    fn build(
        parent: Option<CategoryId>,
        children: &mut HashMap<Option<CategoryId>, Vec<Category>>,
        counts: &HashMap<CategoryId, u64>,
    ) -> Vec<CategoryNode> {
        let nodes = children.remove(&parent).unwrap_or_default();
        nodes
            .into_iter()
            .map(|category| {
                let kids = build(Some(category.id), children, counts);
                let call_count = counts.get(&category.id).copied().unwrap_or(0);
                let total_call_count = call_count + kids.iter().map(|k| k.total_call_count).sum::<u64>();
                CategoryNode { category, call_count, total_call_count, children: kids }
            })
            .collect()
    }
    build(None, &mut children, call_counts)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn node(name: &str, parent: Option<CategoryId>, order: i32) -> Category {
        let now = chrono::Utc::now();
        Category {
            id: CategoryId::new(),
            project_id: ProjectId(uuid::Uuid::nil()),
            taxonomy_id: TaxonomyId(uuid::Uuid::nil()),
            parent_id: parent,
            name: name.into(),
            description: None,
            display_order: order,
            created_at: now,
            updated_at: now,
        }
    }

    #[test]
    fn cycles_are_found_through_any_depth() {
        let root = node("root", None, 0);
        let child = node("child", Some(root.id), 0);
        let grandchild = node("grandchild", Some(child.id), 0);
        let other = node("other", None, 1);
        let all = vec![root.clone(), child.clone(), grandchild.clone(), other.clone()];
        assert!(would_cycle(&all, root.id, root.id));
        assert!(would_cycle(&all, root.id, grandchild.id));
        assert!(!would_cycle(&all, grandchild.id, other.id));
        assert!(!would_cycle(&all, child.id, other.id));
        assert_eq!(subtree(&all, child.id), vec![child.id, grandchild.id]);
    }

    #[test]
    fn levels_count_from_the_root_and_down_the_deepest_branch() {
        let root = node("root", None, 0);
        let child = node("child", Some(root.id), 0);
        let other = node("other", Some(root.id), 1);
        let grandchild = node("grandchild", Some(child.id), 0);
        let all = [root.clone(), child.clone(), other.clone(), grandchild.clone()];
        assert_eq!([level_of(&all, root.id), level_of(&all, child.id), level_of(&all, grandchild.id)], [1, 2, 3]);
        assert_eq!([subtree_levels(&all, root.id), subtree_levels(&all, child.id), subtree_levels(&all, other.id)], [3, 2, 1]);
        let mut looped = node("a", None, 0);
        let b = node("b", Some(looped.id), 0);
        looped.parent_id = Some(b.id);
        assert!(level_of(&[looped.clone(), b.clone()], b.id) <= 3, "a stored cycle ends the walk");
        assert!(subtree_levels(&[looped.clone(), b], looped.id) <= 3);
    }

    #[test]
    fn insertion_clamps_and_appends() {
        let [a, b, c, x] = [CategoryId::new(), CategoryId::new(), CategoryId::new(), CategoryId::new()];
        assert_eq!(insert_at(&[a, b, c], x, None), vec![a, b, c, x]);
        assert_eq!(insert_at(&[a, b, c], x, Some(0)), vec![x, a, b, c]);
        assert_eq!(insert_at(&[a, b, c], x, Some(99)), vec![a, b, c, x]);
        assert_eq!(insert_at(&[a, x, c], x, Some(2)), vec![a, c, x], "moving within the same parent");
    }

    #[test]
    fn trees_sum_counts_upwards() {
        let root = node("Billing", None, 0);
        let child = node("Refunds", Some(root.id), 0);
        let second_root = node("Account", None, 1);
        let counts = HashMap::from([(root.id, 2), (child.id, 3)]);
        let tree = build_tree(vec![child.clone(), second_root.clone(), root.clone()], &counts);
        assert_eq!(tree.len(), 2);
        assert_eq!(tree[0].category.id, root.id);
        assert_eq!((tree[0].call_count, tree[0].total_call_count), (2, 5));
        assert_eq!(tree[0].children[0].total_call_count, 3);
        assert_eq!(tree[1].total_call_count, 0);
    }

    #[test]
    fn names_are_keyed_case_insensitively() {
        assert_eq!(name_key(" Łódź Zwroty "), "łódź zwroty");
        assert!(NewCategory::parse("ok", None, None, Some(-1)).is_err());
        assert!(NewCategory::parse("", None, None, None).is_err());
    }
}
