//! callscope's local LLM: a GGUF model run by llama.cpp behind an OpenAI-compatible
//! chat-completions endpoint. `callscope serve` and `worker` start it as a sidecar process (the
//! `local` analysis engine) and talk to it like any other endpoint; it can also be run by hand.
//! Structured output is a grammar made from the request's JSON Schema, so every answer parses.

pub mod engine;
pub mod server;

pub use engine::{start, Completion, EngineHandle, EngineSettings, Finish, GenerateError, Generation, Message, TokenLogprob};
pub use server::router;
