//! A project's speaker presets. The methods take a project the caller has already found in its
//! organization, and look every preset up within that project.

use async_trait::async_trait;
use callscope_domain::{PresetInput, ProjectId, SpeakerPreset, SpeakerPresetId};

use crate::StoreResult;

/// A project's speaker presets. The SQL is in `sql/presets.rs`.
#[async_trait]
pub trait PresetStore: Send + Sync {
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
}
