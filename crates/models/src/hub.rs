//! Models beyond the pinned manifest, from a Hugging Face–compatible hub:
//! `callscope models pull owner/name[@revision][:pattern]`.
//!
//! The hub's API is read in three steps. The revision (a branch, tag or commit) is resolved to a
//! commit first, so every file comes from one snapshot even while the repository moves on. That
//! commit's file tree is then listed with each file's size and checksums. Each file the pattern
//! selects is downloaded from `{repo}/resolve/{commit}/{path}` (the hub may redirect that to a
//! file CDN; the token is not sent on to another host). Weight files are kept in Git LFS and are
//! verified against the SHA-256 the hub publishes for them; small files kept in git itself against
//! their git blob id (SHA-1 over `blob {length}\0` and the content). A download resumes from its
//! `.part` file, and a file already verified is not fetched again.
//!
//! A repository lands in `{models dir}/{owner}--{name}`, so configuration can name it like a
//! packaged artifact (`speech_model = "Systran--faster-whisper-large-v3"`).

use std::collections::BTreeMap;
use std::fmt;
use std::fs::{self, File};
use std::io;
use std::path::{Component, Path, PathBuf};
use std::str::FromStr;

use sha1::Sha1;
use sha2::Digest;

use crate::{download, http_client, io_err, mib, sha256_file, with_causes, ModelsError};

/// The public Hugging Face hub.
pub const DEFAULT_HUB: &str = "https://huggingface.co";

/// What to pull: `owner/name`, optionally `@revision` (default `main`) and `:pattern`, a glob
/// over the repository's file paths (`*` and `?`; `*` also crosses `/`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PullSpec {
    /// `owner/name`.
    pub repo: String,
    /// Branch, tag or commit.
    pub revision: String,
    /// Which files; all of them when absent.
    pub pattern: Option<String>,
}

fn repo_part_ok(part: &str) -> bool {
    !part.is_empty()
        && part.len() <= 96
        && !part.starts_with(['.', '-'])
        && !part.contains("..")
        && part.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
}

impl FromStr for PullSpec {
    type Err = ModelsError;

    fn from_str(spec: &str) -> Result<Self, Self::Err> {
        let bad = |why: &str| ModelsError::Unknown(format!("{spec:?} is not owner/name[@revision][:pattern]: {why}"));
        let (head, pattern) = match spec.split_once(':') {
            Some((_, pattern)) if pattern.trim().is_empty() => return Err(bad("the pattern after ':' is empty")),
            Some((head, pattern)) => (head, Some(pattern.trim().to_string())),
            None => (spec, None),
        };
        let (repo, revision) = match head.split_once('@') {
            Some((repo, revision)) => (repo, revision),
            None => (head, "main"),
        };
        let mut parts = repo.trim().split('/');
        let (Some(owner), Some(name), None) = (parts.next(), parts.next(), parts.next()) else {
            return Err(bad("the repository must be owner/name"));
        };
        if !repo_part_ok(owner) || !repo_part_ok(name) {
            return Err(bad("owner and name are letters, digits, '-', '_' and '.'"));
        }
        let revision_ok = !revision.is_empty()
            && !revision.contains("..")
            && revision.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | '/'));
        if !revision_ok {
            return Err(bad("the revision is a branch, tag or commit"));
        }
        Ok(Self { repo: format!("{owner}/{name}"), revision: revision.to_string(), pattern })
    }
}

impl fmt::Display for PullSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}@{}", self.repo, self.revision)?;
        if let Some(pattern) = &self.pattern {
            write!(f, ":{pattern}")?;
        }
        Ok(())
    }
}

impl PullSpec {
    /// The folder name under the models directory: `owner--name`.
    pub fn folder_name(&self) -> String {
        self.repo.replace('/', "--")
    }

    fn selects(&self, path: &str) -> bool {
        self.pattern.as_deref().is_none_or(|pattern| glob_match(pattern.as_bytes(), path.as_bytes()))
    }
}

/// `*` (any run, `/` included) and `?` (one character); everything else literal.
fn glob_match(pattern: &[u8], text: &[u8]) -> bool {
    // Iterative matching with one backtrack point: linear in practice, never exponential.
    let (mut p, mut t) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while t < text.len() {
        if p < pattern.len() && (pattern[p] == b'?' || pattern[p] == text[t]) {
            p += 1;
            t += 1;
        } else if p < pattern.len() && pattern[p] == b'*' {
            star = Some((p, t));
            p += 1;
        } else if let Some((star_p, star_t)) = star {
            p = star_p + 1;
            t = star_t + 1;
            star = Some((star_p, star_t + 1));
        } else {
            return false;
        }
    }
    pattern[p..].iter().all(|&c| c == b'*')
}

