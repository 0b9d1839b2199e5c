//! Webhook registration (decisions §9). Delivery happens elsewhere; this checks where events may
//! go: `https://` only, and a host whose every address is public unicast.

use std::net::IpAddr;
use std::time::Duration;

use axum::extract::State;
use axum::http::StatusCode;
use axum::Json;
use callscope_domain::WebhookDelivery;
use callscope_domain::{generate_secret, is_public_ip, parse_events, Timestamp, Webhook, WebhookDeliveryId, WebhookId, WEBHOOK_URL_MAX};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use uuid::Uuid;

use crate::error::Problem;
use crate::extract::{ApiJson, ApiPath, ApiQuery, InProject, ProjectPath, ProjectScope};
use crate::views::{rfc3339, Located, Stamps};
use crate::{ApiError, AppState};

/// How long a registration waits for the host name to resolve.
const RESOLVE_TIMEOUT: Duration = Duration::from_secs(5);

/// A webhook, without its secret.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct WebhookView {
    /// The webhook's id.
    pub id: Uuid,
    /// Target URL.
    #[schema(example = "https://crm.example.com/hooks/callscope")]
    pub url: String,
    /// Subscribed events, or `["*"]`.
    #[schema(example = json!(["call.completed", "action_item.created"]))]
    pub events: Vec<String>,
    /// False while paused.
    pub active: bool,
    /// When it was made and when it last changed.
    #[serde(flatten)]
    pub stamps: Stamps,
}

impl From<Webhook> for WebhookView {
    fn from(w: Webhook) -> Self {
        Self { id: w.id.0, url: w.url, events: w.events, active: w.active, stamps: Stamps::new(w.created_at, w.updated_at) }
    }
}

/// A newly registered webhook: the only answer that carries the signing secret.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CreatedWebhookView {
    /// The webhook.
    #[serde(flatten)]
    pub webhook: WebhookView,
    /// Signing secret (`whsec_` + base64 of 32 bytes), shown only here. Deliveries carry
    /// Standard Webhooks signatures made with it.
    pub secret: String,
}

/// Body of a webhook registration.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(example = json!({"url": "https://crm.example.com/hooks/callscope", "events": ["call.completed"]}))]
pub struct CreateWebhookRequest {
    /// Public `https://` URL, at most 2048 characters.
    pub url: String,
    /// Event names (`call.completed`, `call.failed`, `call.category_changed`,
    /// `action_item.created`, `action_item.updated`, `action_item.deleted`) or `*`.
    pub events: Vec<String>,
}

/// Checks a webhook URL; returns it normalised.
async fn check_url(raw: &str, allow_private: bool) -> Result<String, ApiError> {
    let invalid = |message: String| ApiError::invalid("url", message);
    let raw = raw.trim();
    if raw.chars().count() > WEBHOOK_URL_MAX {
        return Err(invalid(format!("must be at most {WEBHOOK_URL_MAX} characters")));
    }
    let url = url::Url::parse(raw).map_err(|e| invalid(format!("is not an absolute URL ({e})")))?;
    match url.scheme() {
        "https" => {}
        "http" if allow_private => {}
        _ => return Err(invalid("must start with https://".into())),
    }
    if !url.username().is_empty() || url.password().is_some() {
        return Err(invalid("must not contain credentials".into()));
    }
    let port = url.port_or_known_default().unwrap_or(443);
    let addresses: Vec<IpAddr> = match url.host() {
        Some(url::Host::Ipv4(ip)) => vec![IpAddr::V4(ip)],
        Some(url::Host::Ipv6(ip)) => vec![IpAddr::V6(ip)],
        Some(url::Host::Domain(name)) => {
            let lookup = tokio::time::timeout(RESOLVE_TIMEOUT, tokio::net::lookup_host((name, port))).await;
            match lookup {
                Ok(Ok(found)) => found.map(|a| a.ip()).collect(),
                Ok(Err(_)) => return Err(invalid(format!("host {name} does not resolve"))),
                Err(_) => return Err(invalid(format!("host {name} did not resolve within 5 s"))),
            }
        }
        None => return Err(invalid("must name a host".into())),
    };
    if addresses.is_empty() {
        return Err(invalid("host has no addresses".into()));
    }
    for ip in addresses {
        if !(is_public_ip(ip) || allow_private && ip.is_loopback()) {
            return Err(invalid(format!("resolves to {ip}, which is not a public address")));
        }
    }
    Ok(url.into())
}

/// Register a webhook.
#[utoipa::path(post, path = "/v1/projects/{projectId}/webhooks", tag = "Webhooks", params(ProjectPath),
    request_body = CreateWebhookRequest,
    responses(
        (status = 201, description = "The webhook with its secret (shown only now)", body = CreatedWebhookView, headers(("Location" = String, description = "Path of the new webhook"))),
        (status = 422, description = "Not a public https URL, or an unknown event", body = Problem)))]
