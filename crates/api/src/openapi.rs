//! The OpenAPI 3.1 document, generated from the handlers' annotations and the route table in
//! [`crate::routes`] (registered through `utoipa_axum`'s `routes!`, so a route cannot be served
//! without being documented).

use utoipa::openapi::security::{ApiKey, ApiKeyValue, SecurityRequirement, SecurityScheme};
use utoipa::OpenApi;

use crate::error::{ErrorCode, FieldErrorView, Problem};

use crate::routes::{link_routes, open_routes, v1_routes};

#[derive(OpenApi)]
#[openapi(
    info(
        title = "callscope",
        description = "Self-hosted call analytics: upload recorded calls, get transcripts, speakers, \
PII statistics, classification, summaries, action items and search.\n\n\
Every `/v1` route needs an organization key in `X-API-Key`. Outside `/v1`, `GET /audio/{token}` serves \
a call's audio to whoever holds an audio link made with a key (for players that cannot send the header). Errors are RFC 9457 \
`application/problem+json` bodies with a stable `code`; every response carries `X-Request-Id`. \
Timestamps are RFC 3339 UTC with milliseconds; absent values are `null`. Requests are limited \
per key, and by the client's address for requests without one (429 `rate_limited` with `Retry-After`).",
        license(name = "Apache-2.0"),
    ),
    modifiers(&KeyAuth, &PiiTypes),
    components(schemas(Problem, ErrorCode, FieldErrorView)),
    tags(
        (name = "Projects", description = "Projects group calls, categories, templates, presets and webhooks."),
        (name = "Calls", description = "Uploads, their processing jobs, and the resulting calls."),
        (name = "Categories", description = "The project's category tree, into which calls are classified."),
        (name = "Speaker presets", description = "Named speaker lists; the default one names the speakers of new calls."),
        (name = "Analysis templates", description = "The project's own questions, answered for every call while active."),
        (name = "Rules", description = "The project's own filing of calls under labels, by what was said, by whom and when, pauses, \
            interruptions, sentiment, categories and personal data (beyond the spec)."),
        (name = "Webhooks", description = "Signed event deliveries to public HTTPS endpoints."),
        (name = "Dashboard", description = "Aggregates over the project's calls."),
        (name = "Action items", description = "Tasks found in calls: filtered, sorted, edited, closed."),
        (name = "Operations", description = "Probes and this document; no key needed."),
    )
)]
pub(crate) struct ApiDoc;

/// Declares the `X-API-Key` scheme and requires it everywhere unless a route says otherwise.
struct KeyAuth;

impl utoipa::Modify for KeyAuth {
    fn modify(&self, doc: &mut utoipa::openapi::OpenApi) {
        let components = doc.components.get_or_insert_with(Default::default);
        components.add_security_scheme(
            "apiKey",
            SecurityScheme::ApiKey(ApiKey::Header(ApiKeyValue::with_description(
                "X-API-Key",
                "Organization API key (`csk_` + 43 base62 characters)",
            ))),
        );
        doc.security = Some(vec![SecurityRequirement::new("apiKey", Vec::<String>::new())]);
    }
}

/// The PII type names, as a call's `piiStatistics.types` and masked text (`[PHONE_NUMBER]`)
/// use them.
struct PiiTypes;

impl utoipa::Modify for PiiTypes {
    fn modify(&self, doc: &mut utoipa::openapi::OpenApi) {
        let mut section = String::from(
            "\n\n## PII types\n\nA call's `piiStatistics.types` counts detections under these names; with a \
project's `piiRedaction: mask` the stored transcript shows `[NAME]` in place of each value.\n",
        );
        for kind in callscope_pii::PiiType::ALL {
            section.push_str(&format!("\n- `{}`: {}", kind.as_str(), kind.description()));
        }
        let description = doc.info.description.get_or_insert_with(String::new);
        description.push_str(&section);
    }
}

/// The whole document, as served at `/openapi.json`.
pub fn openapi() -> utoipa::openapi::OpenApi {
    let (_, mut doc) = v1_routes().split_for_parts();
    doc.merge(link_routes().split_for_parts().1);
    doc.merge(open_routes().split_for_parts().1);
    declare_problem_media_type(&mut doc);
    document_common_errors(&mut doc);
    doc
}

