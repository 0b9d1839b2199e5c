//! Black-box tests of the HTTP API: a real server on a loopback port, a real database per test
//! (SQLite and PostgreSQL), requests over HTTP.

#[macro_use]
extern crate callscope_store;

mod helpers;

mod audio;
mod calls;
mod auth;
mod categories;
mod errors;
mod openapi;
mod ops;
mod presets;
mod action_items;
mod analysis;
mod llm;
mod pii;
mod processing;
mod projects;
mod search;
mod templates;
mod uploads;
mod tenancy;
mod webhooks;
