//! A real HTTPS webhook receiver for tests: listens on loopback with a certificate made on the
//! spot (signed by a CA made on the spot, which the sender is told to trust through its
//! test-only settings), answers as scripted, and records what it got. [`verify_independently`]
//! checks recorded deliveries with the `standardwebhooks` package from PyPI.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper::{Request, Response};
use hyper_util::rt::TokioIo;
use rustls::pki_types::{PrivateKeyDer, PrivatePkcs8KeyDer};

/// How the receiver answers one request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reply {
    /// This HTTP status, at once.
    Status(u16),
    /// 200, after this long.
    Slow(Duration),
    /// 302 to this location.
    Redirect(String),
}

/// One request the receiver got.
#[derive(Debug, Clone)]
pub struct Received {
    pub method: String,
    pub path: String,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Received {
    /// A header's value.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(k, _)| k.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
    }

    /// The body as JSON.
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_slice(&self.body).expect("the body is JSON")
    }
}

#[derive(Default)]
struct Shared {
    script: Mutex<VecDeque<Reply>>,
    received: Mutex<Vec<Received>>,
}

/// An HTTPS server on 127.0.0.1 whose certificate names `localhost`, `receiver.test` and
/// 127.0.0.1.
pub struct Receiver {
    port: u16,
    ca_pem: String,
    shared: Arc<Shared>,
    task: tokio::task::JoinHandle<()>,
}

impl Receiver {
    /// Starts a receiver that answers 200 unless told otherwise.
    pub async fn start() -> Self {
        let ca_key = rcgen::KeyPair::generate().expect("CA key");
        let mut ca_params = rcgen::CertificateParams::new(Vec::<String>::new()).expect("CA parameters");
        ca_params.is_ca = rcgen::IsCa::Ca(rcgen::BasicConstraints::Unconstrained);
        ca_params.distinguished_name.push(rcgen::DnType::CommonName, "callscope test CA");
        let ca = ca_params.self_signed(&ca_key).expect("CA certificate");
        let key = rcgen::KeyPair::generate().expect("server key");
        let params = rcgen::CertificateParams::new(vec!["localhost".to_owned(), "receiver.test".to_owned(), "127.0.0.1".to_owned()])
            .expect("server parameters");
        let cert = params.signed_by(&key, &ca, &ca_key).expect("server certificate");

        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let config = rustls::ServerConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .expect("TLS versions")
            .with_no_client_auth()
            .with_single_cert(vec![cert.der().clone()], PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(key.serialize_der())))
            .expect("TLS configuration");
        let acceptor = tokio_rustls::TlsAcceptor::from(Arc::new(config));
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind the receiver");
        let port = listener.local_addr().expect("receiver address").port();
        let shared = Arc::new(Shared::default());
        let state = shared.clone();
        let task = tokio::spawn(async move {
            while let Ok((tcp, _)) = listener.accept().await {
                let acceptor = acceptor.clone();
                let state = state.clone();
                tokio::spawn(async move {
                    let Ok(tls) = acceptor.accept(tcp).await else { return };
                    let service = hyper::service::service_fn(move |request| answer(state.clone(), request));
                    let _ = hyper::server::conn::http1::Builder::new().serve_connection(TokioIo::new(tls), service).await;
                });
            }
        });
        Self { port, ca_pem: ca.pem(), shared, task }
    }

    /// `https://{host}:{port}/hook`.
    pub fn url(&self, host: &str) -> String {
        format!("https://{host}:{}/hook", self.port)
    }

    /// The port it listens on.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// The CA certificate (PEM) to trust.
    pub fn ca_pem(&self) -> &str {
        &self.ca_pem
    }

    /// Answers the next requests so, in order; after them, 200 again.
    pub fn reply_with(&self, replies: impl IntoIterator<Item = Reply>) {
        self.shared.script.lock().expect("script").extend(replies);
    }

    /// Everything received so far.
    pub fn received(&self) -> Vec<Received> {
        self.shared.received.lock().expect("received").clone()
    }

    /// Waits until `count` requests have come; panics after `within`.
    pub async fn wait_for(&self, count: usize, within: Duration) -> Vec<Received> {
        let deadline = tokio::time::Instant::now() + within;
        loop {
            let received = self.received();
            if received.len() >= count {
                return received;
            }
            assert!(tokio::time::Instant::now() < deadline, "the receiver got {} of {count} requests within {within:?}", received.len());
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }
}

