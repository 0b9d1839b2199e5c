//! Handlers, one module per resource.

pub mod ops;
pub mod projects;