pub async fn create_webhook(
    State(state): State<AppState>,
    scope: ProjectScope,
    ApiJson(body): ApiJson<CreateWebhookRequest>,
) -> Result<Located<CreatedWebhookView>, ApiError> {
    let events = parse_events(&body.events);
    let url = check_url(&body.url, state.webhooks_allow_private).await;
    let (url, events) = match (url, events) {
        (Ok(url), Ok(events)) => (url, events),
        (Err(ApiError::Validation(mut a)), Err(b)) => {
            a.0.extend(b.0);
            return Err(ApiError::Validation(a));
        }
        (Err(e), _) => return Err(e),
        (_, Err(e)) => return Err(e.into()),
    };
    let secret = generate_secret();
    let webhook = state.store.create_webhook(scope.id(), &url, &events, &secret).await?;
    let location = format!("/v1/projects/{}/webhooks/{}", scope.id(), webhook.id);
    let view = CreatedWebhookView { webhook: webhook.into(), secret };
    Ok(Located::created(location, view))
}

/// List the project's webhooks (without secrets).
#[utoipa::path(get, path = "/v1/projects/{projectId}/webhooks", tag = "Webhooks", params(ProjectPath),
    responses((status = 200, description = "Webhooks, oldest first", body = [WebhookView])))]
pub async fn list_webhooks(State(state): State<AppState>, scope: ProjectScope) -> Result<Json<Vec<WebhookView>>, ApiError> {
    Ok(Json(state.store.list_webhooks(scope.id()).await?.into_iter().map(Into::into).collect()))
}

/// Get one webhook (without its secret).
#[utoipa::path(get, path = "/v1/projects/{projectId}/webhooks/{id}", tag = "Webhooks",
    params(ProjectPath, ("id" = Uuid, Path, description = "The webhook")),
    responses((status = 200, description = "The webhook", body = WebhookView)))]
pub async fn get_webhook(State(state): State<AppState>, InProject { scope, id }: InProject<WebhookId>) -> Result<Json<WebhookView>, ApiError> {
    let webhooks = state.store.list_webhooks(scope.id()).await?;
    let webhook = webhooks.into_iter().find(|w| w.id == id).ok_or_else(|| ApiError::not_found("webhook"))?;
    Ok(Json(webhook.into()))
}

/// Pause an active webhook or resume a paused one.
#[utoipa::path(patch, path = "/v1/projects/{projectId}/webhooks/{id}/toggle", tag = "Webhooks",
    params(ProjectPath, ("id" = Uuid, Path, description = "The webhook")),
    responses((status = 200, description = "The webhook with its new state", body = WebhookView)))]
pub async fn toggle_webhook(State(state): State<AppState>, InProject { scope, id }: InProject<WebhookId>) -> Result<Json<WebhookView>, ApiError> {
    Ok(Json(state.store.toggle_webhook(scope.id(), id).await?.into()))
}

/// Delete a webhook.
#[utoipa::path(delete, path = "/v1/projects/{projectId}/webhooks/{id}", tag = "Webhooks",
    params(ProjectPath, ("id" = Uuid, Path, description = "The webhook")),
    responses((status = 204, description = "Deleted")))]
pub async fn delete_webhook(State(state): State<AppState>, InProject { scope, id }: InProject<WebhookId>) -> Result<StatusCode, ApiError> {
    state.store.delete_webhook(scope.id(), id).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// One event's delivery to the webhook: where it stands and why its last attempt failed.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct WebhookDeliveryView {
    /// The delivery's id.
    pub id: Uuid,
    /// The event's id (also the `webhook-id` header of every attempt).
    pub event_id: Uuid,
    /// The event's type.
    #[schema(example = "call.completed")]
    pub event_type: String,
    /// `PENDING` (no attempt yet, or sent again), `RETRYING` (failed, will try again),
    /// `SUCCEEDED` (a 2xx answer), `FAILED` (gave up).
    #[schema(example = "RETRYING")]
    pub status: String,
    /// Attempts made.
    pub attempts: i32,
    /// HTTP status of the last attempt, when there was an answer.
    #[schema(example = 500)]
    pub response_code: Option<i32>,
    /// Why the last attempt failed, in words.
    #[schema(example = "HTTP 500")]
    pub error_message: Option<String>,
    /// When the last attempt was made.
    #[serde(serialize_with = "callscope_domain::rfc3339_millis_opt")]
    #[schema(value_type = Option<String>, format = DateTime)]
    pub last_attempt_at: Option<Timestamp>,
    /// When the next attempt is due (`PENDING` and `RETRYING`).
    #[serde(serialize_with = "callscope_domain::rfc3339_millis_opt")]
    #[schema(value_type = Option<String>, format = DateTime)]
    pub next_attempt_at: Option<Timestamp>,
    /// When the delivery was made (when the event happened).
    #[serde(serialize_with = "rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    pub created_at: Timestamp,
}