/// What the `{id}` of a project-scoped path names, from the collection before it: the table that
/// words every such route's 404.
fn resource_of_id(path: &str) -> Option<&'static str> {
    const RESOURCES: [(&str, &str); 8] = [
        ("action-items", "action item"),
        ("analysis-templates", "template"),
        ("calls", "call"),
        ("categories", "category"),
        ("jobs", "job"),
        ("rules", "rule"),
        ("speaker-presets", "preset"),
        ("webhooks", "webhook"),
    ];
    let collection = path.strip_prefix("/v1/projects/{projectId}/")?.split("/{id}").next().filter(|_| path.contains("/{id}"))?;
    RESOURCES.iter().find(|(name, _)| *name == collection).map(|(_, resource)| *resource)
}

/// The errors a route gives by what it is, whatever its handler does: the key and the rate
/// limit of every `/v1` route, the project of every project-scoped one, a JSON body's parse and
/// size, a query's types, and the database or time limit of every route that reads the store.
/// They are added here, by rule, where an annotation does not say more (most did not say them
/// at all), so that no route can leave one out.
fn document_common_errors(doc: &mut utoipa::openapi::OpenApi) {
    use utoipa::openapi::path::ParameterIn;
    use utoipa::openapi::{Content, Ref, RefOr, ResponseBuilder};
    let problem = |description: String| {
        RefOr::T(
            ResponseBuilder::new()
                .description(description)
                .content("application/problem+json", Content::new(Some(Ref::from_schema_name("Problem"))))
                .build(),
        )
    };
    for (path, item) in doc.paths.paths.iter_mut() {
        let operations = [&mut item.get, &mut item.post, &mut item.put, &mut item.patch, &mut item.delete];
        for operation in operations.into_iter().flatten() {
            let json_body = operation.request_body.as_ref().is_some_and(|b| b.content.contains_key("application/json"));
            let query = operation.parameters.iter().flatten().any(|p| matches!(p.parameter_in, ParameterIn::Query));
            let mut common: Vec<(&str, String)> = Vec::new();
            if path.starts_with("/v1") {
                common.push(("401", "`unauthorized`: the `X-API-Key` header is missing, unknown or revoked".into()));
                common.push(("429", "`rate_limited`: the key's requests per minute are spent; `Retry-After` says when to try again".into()));
            } else if path.starts_with("/audio") {
                common
                    .push(("429", "`rate_limited`: the client address's requests per minute are spent; `Retry-After` says when to try again".into()));
            }
            if let Some(resource) = resource_of_id(path) {
                common.push(("404", format!("`not_found`: no such project in the key's organization, or no such {resource} in it")));
            } else if path.contains("{projectId}") {
                common.push(("404", "`not_found`: no such project in the key's organization".into()));
            }
            if json_body {
                common.push(("400", "`bad_request`: the body is not valid JSON".into()));
                common.push(("413", format!("`payload_too_large`: JSON bodies are limited to {} bytes", crate::MAX_JSON_BYTES)));
                common.push(("415", "`unsupported_media_type`: the body is not `application/json`".into()));
            } else if query {
                common.push(("400", "`bad_request`: a query parameter of the wrong type".into()));
            }
            if path.starts_with("/v1") || path.starts_with("/audio") {
                common.push(("503", "`unavailable`: the database is unavailable, the server is handling as many requests as it allows, or the request was not answered within its time limit; `Retry-After` says when to try again".into()));
            }
            for (status, description) in common {
                operation.responses.responses.entry(status.to_owned()).or_insert_with(|| problem(description));
            }
        }
    }
}

/// Error answers are `application/problem+json`; the annotations name only their schema.
fn declare_problem_media_type(doc: &mut utoipa::openapi::OpenApi) {
    use utoipa::openapi::RefOr;
    for item in doc.paths.paths.values_mut() {
        let operations = [&mut item.get, &mut item.post, &mut item.put, &mut item.patch, &mut item.delete];
        for operation in operations.into_iter().flatten() {
            for (status, response) in operation.responses.responses.iter_mut() {
                let is_error = status.starts_with('4') || status.starts_with('5');
                if let (true, RefOr::T(response)) = (is_error, response) {
                    if let Some(content) = response.content.shift_remove("application/json") {
                        response.content.insert("application/problem+json".into(), content);
                    }
                }
            }
        }
    }
}
