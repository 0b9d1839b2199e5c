//! The HTTP interface of callscope (axum): routing, authentication, tenancy checks, the error
//! model of decisions §2, the per-key rate limit and the OpenAPI document generated from the
//! handlers themselves. Handlers translate between JSON views and the domain; all data access
//! goes through [`callscope_store::Store`].

use std::sync::Arc;

use axum::extract::DefaultBodyLimit;
use axum::middleware;
use axum::Router;
use callscope_domain::{Clock, WorkerHealth};
use callscope_search::SearchService;
use callscope_storage::Storage;
use callscope_store::Store;
use tower_http::catch_panic::CatchPanicLayer;

mod audio_link;
mod connection;
mod context;
mod docs;
mod error;
mod extract;
mod openapi;
mod rate_limit;
mod routes;
mod views;

pub use audio_link::AudioLinkSecret;
pub use error::{ApiError, ErrorCode};
pub use openapi::openapi;
pub use rate_limit::{KnownKeys, RateLimiter, TrustedProxies};
pub use routes::uploads::UploadPace;

/// Largest JSON request body accepted (uploads have their own limit).
pub const MAX_JSON_BYTES: usize = 1024 * 1024;

/// Settings of the HTTP layer.
#[derive(Debug, Clone)]
pub struct ApiSettings {
    /// Requests per API key per minute; 0 turns the limit off.
    pub rate_limit_per_minute: u32,
    /// Test only: accept `http://` and loopback webhook targets.
    pub webhooks_allow_private: bool,
    /// Largest accepted upload, in bytes.
    pub max_upload_bytes: u64,
    /// Uploads per API key per minute; 0 turns the limit off.
    pub uploads_per_minute: u32,
    /// What audio links are signed with.
    pub audio_link_secret: AudioLinkSecret,
    /// Requests served at once; past it, 503 with `Retry-After` (0: no cap).
    pub max_requests_in_flight: usize,
    /// The slowest an upload's body may arrive, averaged over `upload_pace_window`.
    pub upload_min_bytes_per_second: u64,
    /// The window the upload's pace is measured over.
    pub upload_pace_window: std::time::Duration,
    /// Reverse proxies whose `X-Forwarded-For` names the client.
    pub trusted_proxies: TrustedProxies,
    /// Time to the answer of a request other than an upload (zero: none).
    pub request_time_limit: std::time::Duration,
}

/// What every handler can reach.
#[derive(Clone)]
pub struct AppState {
    /// The database.
    pub store: Arc<dyn Store>,
    /// The service's clock.
    pub clock: Arc<dyn Clock>,
    /// Per-key request budget.
    pub limiter: Arc<RateLimiter>,
    /// Test only: accept `http://` and loopback webhook targets.
    pub webhooks_allow_private: bool,
    /// Where audio is stored.
    pub storage: Storage,
    /// Per-key upload budget.
    pub upload_limiter: Arc<RateLimiter>,
    /// Keys seen to authenticate, which get budgets of their own; other keys share their address's.
    pub known_keys: Arc<KnownKeys>,
    /// Largest accepted upload, in bytes.
    pub max_upload_bytes: u64,
    /// The search index, in the process that serves search.
    pub search: Option<Arc<SearchService>>,
    /// The in-process workers, when this process runs any: `/readyz` needs one alive.
    pub worker_health: Option<Arc<WorkerHealth>>,
    /// What audio links are signed with.
    pub audio_link_secret: AudioLinkSecret,
    /// Permits of the requests in flight (`None`: no cap).
    pub in_flight: Option<Arc<tokio::sync::Semaphore>>,
    /// The slowest pace an upload's body may keep.
    pub upload_pace: UploadPace,
    /// Reverse proxies whose `X-Forwarded-For` names the client.
    pub trusted_proxies: TrustedProxies,
    /// Time to the answer of a request other than an upload (`None`: no limit).
    pub request_time_limit: Option<std::time::Duration>,
}

impl AppState {
    /// State over a store and an object storage, with the limits from `settings`.
    pub fn new(store: Arc<dyn Store>, storage: Storage, clock: Arc<dyn Clock>, settings: &ApiSettings) -> Self {
        Self {
            store,
            clock,
            limiter: Arc::new(RateLimiter::per_minute(settings.rate_limit_per_minute)),
            upload_limiter: Arc::new(RateLimiter::per_minute(settings.uploads_per_minute)),
            known_keys: Arc::default(),
            webhooks_allow_private: settings.webhooks_allow_private,
            storage,
            max_upload_bytes: settings.max_upload_bytes,
            search: None,
            worker_health: None,
            audio_link_secret: settings.audio_link_secret.clone(),
            in_flight: (settings.max_requests_in_flight > 0).then(|| Arc::new(tokio::sync::Semaphore::new(settings.max_requests_in_flight))),
            trusted_proxies: settings.trusted_proxies.clone(),
            request_time_limit: Some(settings.request_time_limit).filter(|d| !d.is_zero()),
            upload_pace: UploadPace { min_bytes_per_second: settings.upload_min_bytes_per_second, window: settings.upload_pace_window },
        }
    }

    /// The same state, ready only while one of the workers `health` counts is alive.
    #[must_use]
    pub fn with_worker_health(mut self, health: Arc<WorkerHealth>) -> Self {
        self.worker_health = Some(health);
        self
    }

    /// The same state, serving search from `search`.
    #[must_use]
    pub fn with_search(mut self, search: Arc<SearchService>) -> Self {
        self.search = Some(search);
        self
    }
}

/// The whole HTTP application: `/v1` behind the key and the rate limit, the open operational
/// routes (`/healthz`, `/readyz`, `/openapi.json`, `/docs`), and `pages` (the web application)
/// served beside them with the same request ids, logging and error format.
pub fn router(state: AppState, pages: Router<AppState>) -> Router {
    let (v1, _) = routes::v1_routes().split_for_parts();
    let (open, _) = routes::open_routes().split_for_parts();
    let (links, _) = routes::link_routes().split_for_parts();
    let v1 = v1.layer(middleware::from_fn_with_state(state.clone(), rate_limit::enforce));
    let links = links.layer(middleware::from_fn_with_state(state.clone(), rate_limit::enforce_by_address));
    Router::new()
        .merge(v1)
        .merge(links)
        .merge(open)
        .merge(pages)
        .fallback(error::route_not_found)
        .method_not_allowed_fallback(error::method_not_allowed)
        .layer(DefaultBodyLimit::max(MAX_JSON_BYTES))
        // Inside the request context, so a panic's 500 still carries the request id.
        .layer(CatchPanicLayer::custom(error::panic_response))
        .layer(middleware::from_fn_with_state(state.clone(), connection::limit_time))
        .layer(middleware::from_fn_with_state(state.clone(), connection::cap_in_flight))
        .layer(middleware::from_fn(connection::announce_close_on_unread_body))
        .layer(middleware::from_fn(context::observe))
        .with_state(state)
}
