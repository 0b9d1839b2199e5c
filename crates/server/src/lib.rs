//! The `callscope` service: configuration, start-up and the command line around the crates
//! that do the work (`callscope-api` for HTTP, `callscope-store` for persistence).

pub mod analyze;
pub mod config;
pub mod housekeeping;
pub mod local_llm;
pub mod startup;

pub use config::Config;
pub use startup::{shutdown_signal, Application};
