//! `models pull` against a local stand-in for a Hugging Face–compatible hub: the same API layout
//! (revision, paged recursive tree with LFS checksums, `resolve/` with a redirect to a file CDN on
//! another port), a gated repository, an interrupted transfer and a corrupt one.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use axum::body::Body;
use axum::extract::State;
use axum::http::{header, HeaderMap, Request, StatusCode};
use axum::response::{IntoResponse, Response};
use callscope_models::{Hub, ModelsError, PullSpec};
use sha1::Sha1;
use sha2::{Digest, Sha256};

const TOKEN: &str = "hf_standin_token";
const PAGE_SIZE: usize = 2;

struct RepoFile {
    path: String,
    content: Vec<u8>,
    lfs: bool,
}

struct Repo {
    commit: String,
    gated: bool,
    files: Vec<RepoFile>,
}

#[derive(Default)]
struct Seen {
    /// Authorization headers that reached the CDN.
    cdn_authorizations: Vec<String>,
    /// Range headers the CDN was sent.
    cdn_ranges: Vec<String>,
    /// Authorization headers the API was sent.
    api_authorizations: Vec<String>,
}

struct Hubs {
    repos: HashMap<String, Repo>,
    api: Mutex<String>,
    cdn: Mutex<String>,
    seen: Mutex<Seen>,
    /// The next CDN answer promises the whole file and sends half.
    cut_next: AtomicBool,
    /// CDN answers carry one wrong byte.
    corrupt: AtomicBool,
}

fn sha256_hex(bytes: &[u8]) -> String {
    hex::encode(Sha256::digest(bytes))
}

fn git_blob_id(bytes: &[u8]) -> String {
    let mut hasher = Sha1::new();
    hasher.update(format!("blob {}\0", bytes.len()).as_bytes());
    hasher.update(bytes);
    hex::encode(hasher.finalize())
}

fn noise(len: usize, seed: u8) -> Vec<u8> {
    (0..len).map(|i| (i as u32).wrapping_mul(2_654_435_761).to_le_bytes()[2] ^ seed).collect()
}

fn json(status: StatusCode, value: serde_json::Value) -> Response {
    (status, [(header::CONTENT_TYPE, "application/json")], value.to_string()).into_response()
}

fn refused() -> Response {
    // What the hub answers for a private or gated repository without a good token.
    json(StatusCode::UNAUTHORIZED, serde_json::json!({"error": "Repository not found"}))
}

/// Serves `content` honouring `Range: bytes=N-`.
fn ranged(content: &[u8], headers: &HeaderMap) -> Response {
    let from = headers
        .get(header::RANGE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("bytes="))
        .and_then(|v| v.strip_suffix('-'))
        .and_then(|v| v.parse::<usize>().ok());
    match from {
        Some(from) if from >= content.len() => {
            (StatusCode::RANGE_NOT_SATISFIABLE, [(header::CONTENT_RANGE, format!("bytes */{}", content.len()))]).into_response()
        }
        Some(from) => (
            StatusCode::PARTIAL_CONTENT,
            [(header::CONTENT_RANGE, format!("bytes {from}-{}/{}", content.len() - 1, content.len()))],
            content[from..].to_vec(),
        )
            .into_response(),
        None => content.to_vec().into_response(),
    }
}

/// The repository, if this request may read it.
fn readable<'a>(hubs: &'a Hubs, owner: &str, name: &str, authorized: bool) -> Option<&'a Repo> {
    hubs.repos.get(&format!("{owner}/{name}")).filter(|repo| !repo.gated || authorized)
}

