//! Call analysis: action items from commitments and requests, each with the deadline said for
//! it (found and resolved by `callscope-text`); lexicon sentiment in English and Polish; classification, summaries and template
//! answers. Two engines: rules (no model) and the LLM engine over any OpenAI-compatible endpoint
//! (structured output, retries, quotes checked against the transcript, PII masked before it
//! leaves), which also drives the local model that `callscope-llm` serves.

pub mod actions;
pub mod antecedents;
pub mod choice;
pub mod classify;
pub mod engine;
pub mod guided;
pub mod llm_engine;
pub mod not_tasks;
pub mod openai;
pub mod quality;
pub mod roles;
pub mod sentiment;
pub mod summary;
pub mod template;
pub mod text;
pub mod warmth;

pub use openai::{masked_url, LlmError, OpenAiClient, OpenAiSettings};
