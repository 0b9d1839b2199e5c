//! A project's vocabulary. The methods take a project the caller has already found in its
//! organization.

use async_trait::async_trait;
use callscope_domain::{ProjectId, Vocabulary};

use crate::StoreResult;

/// Vocabularies. The SQL is in `sql/vocabulary.rs`.
#[async_trait]
pub trait VocabularyStore: Send + Sync {
    /// The project's vocabulary; empty when it has none.
    async fn get_vocabulary(&self, project: ProjectId) -> StoreResult<Vocabulary>;

    /// Replaces the project's vocabulary (validated).
    async fn set_vocabulary(&self, project: ProjectId, vocabulary: &Vocabulary) -> StoreResult<Vocabulary>;
}