/// How a file is checked once downloaded.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Checksum {
    /// A Git LFS file: SHA-256 of the content.
    Sha256(String),
    /// A file in git itself: its blob id.
    GitBlob(String),
}

/// A file of the repository at the pulled commit.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct HubFile {
    /// Path in the repository.
    pub path: String,
    /// Bytes.
    pub size: u64,
    /// What it must hash to.
    pub checksum: Checksum,
}

/// What a pull left on disk.
#[derive(Debug, Clone)]
pub struct Pulled {
    /// `owner/name`.
    pub repo: String,
    /// The commit the files come from.
    pub commit: String,
    /// The repository's folder.
    pub dir: PathBuf,
    /// The files the pattern selected, each verified.
    pub files: Vec<HubFile>,
    /// Bytes downloaded by this pull (files already present are not counted).
    pub downloaded_bytes: u64,
}

impl Pulled {
    /// The setting that puts this model to use, and its value, when the files are a kind
    /// callscope runs: a CTranslate2 Whisper directory or a GGUF language model.
    pub fn setting(&self) -> Option<(&'static str, PathBuf)> {
        let has = |name: &str| self.dir.join(name).is_file();
        if has("model.bin") && has("config.json") && has("tokenizer.json") {
            return Some(("speech_model", self.dir.clone()));
        }
        // A model split into shards is loaded from its first one; llama.cpp finds the rest.
        let mut ggufs: Vec<&str> = self.files.iter().map(|f| f.path.as_str()).filter(|p| p.to_ascii_lowercase().ends_with(".gguf")).collect();
        ggufs.sort_unstable();
        let first = ggufs.iter().find(|p| p.contains("00001-of-")).or(ggufs.first())?;
        Some(("local_llm_model", self.dir.join(first)))
    }
}

/// A hub client.
#[derive(Debug, Clone)]
pub struct Hub {
    endpoint: url::Url,
    token: Option<String>,
    client: reqwest::blocking::Client,
}

#[derive(serde::Deserialize)]
struct RevisionInfo {
    sha: String,
}

#[derive(serde::Deserialize)]
struct TreeEntry {
    #[serde(rename = "type")]
    kind: String,
    path: String,
    #[serde(default)]
    size: u64,
    #[serde(default)]
    oid: String,
    lfs: Option<LfsInfo>,
}

#[derive(serde::Deserialize)]
struct LfsInfo {
    oid: String,
    size: u64,
}

/// The record of verified files kept in a pulled repository's folder.
const PULL_RECORD: &str = ".pulled.json";

#[derive(Default, serde::Serialize, serde::Deserialize)]
struct PullRecord {
    repo: String,
    commit: String,
    files: BTreeMap<String, Verified>,
}

/// A file as it was when verified: the hub's entry and the file's modification time, so that a
/// later pull re-hashes only a file that changed since (as git's index does).
#[derive(serde::Serialize, serde::Deserialize)]
struct Verified {
    file: HubFile,
    modified_ns: u128,
}

fn modified_ns(path: &Path) -> Option<u128> {
    let modified = fs::metadata(path).and_then(|m| m.modified()).ok()?;
    Some(modified.duration_since(std::time::UNIX_EPOCH).ok()?.as_nanos())
}

/// A repository path as a relative path of plain names, or `None` for anything that could
/// leave the folder (`..`, an absolute path, a backslash, a drive).
fn safe_relative(path: &str) -> Option<PathBuf> {
    if path.is_empty() || path.contains('\\') || path.contains('\0') {
        return None;
    }
    let relative = Path::new(path);
    relative.components().all(|c| matches!(c, Component::Normal(_))).then(|| relative.to_path_buf())
}

impl Hub {
    /// A client for the hub at `endpoint` (`https://huggingface.co` or a mirror serving the same
    /// API), with a bearer token for private and gated repositories.
    ///
    /// # Errors
    /// An endpoint that is not an http(s) URL, or a client that cannot be built.
    pub fn new(endpoint: &str, token: Option<String>) -> Result<Self, ModelsError> {
        let mut endpoint = url::Url::parse(endpoint.trim()).map_err(|e| ModelsError::Unknown(format!("hub endpoint {endpoint:?}: {e}")))?;
        if !matches!(endpoint.scheme(), "http" | "https") || endpoint.cannot_be_a_base() {
            return Err(ModelsError::Unknown(format!("hub endpoint {endpoint} is not an http(s) URL")));
        }
        if !endpoint.path().ends_with('/') {
            let path = format!("{}/", endpoint.path());
            endpoint.set_path(&path);
        }
        let client = http_client()?;
        Ok(Self { endpoint, token: token.filter(|t| !t.trim().is_empty()), client })
    }

