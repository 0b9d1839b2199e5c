//! Keeping clients' connections honest, and the server's load bounded.
//!
//! Requests in flight are capped: past the cap a request is answered 503 with `Retry-After` at
//! once, instead of queueing without end (the probes are always answered).
//!
//! A request answered before its body was read (an upload refused for its first bytes, its
//! declared size, its key or its rate) leaves the rest of the body on the connection, and the
//! server closes it after the answer. Clients that keep connections alive (httpx, requests,
//! browsers) then send their next request on a connection that is already gone, and fail with
//! "server disconnected without sending a response". Saying `Connection: close` on such an
//! answer lets them open a new one instead.

use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll};

use axum::body::{Body, Bytes};
use axum::extract::{Request, State};
use axum::http::header::{CONNECTION, CONTENT_LENGTH, TRANSFER_ENCODING};
use axum::http::HeaderValue;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use http_body::{Frame, SizeHint};

/// Middleware: holds a permit of `state.in_flight` for the request, or answers 503 with
/// `Retry-After` when none is left. The probes pass uncounted, so an overloaded process still
/// says it is alive.
pub async fn cap_in_flight(State(state): State<crate::AppState>, request: Request, next: Next) -> Response {
    let Some(cap) = state.in_flight.clone() else { return next.run(request).await };
    if matches!(request.uri().path(), "/healthz" | "/readyz") {
        return next.run(request).await;
    }
    match cap.try_acquire_owned() {
        Ok(permit) => {
            let response = next.run(request).await;
            drop(permit);
            response
        }
        Err(_) => crate::ApiError::Busy("the server is handling as many requests as it allows; try again shortly".into()).into_response(),
    }
}

/// Middleware: a request that has not been answered within `state.request_time_limit` gets 503
/// with `Retry-After` (its work is dropped, a database transaction rolled back). Uploads are
/// held to their pace instead (their time grows with their size), and what is streamed after the
/// answer (audio) is not counted: the limit is on the time to the answer.
pub async fn limit_time(State(state): State<crate::AppState>, request: Request, next: Next) -> Response {
    let Some(limit) = state.request_time_limit else { return next.run(request).await };
    if request.uri().path().ends_with("/calls/upload") {
        return next.run(request).await;
    }
    match tokio::time::timeout(limit, next.run(request)).await {
        Ok(response) => response,
        Err(_) => {
            tracing::warn!(limit_s = limit.as_secs_f64(), "a request ran past its time limit");
            crate::ApiError::Busy(format!("the request was not answered within {} s; try again shortly", limit.as_secs())).into_response()
        }
    }
}

/// Middleware: announces `Connection: close` on an answer given before its request's body was
/// read to the end.
pub async fn announce_close_on_unread_body(request: Request, next: Next) -> Response {
    let headers = request.headers();
    let has_body = headers.contains_key(TRANSFER_ENCODING)
        || headers.get(CONTENT_LENGTH).and_then(|v| v.to_str().ok()?.parse::<u64>().ok()).is_some_and(|n| n > 0);
    if !has_body {
        return next.run(request).await;
    }
    let finished = Arc::new(AtomicBool::new(false));
    let (parts, body) = request.into_parts();
    let body = Body::new(EndWatch { inner: body, finished: finished.clone() });
    let mut response = next.run(Request::from_parts(parts, body)).await;
    if !finished.load(Ordering::Acquire) {
        response.headers_mut().insert(CONNECTION, HeaderValue::from_static("close"));
    }
    response
}

/// A body that notes when it has been read to its end.
struct EndWatch {
    inner: Body,
    finished: Arc<AtomicBool>,
}

impl http_body::Body for EndWatch {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Result<Frame<Bytes>, axum::Error>>> {
        let polled = Pin::new(&mut self.inner).poll_frame(cx);
        // A reader that stops at the end of what it expects (a multipart parser at its closing
        // boundary) may never ask for the end itself: a body of known length says it is done.
        if matches!(polled, Poll::Ready(None)) || self.inner.is_end_stream() {
            self.finished.store(true, Ordering::Release);
        }
        polled
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}