async fn api(State(hubs): State<Arc<Hubs>>, request: Request<Body>) -> Response {
    let path = request.uri().path().to_string();
    let query = request.uri().query().unwrap_or("").to_string();
    let authorization = request.headers().get(header::AUTHORIZATION).and_then(|v| v.to_str().ok()).map(str::to_string);
    if let Some(auth) = &authorization {
        hubs.seen.lock().unwrap().api_authorizations.push(auth.clone());
    }
    let authorized = authorization.as_deref() == Some(&format!("Bearer {TOKEN}"));
    let segments: Vec<&str> = path.trim_start_matches('/').split('/').collect();
    match segments.as_slice() {
        ["api", "models", owner, name, "revision", revision @ ..] => {
            let Some(repo) = readable(&hubs, owner, name, authorized) else {
                return refused();
            };
            let revision = revision.join("/");
            if revision != "main" && revision != repo.commit {
                return json(StatusCode::NOT_FOUND, serde_json::json!({"error": "Invalid rev id"}));
            }
            json(StatusCode::OK, serde_json::json!({"id": format!("{owner}/{name}"), "sha": repo.commit, "siblings": []}))
        }
        ["api", "models", owner, name, "tree", commit] => {
            let Some(repo) = readable(&hubs, owner, name, authorized) else {
                return refused();
            };
            assert_eq!(*commit, repo.commit, "the tree is listed at the resolved commit");
            assert!(query.contains("recursive=true"), "{query}");
            let cursor: usize = query.split('&').find_map(|kv| kv.strip_prefix("cursor=")).and_then(|c| c.parse().ok()).unwrap_or(0);
            let mut entries = vec![];
            if cursor == 0 {
                entries.push(serde_json::json!({"type": "directory", "oid": "0".repeat(40), "size": 0, "path": "extra"}));
            }
            for file in repo.files.iter().skip(cursor).take(PAGE_SIZE) {
                let mut entry = serde_json::json!({"type": "file", "path": file.path, "size": file.content.len()});
                if file.lfs {
                    entry["oid"] = git_blob_id(b"a pointer file").into();
                    entry["lfs"] = serde_json::json!({"oid": sha256_hex(&file.content), "size": file.content.len(), "pointerSize": 134});
                } else {
                    entry["oid"] = git_blob_id(&file.content).into();
                }
                entries.push(entry);
            }
            let mut response = json(StatusCode::OK, serde_json::Value::Array(entries));
            if cursor + PAGE_SIZE < repo.files.len() {
                let next = format!("<{}{path}?recursive=true&cursor={}>; rel=\"next\"", hubs.api.lock().unwrap(), cursor + PAGE_SIZE);
                response.headers_mut().insert(header::LINK, next.parse().unwrap());
            }
            response
        }
        [owner, name, "resolve", commit, file_path @ ..] => {
            let Some(repo) = readable(&hubs, owner, name, authorized) else {
                return refused();
            };
            assert_eq!(*commit, repo.commit, "files are fetched at the resolved commit");
            let file_path = file_path.join("/");
            let Some(file) = repo.files.iter().find(|f| f.path == file_path) else {
                return json(StatusCode::NOT_FOUND, serde_json::json!({"error": "Entry not found"}));
            };
            if file.lfs {
                let location = format!("{}/blobs/{}", hubs.cdn.lock().unwrap(), sha256_hex(&file.content));
                (StatusCode::FOUND, [(header::LOCATION, location)]).into_response()
            } else {
                ranged(&file.content, request.headers())
            }
        }
        _ => StatusCode::NOT_FOUND.into_response(),
    }
}

async fn cdn(State(hubs): State<Arc<Hubs>>, request: Request<Body>) -> Response {
    let headers = request.headers();
    {
        let mut seen = hubs.seen.lock().unwrap();
        if let Some(auth) = headers.get(header::AUTHORIZATION) {
            seen.cdn_authorizations.push(auth.to_str().unwrap_or("?").to_string());
        }
        if let Some(range) = headers.get(header::RANGE) {
            seen.cdn_ranges.push(range.to_str().unwrap_or("?").to_string());
        }
    }
    let digest = request.uri().path().trim_start_matches("/blobs/");
    let Some(file) = hubs.repos.values().flat_map(|r| &r.files).find(|f| f.lfs && sha256_hex(&f.content) == digest) else {
        return StatusCode::NOT_FOUND.into_response();
    };
    let mut content = file.content.clone();
    if hubs.corrupt.load(Ordering::SeqCst) {
        let middle = content.len() / 2;
        content[middle] ^= 0xff;
    }
    if hubs.cut_next.swap(false, Ordering::SeqCst) {
        // Promise every byte, send the first half, then drop the connection.
        let half = content[..content.len() / 2].to_vec();
        let chunks: Vec<Result<Vec<u8>, std::io::Error>> = vec![Ok(half), Err(std::io::Error::other("connection lost"))];
        // The half is flushed before the failure, as a connection that drops mid-file does.
        let stream = futures::StreamExt::then(futures::stream::iter(chunks), |chunk| async move {
            if chunk.is_err() {
                tokio::time::sleep(std::time::Duration::from_millis(300)).await;
            }
            chunk
        });
        let mut response = Response::new(Body::from_stream(stream));
        response.headers_mut().insert(header::CONTENT_LENGTH, content.len().into());
        return response;
    }
    ranged(&content, headers)
}