    /// `endpoint` + the given path segments, each percent-encoded as one segment.
    fn url(&self, segments: &[&str]) -> url::Url {
        let mut url = self.endpoint.clone();
        url.path_segments_mut().expect("checked to be a base URL").pop_if_empty().extend(segments);
        url
    }

    fn get(&self, url: &str) -> reqwest::blocking::RequestBuilder {
        let request = self.client.get(url);
        match &self.token {
            Some(token) => request.bearer_auth(token),
            None => request,
        }
    }

    /// A JSON answer of the API, with the hub's refusals turned into sentences.
    fn api<T: serde::de::DeserializeOwned>(&self, spec: &PullSpec, url: &str) -> Result<(T, Option<String>), ModelsError> {
        let response = self.get(url).send().map_err(|e| ModelsError::Fetch(format!("{url}: {}", with_causes(&e))))?;
        let status = response.status();
        if status == reqwest::StatusCode::UNAUTHORIZED || status == reqwest::StatusCode::FORBIDDEN || status == reqwest::StatusCode::NOT_FOUND {
            let token_hint = if self.token.is_some() {
                "the token given has no access to it"
            } else {
                "a private or gated repository needs a token: set models_hub_token (CALLSCOPE_MODELS_HUB_TOKEN) or HF_TOKEN"
            };
            return Err(ModelsError::Fetch(format!(
                "{} has no repository {} at revision {:?} that this client may read ({status}); check the name, or {token_hint}",
                self.endpoint, spec.repo, spec.revision
            )));
        }
        if !status.is_success() {
            return Err(ModelsError::Fetch(format!("{url}: {status}")));
        }
        let next = response
            .headers()
            .get_all(reqwest::header::LINK)
            .iter()
            .filter_map(|v| v.to_str().ok())
            .flat_map(|v| v.split(','))
            .find(|link| link.contains("rel=\"next\""))
            .and_then(|link| link.split_once('<').and_then(|(_, rest)| rest.split_once('>')).map(|(url, _)| url.to_string()));
        let value = response.json().map_err(|e| ModelsError::Fetch(format!("{url}: the hub's answer is not what its API returns: {e}")))?;
        Ok((value, next))
    }

    /// The commit a revision names now.
    fn resolve(&self, spec: &PullSpec) -> Result<String, ModelsError> {
        let (owner, name) = spec.repo.split_once('/').expect("a parsed spec");
        let url = self.url(&["api", "models", owner, name, "revision", &spec.revision]);
        let (info, _) = self.api::<RevisionInfo>(spec, url.as_str())?;
        if info.sha.len() < 7 || !info.sha.chars().all(|c| c.is_ascii_hexdigit()) {
            return Err(ModelsError::Fetch(format!("{url}: the hub named no commit (sha {:?})", info.sha)));
        }
        Ok(info.sha)
    }

    /// Every file of the repository at `commit`, following the listing's pages.
    fn tree(&self, spec: &PullSpec, commit: &str) -> Result<Vec<HubFile>, ModelsError> {
        let (owner, name) = spec.repo.split_once('/').expect("a parsed spec");
        let mut url = self.url(&["api", "models", owner, name, "tree", commit]);
        url.query_pairs_mut().append_pair("recursive", "true");
        let mut next = Some(url.to_string());
        let mut files = Vec::new();
        let mut pages = 0;
        while let Some(page) = next.take() {
            pages += 1;
            if pages > 10_000 {
                return Err(ModelsError::Fetch(format!("{}: the file listing does not end", spec.repo)));
            }
            let (entries, link) = self.api::<Vec<TreeEntry>>(spec, &page)?;
            for entry in entries.into_iter().filter(|e| e.kind == "file") {
                if safe_relative(&entry.path).is_none() {
                    return Err(ModelsError::Verify(format!("{} lists a file outside the repository: {:?}", spec.repo, entry.path)));
                }
                let (size, checksum) = match entry.lfs {
                    Some(lfs) => (lfs.size, Checksum::Sha256(lfs.oid.to_ascii_lowercase())),
                    None => (entry.size, Checksum::GitBlob(entry.oid.to_ascii_lowercase())),
                };
                files.push(HubFile { path: entry.path, size, checksum });
            }
            // Only the hub's own pages are followed, so a listing cannot send the token elsewhere.
            next = match link {
                Some(link) => {
                    let link = self.endpoint.join(&link).map_err(|e| ModelsError::Fetch(format!("{page}: next page {link:?}: {e}")))?;
                    if link.origin() != self.endpoint.origin() {
                        return Err(ModelsError::Fetch(format!("{page}: the next page is on another host ({link})")));
                    }
                    Some(link.to_string())
                }
                None => None,
            };
        }
        Ok(files)
    }

