//! A project's category tree. The methods take a project the caller has already found in its
//! organization, and look every category up within that project.

use std::collections::HashMap;

use async_trait::async_trait;
use callscope_domain::{Category, CategoryId, CategoryMove, CategoryPatch, NewCategory, ProjectId};

use crate::StoreResult;

/// A project's category tree. The SQL is in `sql/categories.rs`.
#[async_trait]
pub trait CategoryStore: Send + Sync {
    /// All categories of the project (unordered).
    async fn list_categories(&self, project: ProjectId) -> StoreResult<Vec<Category>>;

    /// Calls per primary category.
    async fn category_call_counts(&self, project: ProjectId) -> StoreResult<HashMap<CategoryId, u64>>;

    /// Creates a category, shifting the siblings at and after its position.
    async fn create_category(&self, project: ProjectId, new: &NewCategory) -> StoreResult<Category>;

    /// Renames or re-describes a category.
    async fn update_category(&self, project: ProjectId, id: CategoryId, patch: &CategoryPatch) -> StoreResult<Category>;

    /// Moves a category to a new parent and position, renumbering both sibling lists.
    async fn move_category(&self, project: ProjectId, id: CategoryId, to: &CategoryMove) -> StoreResult<Category>;

    /// Deletes a category and its subtree; their calls become uncategorized.
    async fn delete_category(&self, project: ProjectId, id: CategoryId) -> StoreResult<()>;

    /// Deletes the project's whole taxonomy.
    async fn clear_categories(&self, project: ProjectId) -> StoreResult<()>;
}
