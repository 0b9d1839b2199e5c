//! Call analysis. So far: resolving the deadlines people say ("by Friday", "do piątku",
//! "jutro", "15 grudnia", "end of month") to dates, against the call's date. The analysis
//! engines (rules, a local LLM, any OpenAI-compatible endpoint) build on it.

pub mod deadline;

pub use deadline::resolve_deadline;
