//! One HTTP attempt of a delivery, made safely: the host is resolved at every attempt, every
//! address it resolves to must be public, and the connection goes to those checked addresses
//! (a name that changes its answer between the check and the connection, DNS rebinding, gains
//! nothing). Redirects are not followed.

use std::future::Future;
use std::net::{IpAddr, SocketAddr};
use std::pin::Pin;
use std::time::Duration;

use callscope_domain::is_public_ip;

/// Resolves host names (the system resolver, or a fixed table in tests).
pub trait Resolve: Send + Sync {
    /// The addresses of `host`.
    fn resolve<'a>(&'a self, host: &'a str, port: u16) -> Pin<Box<dyn Future<Output = std::io::Result<Vec<IpAddr>>> + Send + 'a>>;
}

/// The operating system's resolver.
#[derive(Debug, Default, Clone, Copy)]
pub struct SystemResolver;

impl Resolve for SystemResolver {
    fn resolve<'a>(&'a self, host: &'a str, port: u16) -> Pin<Box<dyn Future<Output = std::io::Result<Vec<IpAddr>>> + Send + 'a>> {
        Box::pin(async move { Ok(tokio::net::lookup_host((host, port)).await?.map(|a| a.ip()).collect()) })
    }
}

/// How attempts are made.
#[derive(Clone)]
pub struct SenderSettings {
    /// The whole attempt (resolution, connection, TLS, request, response head) must fit in this.
    pub timeout: Duration,
    /// Test only: also allow `http://` and loopback addresses.
    pub allow_private: bool,
    /// Test only: PEM certificates trusted besides the built-in roots.
    pub extra_roots_pem: Option<Vec<u8>>,
}

impl Default for SenderSettings {
    fn default() -> Self {
        Self { timeout: Duration::from_secs(10), allow_private: false, extra_roots_pem: None }
    }
}

/// What an attempt came to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// A 2xx answer.
    Delivered { status: u16 },
    /// Anything else; `permanent` when trying again cannot help (the target is not allowed).
    Failed { status: Option<u16>, message: String, permanent: bool },
}

/// Makes delivery attempts.
pub struct Sender {
    settings: SenderSettings,
    roots: Vec<reqwest::Certificate>,
    resolver: Box<dyn Resolve>,
}

impl Sender {
    /// A sender with the system resolver.
    ///
    /// # Errors
    /// When `extra_roots_pem` holds no readable certificate.
    pub fn new(settings: SenderSettings) -> Result<Self, reqwest::Error> {
        Self::with_resolver(settings, Box::new(SystemResolver))
    }

    /// A sender that resolves names with `resolver`.
    ///
    /// # Errors
    /// When `extra_roots_pem` holds no readable certificate.
    pub fn with_resolver(settings: SenderSettings, resolver: Box<dyn Resolve>) -> Result<Self, reqwest::Error> {
        let roots = match &settings.extra_roots_pem {
            Some(pem) => reqwest::Certificate::from_pem_bundle(pem)?,
            None => Vec::new(),
        };
        Ok(Self { settings, roots, resolver })
    }

    /// POSTs `body` with `headers` to `url`.
    pub async fn send(&self, url: &str, headers: &[(&str, String)], body: Vec<u8>) -> Outcome {
        let timeout = self.settings.timeout;
        match tokio::time::timeout(timeout, self.attempt(url, headers, body)).await {
            Ok(outcome) => outcome,
            Err(_) => failed(None, format!("timed out after {}", seconds(timeout))),
        }
    }

