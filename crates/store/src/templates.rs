//! A project's analysis templates. The methods take a project the caller has already found in its
//! organization, and look every template up within that project.

use async_trait::async_trait;
use callscope_domain::{AnalysisTemplate, ApiKeyId, ProjectId, TemplateId, TemplateInput};

use crate::StoreResult;

/// A project's analysis templates. The SQL is in `sql/templates.rs`.
#[async_trait]
pub trait TemplateStore: Send + Sync {
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