    /// Pulls the files `spec` selects into `models_dir/{owner}--{name}`, reporting progress
    /// through `say`.
    ///
    /// # Errors
    /// A repository the hub does not show this client, a pattern that selects nothing (or, with
    /// no pattern, a repository of several GGUF models), a download or checksum failure. Files
    /// that did not verify are removed; completed ones stay and are not fetched again.
    pub fn pull(&self, spec: &PullSpec, models_dir: &Path, say: &mut dyn FnMut(&str)) -> Result<Pulled, ModelsError> {
        let commit = self.resolve(spec)?;
        say(&format!("{}: revision {} is commit {commit}", spec.repo, spec.revision));
        let all = self.tree(spec, &commit)?;
        let selected: Vec<HubFile> = all.iter().filter(|f| spec.selects(&f.path)).cloned().collect();
        let listing = || {
            let mut names: Vec<&str> = all.iter().map(|f| f.path.as_str()).collect();
            if names.len() > 30 {
                names.truncate(30);
                names.push("…");
            }
            names.join(", ")
        };
        if selected.is_empty() {
            return Err(ModelsError::Unknown(match &spec.pattern {
                Some(pattern) => format!("{pattern:?} matches no file of {} (it has: {})", spec.repo, listing()),
                None => format!("{} has no files", spec.repo),
            }));
        }
        let ggufs = selected.iter().filter(|f| f.path.to_ascii_lowercase().ends_with(".gguf") && !f.path.contains("-of-")).count();
        if spec.pattern.is_none() && ggufs > 1 {
            return Err(ModelsError::Unknown(format!(
                "{} holds {ggufs} GGUF models; name the one to pull, e.g. {}:*Q4_K_M.gguf (it has: {})",
                spec.repo,
                spec.repo,
                listing()
            )));
        }

        let dir = models_dir.join(spec.folder_name());
        let partial = dir.join(".partial");
        fs::create_dir_all(&partial).map_err(io_err(&partial))?;
        let record_path = dir.join(PULL_RECORD);
        let mut record: PullRecord = fs::read(&record_path).ok().and_then(|b| serde_json::from_slice(&b).ok()).unwrap_or_default();
        record.repo.clone_from(&spec.repo);
        record.commit.clone_from(&commit);

        let total: u64 = selected.iter().map(|f| f.size).sum();
        say(&format!("{}: {} file(s), {:.1} MiB, into {}", spec.repo, selected.len(), mib(total), dir.display()));
        let (owner, name) = spec.repo.split_once('/').expect("a parsed spec");
        let mut downloaded_bytes = 0;
        for file in &selected {
            let target = dir.join(safe_relative(&file.path).expect("checked when listed"));
            let unchanged = record.files.get(&file.path).is_some_and(|v| {
                v.file == *file && Some(v.modified_ns) == modified_ns(&target) && fs::metadata(&target).is_ok_and(|m| m.len() == file.size)
            });
            if unchanged {
                say(&format!("  {}: verified before", file.path));
                continue;
            }
            if fs::metadata(&target).is_ok_and(|m| m.len() == file.size) && verify(&target, &file.checksum)? {
                say(&format!("  {}: present and verified", file.path));
            } else {
                let part = partial.join(format!("{}.part", file.path.replace('/', "%2F")));
                let mut segments = vec![owner, name, "resolve", commit.as_str()];
                segments.extend(file.path.split('/'));
                let url = self.url(&segments);
                let have = fs::metadata(&part).map(|m| m.len()).unwrap_or(0);
                download(&self.client, url.as_str(), self.token.as_deref(), &part, &format!("  {}", file.path), say)?;
                let size = fs::metadata(&part).map_err(io_err(&part))?.len();
                if size != file.size || !verify(&part, &file.checksum)? {
                    let _ = fs::remove_file(&part);
                    return Err(ModelsError::Verify(format!(
                        "{}/{}: the download ({size} bytes) does not match the hub's checksum for {} bytes; it was removed, run the command again",
                        spec.repo, file.path, file.size
                    )));
                }
                if let Some(parent) = target.parent() {
                    fs::create_dir_all(parent).map_err(io_err(parent))?;
                }
                fs::rename(&part, &target).map_err(io_err(&target))?;
                downloaded_bytes += size.saturating_sub(have);
            }
            let modified_ns =
                modified_ns(&target).ok_or_else(|| ModelsError::Io { path: target.clone(), source: io::Error::other("no modification time") })?;
            record.files.insert(file.path.clone(), Verified { file: file.clone(), modified_ns });
            // Written after every file, so an interrupted pull keeps what it verified.
            let bytes = serde_json::to_vec_pretty(&record).expect("the record serialises");
            fs::write(&record_path, bytes).map_err(io_err(&record_path))?;
        }
        let _ = fs::remove_dir(&partial);
        Ok(Pulled { repo: spec.repo.clone(), commit, dir, files: selected, downloaded_bytes })
    }
}