struct StandIn {
    hubs: Arc<Hubs>,
    api_url: String,
    _runtime: tokio::runtime::Runtime,
}

impl StandIn {
    fn start(repos: HashMap<String, Repo>) -> Self {
        let hubs = Arc::new(Hubs {
            repos,
            api: Mutex::new(String::new()),
            cdn: Mutex::new(String::new()),
            seen: Mutex::new(Seen::default()),
            cut_next: AtomicBool::new(false),
            corrupt: AtomicBool::new(false),
        });
        let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(1).enable_all().build().unwrap();
        let serve = |router: axum::Router| {
            let listener = runtime.block_on(tokio::net::TcpListener::bind("127.0.0.1:0")).unwrap();
            let address: SocketAddr = listener.local_addr().unwrap();
            runtime.spawn(async move { axum::serve(listener, router).await.unwrap() });
            format!("http://{address}")
        };
        let api_url = serve(axum::Router::new().fallback(api).with_state(hubs.clone()));
        let cdn_url = serve(axum::Router::new().fallback(cdn).with_state(hubs.clone()));
        *hubs.api.lock().unwrap() = api_url.clone();
        *hubs.cdn.lock().unwrap() = cdn_url;
        Self { hubs, api_url, _runtime: runtime }
    }

    fn file(&self, repo: &str, path: &str) -> &[u8] {
        &self.hubs.repos[repo].files.iter().find(|f| f.path == path).unwrap().content
    }
}