    async fn attempt(&self, raw: &str, headers: &[(&str, String)], body: Vec<u8>) -> Outcome {
        let refuse = |message: String| Outcome::Failed { status: None, message, permanent: true };
        let Ok(url) = url::Url::parse(raw) else {
            return refuse(format!("{raw:?} is not a URL"));
        };
        match url.scheme() {
            "https" => {}
            "http" if self.settings.allow_private => {}
            other => return refuse(format!("scheme {other}:// is not allowed; webhooks need https://")),
        }
        let port = url.port_or_known_default().unwrap_or(443);
        let (host, addresses) = match url.host() {
            Some(url::Host::Ipv4(ip)) => (None, vec![IpAddr::V4(ip)]),
            Some(url::Host::Ipv6(ip)) => (None, vec![IpAddr::V6(ip)]),
            Some(url::Host::Domain(name)) => match self.resolver.resolve(name, port).await {
                Ok(found) if !found.is_empty() => (Some(name.to_owned()), found),
                Ok(_) => return failed(None, format!("host {name} has no addresses")),
                Err(e) => return failed(None, format!("host {name} does not resolve ({e})")),
            },
            None => return refuse("the URL names no host".into()),
        };
        for ip in &addresses {
            if !(is_public_ip(*ip) || self.settings.allow_private && ip.is_loopback()) {
                return refuse(format!("address {ip} is not public"));
            }
        }
        let mut builder = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .no_proxy()
            .user_agent(concat!("callscope-webhooks/", env!("CARGO_PKG_VERSION")));
        if let Some(name) = &host {
            // Connect to exactly the addresses just checked, never to a fresh answer.
            let checked: Vec<SocketAddr> = addresses.iter().map(|ip| SocketAddr::new(*ip, port)).collect();
            builder = builder.resolve_to_addrs(name, &checked);
        }
        for root in &self.roots {
            builder = builder.add_root_certificate(root.clone());
        }
        let client = match builder.build() {
            Ok(client) => client,
            Err(e) => return failed(None, format!("cannot make an HTTP client: {}", innermost(&e))),
        };
        let mut request = client.post(url).header("content-type", "application/json").body(body);
        for (name, value) in headers {
            request = request.header(*name, value);
        }
        match request.send().await {
            Ok(response) => {
                let status = response.status();
                if status.is_success() {
                    Outcome::Delivered { status: status.as_u16() }
                } else if status.is_redirection() {
                    failed(Some(status.as_u16()), format!("HTTP {} (redirects are not followed)", status.as_u16()))
                } else {
                    failed(Some(status.as_u16()), format!("HTTP {}", status.as_u16()))
                }
            }
            Err(e) => failed(None, describe(&e)),
        }
    }
}

fn failed(status: Option<u16>, message: String) -> Outcome {
    Outcome::Failed { status, message, permanent: false }
}

/// "10 s", "1.5 s", "250 ms".
fn seconds(d: Duration) -> String {
    if d.as_millis() % 1000 == 0 {
        format!("{} s", d.as_secs())
    } else if d < Duration::from_secs(1) {
        format!("{} ms", d.as_millis())
    } else {
        format!("{:.1} s", d.as_secs_f64())
    }
}

/// A request error in words: "connection refused", "TLS handshake failed: …", or the
/// innermost cause.
fn describe(e: &reqwest::Error) -> String {
    let mut source: Option<&(dyn std::error::Error + 'static)> = Some(e);
    while let Some(err) = source {
        if let Some(io) = err.downcast_ref::<std::io::Error>() {
            match io.kind() {
                std::io::ErrorKind::ConnectionRefused => return "connection refused".into(),
                std::io::ErrorKind::ConnectionReset => return "connection reset by the receiver".into(),
                _ => {}
            }
        }
        source = err.source();
    }
    let inner = innermost(e);
    if inner.contains("certificate") || inner.contains("handshake") {
        format!("TLS handshake failed: {inner}")
    } else if e.is_connect() {
        format!("cannot connect: {inner}")
    } else {
        format!("request failed: {inner}")
    }
}

fn innermost(e: &(dyn std::error::Error + 'static)) -> String {
    let mut last = e;
    while let Some(next) = last.source() {
        last = next;
    }
    last.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_read_naturally() {
        assert_eq!(seconds(Duration::from_secs(10)), "10 s");
        assert_eq!(seconds(Duration::from_millis(1500)), "1.5 s");
        assert_eq!(seconds(Duration::from_millis(250)), "250 ms");
    }

    #[tokio::test]
    async fn targets_that_are_not_public_are_refused_before_any_connection() {
        let sender = Sender::new(SenderSettings::default()).unwrap();
        for (url, message) in [
            ("https://127.0.0.1:9/x", "address 127.0.0.1 is not public"),
            ("https://[::1]:9/x", "address ::1 is not public"),
            ("https://169.254.169.254/latest/meta-data", "address 169.254.169.254 is not public"),
            ("http://93.184.216.34/x", "scheme http:// is not allowed; webhooks need https://"),
        ] {
            let outcome = sender.send(url, &[], Vec::new()).await;
            assert_eq!(outcome, Outcome::Failed { status: None, message: message.into(), permanent: true }, "{url}");
        }
    }
}