impl From<WebhookDelivery> for WebhookDeliveryView {
    fn from(d: WebhookDelivery) -> Self {
        Self {
            id: d.id.0,
            event_id: d.event_id,
            event_type: d.event_type,
            status: d.status.as_str().to_owned(),
            attempts: d.attempts,
            response_code: d.response_code,
            error_message: d.error_message,
            last_attempt_at: d.last_attempt_at,
            next_attempt_at: d.next_attempt_at,
            created_at: d.created_at,
        }
    }
}

/// How many deliveries the log returns.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct DeliveriesQuery {
    /// At most this many, 1–1000 (default 100).
    pub limit: Option<i64>,
}

/// Default and largest `limit` of the deliveries log.
const DELIVERIES_DEFAULT: u32 = 100;
const DELIVERIES_MAX: u32 = 1000;

/// The webhook's deliveries, most recent first.
#[utoipa::path(get, path = "/v1/projects/{projectId}/webhooks/{id}/deliveries", tag = "Webhooks",
    params(ProjectPath, ("id" = Uuid, Path, description = "The webhook"), DeliveriesQuery),
    responses((status = 200, description = "Deliveries, most recent first (a JSON array, not an envelope)", body = [WebhookDeliveryView]),
        (status = 400, description = "A limit that is not a number", body = Problem),
        (status = 422, description = "A limit outside 1–1000", body = Problem)))]
pub async fn list_deliveries(
    State(state): State<AppState>,
    InProject { scope, id }: InProject<WebhookId>,
    ApiQuery(query): ApiQuery<DeliveriesQuery>,
) -> Result<Json<Vec<WebhookDeliveryView>>, ApiError> {
    let limit = match query.limit {
        None => DELIVERIES_DEFAULT,
        Some(n) => u32::try_from(n)
            .ok()
            .filter(|n| (1..=DELIVERIES_MAX).contains(n))
            .ok_or_else(|| ApiError::invalid("limit", format!("must be between 1 and {DELIVERIES_MAX}")))?,
    };
    let deliveries = state.store.list_deliveries(scope.id(), id, limit).await?;
    Ok(Json(deliveries.into_iter().map(Into::into).collect()))
}

/// Send a `webhook.test` event to this webhook now, even when it is paused or not subscribed
/// to it (`webhook.test` cannot be subscribed to).
#[utoipa::path(post, path = "/v1/projects/{projectId}/webhooks/{id}/test", tag = "Webhooks",
    params(ProjectPath, ("id" = Uuid, Path, description = "The webhook")),
    responses((status = 202, description = "The test delivery, queued; the deliveries log shows how it went", body = WebhookDeliveryView)))]
pub async fn test_webhook(
    State(state): State<AppState>,
    InProject { scope, id }: InProject<WebhookId>,
) -> Result<(StatusCode, Json<WebhookDeliveryView>), ApiError> {
    let data = serde_json::json!({"webhookId": id, "message": "A test event from callscope: this webhook is reachable."});
    let delivery = state.store.create_test_delivery(scope.id(), id, &data).await?;
    Ok((StatusCode::ACCEPTED, Json(delivery.into())))
}

/// The path of one delivery.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DeliveryPath {
    /// The webhook.
    pub id: WebhookId,
    /// The delivery.
    pub delivery_id: WebhookDeliveryId,
}

/// Send a delivery again, whatever its status: it goes back to `PENDING`, due now, with the
/// retry schedule from the start; `attempts` keeps counting.
#[utoipa::path(post, path = "/v1/projects/{projectId}/webhooks/{id}/deliveries/{deliveryId}/redeliver", tag = "Webhooks",
    params(
        ("projectId" = Uuid, Path, description = "The project"),
        ("id" = Uuid, Path, description = "The webhook"),
        ("deliveryId" = Uuid, Path, description = "The delivery"),
    ),
    responses((status = 202, description = "The delivery, queued again", body = WebhookDeliveryView),
        (status = 404, description = "No such project, webhook or delivery of this webhook", body = Problem)))]
pub async fn redeliver(
    State(state): State<AppState>,
    scope: ProjectScope,
    ApiPath(path): ApiPath<DeliveryPath>,
) -> Result<(StatusCode, Json<WebhookDeliveryView>), ApiError> {
    let delivery = state.store.redeliver(scope.id(), path.id, path.delivery_id).await?;
    Ok((StatusCode::ACCEPTED, Json(delivery.into())))
}