fn repos() -> HashMap<String, Repo> {
    let file = |path: &str, content: Vec<u8>, lfs: bool| RepoFile { path: path.into(), content, lfs };
    HashMap::from([
        (
            "acme/whisper-small-ct2".to_string(),
            Repo {
                commit: "1f2e3d4c5b6a79881f2e3d4c5b6a79881f2e3d4c".into(),
                gated: false,
                files: vec![
                    file(".gitattributes", b"*.bin filter=lfs diff=lfs merge=lfs -text\n".to_vec(), false),
                    file("README.md", b"# A Whisper conversion\n".to_vec(), false),
                    file("config.json", br#"{"alignment_heads": [], "lang_ids": []}"#.to_vec(), false),
                    file("model.bin", noise(300_000, 7), true),
                    file("tokenizer.json", br#"{"version": "1.0"}"#.to_vec(), false),
                    file("extra/preprocessor_config.json", br#"{"feature_size": 80}"#.to_vec(), false),
                ],
            },
        ),
        (
            "acme/chat-7b-GGUF".to_string(),
            Repo {
                commit: "aa00bb11cc22dd33ee44ff5566778899aabbccdd".into(),
                gated: true,
                files: vec![
                    file("README.md", b"# Quantisations\n".to_vec(), false),
                    file("chat-7b-Q4_K_M.gguf", noise(250_000, 11), true),
                    file("chat-7b-Q8_0.gguf", noise(400_000, 13), true),
                ],
            },
        ),
        (
            "acme/escape".to_string(),
            Repo {
                commit: "0123456789abcdef0123456789abcdef01234567".into(),
                gated: false,
                files: vec![file("../outside.txt", b"should never be written".to_vec(), false)],
            },
        ),
    ])
}

/// The file on disk holds exactly `expected` (compared without printing megabytes).
fn same(path: &std::path::Path, expected: &[u8]) {
    let got = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let first_difference = got.iter().zip(expected).position(|(a, b)| a != b);
    assert!(
        got.len() == expected.len() && first_difference.is_none(),
        "{}: {} bytes, expected {}; first difference at {first_difference:?}; sha {} vs {}",
        path.display(),
        got.len(),
        expected.len(),
        sha256_hex(&got),
        sha256_hex(expected)
    );
}

fn lines() -> (Arc<Mutex<Vec<String>>>, impl FnMut(&str)) {
    let said = Arc::new(Mutex::new(Vec::new()));
    let keep = said.clone();
    (said, move |line: &str| keep.lock().unwrap().push(line.to_string()))
}

#[test]
fn a_whisper_repository_is_pulled_whole_verified_and_named_for_the_configuration() {
    let hub = StandIn::start(repos());
    let models = tempfile::tempdir().unwrap();
    let client = Hub::new(&hub.api_url, None).unwrap();
    let spec: PullSpec = "acme/whisper-small-ct2".parse().unwrap();
    let (_, mut say) = lines();
    let pulled = client.pull(&spec, models.path(), &mut say).unwrap();

    assert_eq!(pulled.commit, "1f2e3d4c5b6a79881f2e3d4c5b6a79881f2e3d4c");
    assert_eq!(pulled.dir, models.path().join("acme--whisper-small-ct2"));
    assert_eq!(pulled.files.len(), 6, "every file over three pages of the listing, the directory entry left out");
    for file in &pulled.files {
        same(&pulled.dir.join(&file.path), hub.file("acme/whisper-small-ct2", &file.path));
    }
    assert_eq!(pulled.downloaded_bytes, pulled.files.iter().map(|f| f.size).sum::<u64>());
    assert_eq!(pulled.setting(), Some(("speech_model", pulled.dir.clone())));
    assert!(!pulled.dir.join(".partial").exists(), "no partial downloads left behind");

    // A second pull finds everything verified and fetches nothing.
    let (said, mut say) = lines();
    let again = client.pull(&spec, models.path(), &mut say).unwrap();
    assert_eq!(again.downloaded_bytes, 0);
    assert!(hub.hubs.seen.lock().unwrap().cdn_ranges.is_empty());
    assert_eq!(said.lock().unwrap().iter().filter(|l| l.contains("verified before")).count(), 6);

    // A file changed on disk is noticed and fetched again.
    std::fs::write(pulled.dir.join("config.json"), br#"{"alignment_heads": [], "lang_ids": [1]}"#).unwrap();
    std::fs::write(pulled.dir.join("model.bin"), noise(300_000, 8)).unwrap();
    let (_, mut say) = lines();
    let repaired = client.pull(&spec, models.path(), &mut say).unwrap();
    same(&pulled.dir.join("model.bin"), hub.file("acme/whisper-small-ct2", "model.bin"));
    same(&pulled.dir.join("config.json"), hub.file("acme/whisper-small-ct2", "config.json"));
    assert!(repaired.downloaded_bytes > 300_000);
}

#[test]
fn a_gated_gguf_repository_needs_the_token_and_one_model_named() {
    let hub = StandIn::start(repos());
    let models = tempfile::tempdir().unwrap();
    let (_, mut say) = lines();
    let spec: PullSpec = "acme/chat-7b-GGUF:*Q4_K_M.gguf".parse().unwrap();

    let anonymous = Hub::new(&hub.api_url, None).unwrap();
    let refused = anonymous.pull(&spec, models.path(), &mut say).unwrap_err().to_string();
    assert!(refused.contains("acme/chat-7b-GGUF") && refused.contains("HF_TOKEN"), "{refused}");
    let wrong = Hub::new(&hub.api_url, Some("hf_wrong".into())).unwrap();
    let refused = wrong.pull(&spec, models.path(), &mut say).unwrap_err().to_string();
    assert!(refused.contains("no access"), "{refused}");

    let client = Hub::new(&hub.api_url, Some(TOKEN.into())).unwrap();
    let whole: PullSpec = "acme/chat-7b-GGUF".parse().unwrap();
    let ambiguous = client.pull(&whole, models.path(), &mut say).unwrap_err().to_string();
    assert!(ambiguous.contains("2 GGUF models") && ambiguous.contains("chat-7b-Q8_0.gguf"), "{ambiguous}");
    let nothing: PullSpec = "acme/chat-7b-GGUF:*Q2_K.gguf".parse().unwrap();
    let unmatched = client.pull(&nothing, models.path(), &mut say).unwrap_err().to_string();
    assert!(unmatched.contains("matches no file") && unmatched.contains("chat-7b-Q4_K_M.gguf"), "{unmatched}");

    let pulled = client.pull(&spec, models.path(), &mut say).unwrap();
    assert_eq!(pulled.files.iter().map(|f| f.path.as_str()).collect::<Vec<_>>(), ["chat-7b-Q4_K_M.gguf"]);
    let file = pulled.dir.join("chat-7b-Q4_K_M.gguf");
    same(&file, hub.file("acme/chat-7b-GGUF", "chat-7b-Q4_K_M.gguf"));
    assert!(!pulled.dir.join("chat-7b-Q8_0.gguf").exists(), "only what the pattern names");
    assert_eq!(pulled.setting(), Some(("local_llm_model", file)));

    let seen = hub.hubs.seen.lock().unwrap();
    assert!(seen.api_authorizations.iter().any(|a| a == &format!("Bearer {TOKEN}")), "the hub got the token");
    assert!(seen.cdn_authorizations.is_empty(), "the token never went to the CDN's host: {:?}", seen.cdn_authorizations);
}

#[test]
fn an_interrupted_download_resumes_and_a_corrupt_one_is_removed() {
    let hub = StandIn::start(repos());
    let models = tempfile::tempdir().unwrap();
    let client = Hub::new(&hub.api_url, None).unwrap();
    let spec: PullSpec = "acme/whisper-small-ct2:model.bin".parse().unwrap();
    let (_, mut say) = lines();

    hub.hubs.cut_next.store(true, Ordering::SeqCst);
    let cut = client.pull(&spec, models.path(), &mut say).unwrap_err();
    assert!(matches!(cut, ModelsError::Fetch(_)), "{cut}");
    let part = models.path().join("acme--whisper-small-ct2/.partial/model.bin.part");
    let kept = std::fs::metadata(&part).unwrap().len();
    assert!(kept > 0 && kept < 300_000, "the bytes that arrived are kept ({kept})");

    let pulled = client.pull(&spec, models.path(), &mut say).unwrap();
    same(&pulled.dir.join("model.bin"), hub.file("acme/whisper-small-ct2", "model.bin"));
    assert_eq!(hub.hubs.seen.lock().unwrap().cdn_ranges, [format!("bytes={kept}-")], "the second pull asked for the rest only");
    assert_eq!(pulled.downloaded_bytes, 300_000 - kept);

    // A transfer that does not hash to the hub's checksum is removed, and nothing is installed.
    let spec: PullSpec = "acme/whisper-small-ct2:model.bin".parse().unwrap();
    let fresh = tempfile::tempdir().unwrap();
    hub.hubs.corrupt.store(true, Ordering::SeqCst);
    let corrupt = client.pull(&spec, fresh.path(), &mut say).unwrap_err();
    assert!(matches!(corrupt, ModelsError::Verify(_)), "{corrupt}");
    assert!(corrupt.to_string().contains("checksum"), "{corrupt}");
    assert!(!fresh.path().join("acme--whisper-small-ct2/model.bin").exists());
    assert!(!fresh.path().join("acme--whisper-small-ct2/.partial/model.bin.part").exists());
}

#[test]
fn a_listing_that_points_outside_the_folder_or_an_unknown_repository_is_refused() {
    let hub = StandIn::start(repos());
    let models = tempfile::tempdir().unwrap();
    let client = Hub::new(&hub.api_url, None).unwrap();
    let (_, mut say) = lines();
    let escape = client.pull(&"acme/escape".parse().unwrap(), &models.path().join("inner"), &mut say).unwrap_err();
    assert!(escape.to_string().contains("outside the repository"), "{escape}");
    assert!(!models.path().join("outside.txt").exists());
    assert!(!models.path().join("inner/outside.txt").exists());

    let unknown = client.pull(&"acme/nothing-here".parse().unwrap(), models.path(), &mut say).unwrap_err().to_string();
    assert!(unknown.contains("acme/nothing-here") && unknown.contains("check the name"), "{unknown}");
    let revision = client.pull(&"acme/whisper-small-ct2@v9".parse().unwrap(), models.path(), &mut say).unwrap_err().to_string();
    assert!(revision.contains("\"v9\""), "{revision}");
}
