//! The route table, and the handlers, one module per resource: `uploads` (uploads and their
//! jobs), `calls` (stored calls), `exports` (calls as files), `search`, `dashboard`, `action_items`, `audio`, `projects`,
//! `categories`, `presets`, `templates`, `rules`, `vocabulary`, `webhooks`, and `ops` (probes).

use axum::extract::DefaultBodyLimit;
use utoipa::OpenApi;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::openapi::ApiDoc;
use crate::{docs, AppState};

pub mod action_items;
pub mod audio;
pub mod calls;
pub mod categories;
pub mod dashboard;
pub mod exports;
pub mod ops;
pub mod presets;
pub mod projects;
pub mod rules;
pub mod search;
pub mod templates;
pub mod uploads;
pub mod vocabulary;
pub mod webhooks;

/// The `/v1` routes, each documented.
pub(crate) fn v1_routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::with_openapi(ApiDoc::openapi())
        .routes(routes!(projects::create_project, projects::list_projects))
        .routes(routes!(projects::get_project, projects::update_project))
        .routes(routes!(categories::get_category_tree, categories::create_category, categories::clear_categories))
        .routes(routes!(categories::get_category, categories::update_category, categories::delete_category))
        .routes(routes!(categories::move_category))
        .routes(routes!(presets::list_presets, presets::create_preset))
        .routes(routes!(presets::get_preset, presets::update_preset, presets::delete_preset))
        .routes(routes!(presets::set_default_preset))
        .routes(routes!(templates::list_templates, templates::create_template))
        .routes(routes!(templates::get_template, templates::replace_template, templates::delete_template))
        .routes(routes!(templates::activate_template))
        .routes(routes!(templates::deactivate_template))
        .routes(routes!(rules::list_rules, rules::create_rule))
        .routes(routes!(rules::get_rule, rules::replace_rule, rules::delete_rule))
        .routes(routes!(vocabulary::get_vocabulary, vocabulary::set_vocabulary))
        .routes(routes!(webhooks::list_webhooks, webhooks::create_webhook))
        .routes(routes!(webhooks::get_webhook, webhooks::delete_webhook))
        .routes(routes!(webhooks::toggle_webhook))
        .routes(routes!(webhooks::list_deliveries))
        .routes(routes!(webhooks::test_webhook))
        .routes(routes!(webhooks::redeliver))
        // The upload enforces its own, much larger limit while it streams.
        .merge(OpenApiRouter::new().routes(routes!(uploads::upload_call)).layer(DefaultBodyLimit::disable()))
        .routes(routes!(uploads::get_job, uploads::delete_job))
        .routes(routes!(calls::list_calls))
        .routes(routes!(exports::export_calls))
        .routes(routes!(search::search_calls))
        .routes(routes!(dashboard::sentiment_dashboard))
        .routes(routes!(dashboard::characteristics_dashboard_route))
        .routes(routes!(calls::get_call, calls::delete_call))
        .routes(routes!(calls::get_call_words))
        .routes(routes!(exports::get_transcript_file))
        .routes(routes!(calls::set_call_category))
        .routes(routes!(calls::rename_speakers))
        .routes(routes!(calls::reanalyze_call))
        .routes(routes!(action_items::list_action_items))
        .routes(routes!(exports::export_action_items))
        .routes(routes!(action_items::responsible_parties))
        .routes(routes!(action_items::pending_action_items))
        .routes(routes!(action_items::get_action_item, action_items::update_action_item, action_items::delete_action_item))
        .routes(routes!(action_items::add_action_item))
        .routes(routes!(action_items::merge_action_item))
        .routes(routes!(audio::get_audio_info))
        .routes(routes!(audio::get_audio_content))
        .routes(routes!(audio::create_audio_link))
}

/// The routes a signed link opens instead of the key (beyond the spec): outside `/v1`, every
/// route of which needs the key (decisions §1).
pub(crate) fn link_routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(audio::get_linked_audio))
}

/// The open operational routes: probes and the API's documents.
pub(crate) fn open_routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(ops::healthz))
        .routes(routes!(ops::readyz))
        .routes(routes!(docs::openapi_json))
        .routes(routes!(docs::docs_page))
}