/// Whether `path` has `checksum`.
fn verify(path: &Path, checksum: &Checksum) -> Result<bool, ModelsError> {
    match checksum {
        Checksum::Sha256(expected) => Ok(sha256_file(path)? == *expected),
        Checksum::GitBlob(expected) => {
            let mut file = File::open(path).map_err(io_err(path))?;
            let length = file.metadata().map_err(io_err(path))?.len();
            let mut hasher = Sha1::new();
            hasher.update(format!("blob {length}\0").as_bytes());
            io::copy(&mut file, &mut hasher).map_err(io_err(path))?;
            Ok(hex::encode(hasher.finalize()) == *expected)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specs_are_parsed_and_bad_ones_refused() {
        let spec: PullSpec = "Systran/faster-whisper-large-v3".parse().unwrap();
        assert_eq!((spec.repo.as_str(), spec.revision.as_str(), spec.pattern.as_deref()), ("Systran/faster-whisper-large-v3", "main", None));
        let spec: PullSpec = "bartowski/Qwen2.5-7B-Instruct-GGUF@v1.0:*Q4_K_M.gguf".parse().unwrap();
        assert_eq!((spec.revision.as_str(), spec.pattern.as_deref()), ("v1.0", Some("*Q4_K_M.gguf")));
        assert_eq!(spec.folder_name(), "bartowski--Qwen2.5-7B-Instruct-GGUF");
        assert_eq!(spec.to_string(), "bartowski/Qwen2.5-7B-Instruct-GGUF@v1.0:*Q4_K_M.gguf");
        for bad in ["", "name", "a/b/c", "../x", "a/..", "a/.hidden", "a/b:", "a/b@", "a/b@../main", "a b/c", "a/b@x y"] {
            assert!(bad.parse::<PullSpec>().is_err(), "{bad:?} should be refused");
        }
    }

    #[test]
    fn globs_match_whole_paths() {
        let matches = |p: &str, t: &str| glob_match(p.as_bytes(), t.as_bytes());
        assert!(matches("*Q4_K_M.gguf", "qwen2.5-7b-instruct-Q4_K_M.gguf"));
        assert!(!matches("*Q4_K_M.gguf", "qwen2.5-7b-instruct-Q4_K_M.gguf.sig"));
        assert!(matches("*.gguf", "sub/dir/model.gguf"), "a star crosses folders");
        assert!(matches("model-0000?-of-00003.gguf", "model-00002-of-00003.gguf"));
        assert!(matches("config.json", "config.json"));
        assert!(!matches("config.json", "sub/config.json"));
        assert!(matches("*a*b*c*", "xxaxxbxxcxx"));
        assert!(!matches("*a*b*c*", "xxaxxcxxbxx"));
        // Many stars over a long text stay fast (no exponential backtracking).
        let long = "a".repeat(5_000);
        assert!(!matches("*a*a*a*a*a*a*a*a*b", &long));
    }

    #[test]
    fn repository_paths_never_leave_the_folder() {
        assert!(safe_relative("model.bin").is_some());
        assert!(safe_relative("sub/dir/model.gguf").is_some());
        for bad in ["", "../x", "a/../../x", "/etc/passwd", "a\\..\\x", "./x", "nul\0byte"] {
            assert!(safe_relative(bad).is_none(), "{bad:?}");
        }
        assert!(safe_relative("a/../b").is_none(), "even a path that would come back in");
    }

    #[test]
    fn git_blob_ids_are_git_s() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        fs::write(&path, b"hello\n").unwrap();
        // `printf 'hello\n' | git hash-object --stdin`
        assert!(verify(&path, &Checksum::GitBlob("ce013625030ba8dba906f756967f9e9ca394464a".into())).unwrap());
        assert!(!verify(&path, &Checksum::GitBlob("0000000000000000000000000000000000000000".into())).unwrap());
        // `printf 'hello\n' | sha256sum`
        assert!(verify(&path, &Checksum::Sha256("5891b5b522d5df086d0ff0b110fbd9d21bb4fc7163af34d08286a2e846f6be03".into())).unwrap());
    }
}
