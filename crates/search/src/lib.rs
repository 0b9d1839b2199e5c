//! Keyword search over calls (decisions §4): an embedded tantivy index on local disk that
//! follows the database, our own query language (words, `"phrases"`, `OR`, `-exclusions`),
//! stemming for English and Polish with diacritics folded, BM25 ranking with the title boosted,
//! and highlighted snippets.
//!
//! The database stays the source of truth. [`SearchService`] keeps the index in step with it:
//! it reads the calls changed since its watermark and the calls erased since then, and catches
//! up before every search, so a search sees every change committed before it.

pub mod index;
pub mod polish;
pub mod query;
pub mod service;
pub mod snippet;
pub mod text;

pub use index::{CallIndex, Hits, IndexError, Opened, Watermark};
pub use query::{parse, Query, QueryError};
pub use service::{CatchUp, SearchError, SearchService};
pub use snippet::snippet;
