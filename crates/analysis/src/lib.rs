//! Call analysis. So far: resolving the deadlines people say ("by Friday", "do piątku",
//! "jutro", "15 grudnia", "end of month") to dates against the call's date, and the client for
//! OpenAI-compatible endpoints (structured output, retries, PII masked before it leaves). The
//! analysis engines (rules, a local LLM, any OpenAI-compatible endpoint) build on them.

pub mod deadline;
pub mod openai;
pub mod sentiment;

pub use deadline::resolve_deadline;
pub use openai::{LlmError, OpenAiClient, OpenAiSettings};
