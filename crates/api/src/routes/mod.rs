//! Handlers, one module per resource.

pub mod action_items;
pub mod audio;
pub mod call_records;
pub mod calls;
pub mod categories;
pub mod dashboard;
pub mod ops;
pub mod presets;
pub mod projects;
pub mod search;
pub mod templates;
pub mod webhooks;