impl Drop for Receiver {
    fn drop(&mut self) {
        self.task.abort();
    }
}

async fn answer(state: Arc<Shared>, request: Request<Incoming>) -> Result<Response<Full<Bytes>>, hyper::Error> {
    let method = request.method().to_string();
    let path = request.uri().path().to_owned();
    let headers = request.headers().iter().map(|(k, v)| (k.as_str().to_owned(), v.to_str().unwrap_or_default().to_owned())).collect();
    let body = request.into_body().collect().await?.to_bytes().to_vec();
    state.received.lock().expect("received").push(Received { method, path, headers, body });
    let reply = state.script.lock().expect("script").pop_front().unwrap_or(Reply::Status(200));
    let response = |status: u16| Response::builder().status(status).body(Full::new(Bytes::from_static(b"{}")));
    let response = match reply {
        Reply::Status(status) => response(status),
        Reply::Slow(wait) => {
            tokio::time::sleep(wait).await;
            response(200)
        }
        Reply::Redirect(location) => Response::builder().status(302).header("location", location).body(Full::new(Bytes::new())),
    };
    Ok(response.expect("a valid response"))
}

/// Verifies every request's signature with the `standardwebhooks` package from PyPI (not our
/// code), in the Python named by `CALLSCOPE_TEST_PYTHON` (`scripts/test` installs it).
///
/// # Errors
/// What the verifier said, when a signature does not verify or Python cannot run it.
pub fn verify_independently(secret: &str, received: &[Received]) -> Result<(), String> {
    use std::io::Write;
    let python = std::env::var("CALLSCOPE_TEST_PYTHON").unwrap_or_else(|_| "python3".into());
    let requests: Vec<serde_json::Value> = received
        .iter()
        .map(|r| {
            let headers: serde_json::Map<String, serde_json::Value> =
                r.headers.iter().map(|(k, v)| (k.clone(), serde_json::Value::String(v.clone()))).collect();
            serde_json::json!({"headers": headers, "body": String::from_utf8_lossy(&r.body)})
        })
        .collect();
    let input = serde_json::json!({"secret": secret, "requests": requests}).to_string();
    const SCRIPT: &str = "import json, sys\n\
        from standardwebhooks.webhooks import Webhook\n\
        data = json.load(sys.stdin)\n\
        hook = Webhook(data['secret'])\n\
        for r in data['requests']:\n    hook.verify(r['body'].encode(), r['headers'])\n\
        print('verified', len(data['requests']))\n";
    let mut child = std::process::Command::new(&python)
        .args(["-c", SCRIPT])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot run {python} (set CALLSCOPE_TEST_PYTHON): {e}"))?;
    child.stdin.take().expect("stdin").write_all(input.as_bytes()).map_err(|e| e.to_string())?;
    let output = child.wait_with_output().map_err(|e| e.to_string())?;
    let stdout = String::from_utf8_lossy(&output.stdout);
    if output.status.success() && stdout.trim() == format!("verified {}", received.len()) {
        Ok(())
    } else {
        Err(format!("{stdout}{}", String::from_utf8_lossy(&output.stderr)))
    }
}

/// Writes one `call.failed` event the way the service does: with the change that raises it (a
/// job queued, taken and failed at once, so no worker finds it afterwards). The job's file is
/// `call-{n}.wav`, which tells the events apart.
///
/// # Panics
/// When the store refuses any step.
pub async fn raise_event(store: &dyn callscope_store::Store, project: callscope_domain::ProjectId, n: u32) {
    let job = callscope_domain::NewJob {
        id: callscope_domain::JobId::new(),
        original_filename: format!("call-{n}.wav"),
        content_type: "audio/wav".into(),
        size_bytes: 10,
        sha256: format!("{n:064}"),
        storage_path: format!("test/{n}.wav"),
        language: callscope_domain::Language::En,
        channel_roles: None,
        recorded_at: None,
    };
    store.create_job(project, &job).await.expect("queue the job");
    let claimed = store.claim_job("raiser", Duration::from_secs(60)).await.expect("claim").expect("the job just queued");
    let event = callscope_domain::Event::CallFailed(Box::new(claimed.clone()));
    assert!(store.fail_job(claimed.id, "raiser", "test", &event).await.expect("fail the job"));
}
