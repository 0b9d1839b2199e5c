//! The web application people use every day: one page (`/`) and its scripts and styles
//! (`/app/…`), all compiled into the binary, that talks to the API under `/v1` with the API key
//! the person signs in with. The page keeps the key in the tab's session storage only: never in
//! a URL, a cookie or a log.
//!
//! Every response carries a Content-Security-Policy that allows scripts, styles and requests
//! from this origin only (no inline script, no framing), so markup that reaches a transcript, a
//! file name or a snippet can never run; the scripts also only ever set text, never HTML.

use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;

/// What the page may load: its own scripts, styles, images, the API, and the recording, which
/// the player streams from this origin through a short-lived audio link.
pub const CONTENT_SECURITY_POLICY: &str = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; \
     media-src 'self'; connect-src 'self'; font-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/// The assets, by the name they are served under.
const ASSETS: &[(&str, &str, &str)] = &[
    ("app.js", "text/javascript; charset=utf-8", include_str!("../assets/app.js")),
    ("api.js", "text/javascript; charset=utf-8", include_str!("../assets/api.js")),
    ("i18n.js", "text/javascript; charset=utf-8", include_str!("../assets/i18n.js")),
    ("dom.js", "text/javascript; charset=utf-8", include_str!("../assets/dom.js")),
    ("call.js", "text/javascript; charset=utf-8", include_str!("../assets/call.js")),
    ("player.js", "text/javascript; charset=utf-8", include_str!("../assets/player.js")),
    ("transcript.js", "text/javascript; charset=utf-8", include_str!("../assets/transcript.js")),
    ("call-panel.js", "text/javascript; charset=utf-8", include_str!("../assets/call-panel.js")),
    ("characteristics.js", "text/javascript; charset=utf-8", include_str!("../assets/characteristics.js")),
    ("rules.js", "text/javascript; charset=utf-8", include_str!("../assets/rules.js")),
    ("vocabulary.js", "text/javascript; charset=utf-8", include_str!("../assets/vocabulary.js")),
    ("items.js", "text/javascript; charset=utf-8", include_str!("../assets/items.js")),
    ("dashboard.js", "text/javascript; charset=utf-8", include_str!("../assets/dashboard.js")),
    ("settings.js", "text/javascript; charset=utf-8", include_str!("../assets/settings.js")),
    ("calls.js", "text/javascript; charset=utf-8", include_str!("../assets/calls.js")),
    ("uploads.js", "text/javascript; charset=utf-8", include_str!("../assets/uploads.js")),
    ("board.js", "text/javascript; charset=utf-8", include_str!("../assets/board.js")),
    ("app.css", "text/css; charset=utf-8", include_str!("../assets/app.css")),
    ("icon.svg", "image/svg+xml", include_str!("../assets/icon.svg")),
];

const INDEX: &str = include_str!("../assets/index.html");

/// The application's routes: `/` and one `/app/{name}` per asset. They need no state, so they
/// merge into any router; a name that is no asset matches no route, and so gets the merging
/// router's own 404.
pub fn router<S: Clone + Send + Sync + 'static>() -> Router<S> {
    let page_route = Router::new().route("/", get(|| async { page(StatusCode::OK, "text/html; charset=utf-8", INDEX) }));
    ASSETS.iter().fold(page_route, |routes, &(name, content_type, body)| {
        routes.route(&format!("/app/{name}"), get(move || async move { page(StatusCode::OK, content_type, body) }))
    })
}

/// A response with the headers every page and asset carries.
fn page(status: StatusCode, content_type: &'static str, body: &'static str) -> Response {
    let mut response = (status, body).into_response();
    let headers = response.headers_mut();
    headers.insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
    headers.insert(header::CONTENT_SECURITY_POLICY, HeaderValue::from_static(CONTENT_SECURITY_POLICY));
    headers.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    headers.insert(header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    headers.insert(header::REFERRER_POLICY, HeaderValue::from_static("no-referrer"));
    // A new binary may bring new assets: the browser asks again, and gets them when they changed.
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    response
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::body::Body;
    use axum::http::Request;
    use tower::ServiceExt;

    async fn get_path(path: &str) -> Response {
        router::<()>().oneshot(Request::get(path).body(Body::empty()).unwrap()).await.unwrap()
    }

    #[tokio::test]
    async fn the_page_and_its_assets_are_served_with_their_types_and_a_strict_policy() {
        let page = get_path("/").await;
        assert_eq!(page.status(), 200);
        assert_eq!(page.headers()[header::CONTENT_TYPE], "text/html; charset=utf-8");
        assert_eq!(page.headers()[header::X_FRAME_OPTIONS], "DENY");
        let policy = page.headers()[header::CONTENT_SECURITY_POLICY].to_str().unwrap().to_owned();
        assert!(policy.contains("script-src 'self';") && policy.contains("frame-ancestors 'none'"), "{policy}");
        assert!(!policy.contains("unsafe-inline") && !policy.contains("unsafe-eval"), "{policy}");
        for (name, content_type, _) in ASSETS {
            let asset = get_path(&format!("/app/{name}")).await;
            assert_eq!(asset.status(), 200, "{name}");
            assert_eq!(asset.headers()[header::CONTENT_TYPE], *content_type, "{name}");
            assert!(asset.headers().contains_key(header::CONTENT_SECURITY_POLICY), "{name}");
        }
        assert_eq!(get_path("/app/nope.js").await.status(), 404);
    }

    #[test]
    fn the_page_has_no_inline_script_or_style_and_loads_only_its_own_assets() {
        assert!(!INDEX.contains("<script>") && !INDEX.contains("style="), "the policy would block them");
        for reference in INDEX.split(['"', '\'']).filter(|s| s.starts_with("/app/")) {
            let name = reference.trim_start_matches("/app/");
            assert!(ASSETS.iter().any(|(n, _, _)| *n == name), "{reference} is served");
        }
        for (name, _, body) in ASSETS.iter().filter(|(n, _, _)| n.ends_with(".js")) {
            assert!(!body.contains("innerHTML") && !body.contains("insertAdjacentHTML") && !body.contains("eval("), "{name} sets text only");
            // Every module a screen imports is served too.
            for imported in body.split("from \"/app/").skip(1).filter_map(|rest| rest.split('"').next()) {
                assert!(ASSETS.iter().any(|(n, _, _)| *n == imported), "{name} imports /app/{imported}, which is not served");
            }
        }
    }
}
