//! A project's own resources: its category tree, speaker presets and analysis templates. The
//! methods take a project the caller has already found in its organization, and look every
//! nested id up within that project.

use std::collections::HashMap;

use async_trait::async_trait;
use callscope_domain::{
    AnalysisTemplate, ApiKeyId, Category, CategoryId, CategoryMove, CategoryPatch, NewCategory, PresetInput, ProjectId, SpeakerPreset,
    SpeakerPresetId, TemplateId, TemplateInput,
};

use crate::StoreResult;

/// A project's category tree, speaker presets and analysis templates. The SQL is in `sql/resources.rs`.
#[async_trait]
pub trait ResourceStore: Send + Sync {
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

    /// The project's presets, by name.
    async fn list_presets(&self, project: ProjectId) -> StoreResult<Vec<SpeakerPreset>>;

    /// Creates a preset (not default). `input` has both name and speakers.
    async fn create_preset(&self, project: ProjectId, input: &PresetInput) -> StoreResult<SpeakerPreset>;

    /// Changes the name and/or speakers of a preset.
    async fn update_preset(&self, project: ProjectId, id: SpeakerPresetId, input: &PresetInput) -> StoreResult<SpeakerPreset>;

    /// Makes the preset the project's only default.
    async fn set_default_preset(&self, project: ProjectId, id: SpeakerPresetId) -> StoreResult<SpeakerPreset>;

    /// Deletes a preset.
    async fn delete_preset(&self, project: ProjectId, id: SpeakerPresetId) -> StoreResult<()>;

    /// The project's templates, newest first.
    async fn list_templates(&self, project: ProjectId) -> StoreResult<Vec<AnalysisTemplate>>;

    /// One template.
    async fn get_template(&self, project: ProjectId, id: TemplateId) -> StoreResult<AnalysisTemplate>;

    /// Creates a template; when it is active, the others are deactivated.
    async fn create_template(&self, project: ProjectId, user: ApiKeyId, input: &TemplateInput) -> StoreResult<AnalysisTemplate>;

    /// Replaces a template's content (`is_active: None` keeps the state).
    async fn replace_template(&self, project: ProjectId, id: TemplateId, input: &TemplateInput) -> StoreResult<AnalysisTemplate>;

    /// Activates (deactivating the others) or deactivates a template.
    async fn set_template_active(&self, project: ProjectId, id: TemplateId, active: bool) -> StoreResult<AnalysisTemplate>;

    /// Deletes a template.
    async fn delete_template(&self, project: ProjectId, id: TemplateId) -> StoreResult<()>;
}
