//! Call analysis. So far, the parts the engines are built from: resolving the deadlines people
//! say ("by Friday", "do piątku", "jutro", "15 grudnia", "end of month") against the call's date;
//! action items from commitments and requests; lexicon sentiment in English and Polish; and the
//! client for OpenAI-compatible endpoints (structured output, retries, PII masked before it
//! leaves). The engines (rules, a local LLM, any OpenAI-compatible endpoint) come next.

pub mod actions;
pub mod classify;
pub mod deadline;
pub mod engine;
pub mod llm_engine;
pub mod openai;
pub mod quality;
pub mod sentiment;
pub mod summary;
pub mod template;
pub mod text;

pub use deadline::resolve_deadline;
pub use openai::{LlmError, OpenAiClient, OpenAiSettings};
