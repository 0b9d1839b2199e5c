//! Black-box tests of the HTTP API: a real server on a loopback port, a real database per test
//! (SQLite and PostgreSQL), requests over HTTP.

#[macro_use]
extern crate callscope_store;

mod helpers;

mod action_items;
mod analysis;
mod audio;
mod auth;
mod calls;
mod categories;
mod characteristics;
mod errors;
mod exports;
mod hostile;
mod llm;
mod openapi;
mod ops;
mod pii;
mod presets;
mod processing;
mod projects;
mod rules;
mod search;
mod speakers;
mod templates;
mod tenancy;
mod uploads;
mod vocabulary;
mod web;
mod webhooks;
