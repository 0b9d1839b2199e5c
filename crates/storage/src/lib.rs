//! Where uploaded audio lives: one abstraction over the local filesystem (the default, under the
//! data directory) and S3-compatible object storage (`s3://bucket/prefix`, credentials and
//! endpoint from the usual `AWS_*` variables), both through the `object_store` crate.
//!
//! Writes stream: an upload is written part by part as it arrives and becomes visible only when
//! finished, so a failed or refused upload leaves nothing behind.

use std::ops::Range;
use std::path::{Path as FsPath, PathBuf};
use std::sync::Arc;

use bytes::Bytes;
use futures::stream::BoxStream;
use futures::StreamExt;
use object_store::local::LocalFileSystem;
use object_store::path::Path;
use object_store::prefix::PrefixStore;
use object_store::{ObjectStore, WriteMultipart};

/// Parts uploaded at once per write; bounds the memory an upload holds.
const MAX_PARTS_IN_FLIGHT: usize = 2;

/// Why a storage operation failed.
#[derive(Debug, thiserror::Error)]
pub enum StorageError {
    /// The storage URL is not usable.
    #[error("unusable storage URL: {0}")]
    BadUrl(String),
    /// No object under that key.
    #[error("no stored object {0}")]
    NotFound(String),
    /// The backend failed (disk, network, permissions).
    #[error("storage failed: {0}")]
    Backend(#[from] object_store::Error),
    /// Local file I/O failed.
    #[error("storage I/O failed: {0}")]
    Io(#[from] std::io::Error),
}

/// Result of storage operations.
pub type StorageResult<T> = Result<T, StorageError>;

/// The object store for audio.
#[derive(Clone)]
pub struct Storage {
    inner: Arc<dyn ObjectStore>,
    /// For the filesystem backend: its root, so that readers can open files directly.
    local_root: Option<PathBuf>,
    description: String,
}

impl std::fmt::Debug for Storage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Storage").field("location", &self.description).finish()
    }
}

impl Storage {
    /// Opens the store a URL names: `file:///abs/path`, a plain directory path, or
    /// `s3://bucket/optional/prefix`.
    ///
    /// # Errors
    /// A URL of another scheme, or a directory that cannot be created.
    pub fn open(url: &str) -> StorageResult<Self> {
        if let Some(rest) = url.strip_prefix("s3://") {
            let (bucket, prefix) = rest.split_once('/').unwrap_or((rest, ""));
            if bucket.is_empty() {
                return Err(StorageError::BadUrl("s3:// needs a bucket name".into()));
            }
            let s3 = object_store::aws::AmazonS3Builder::from_env().with_bucket_name(bucket).build()?;
            let inner: Arc<dyn ObjectStore> =
                if prefix.trim_matches('/').is_empty() { Arc::new(s3) } else { Arc::new(PrefixStore::new(s3, prefix.trim_matches('/'))) };
            return Ok(Self { inner, local_root: None, description: format!("s3://{bucket}/{prefix}") });
        }
        let dir = match url.strip_prefix("file://") {
            Some(path) => PathBuf::from(path),
            None if !url.contains("://") => PathBuf::from(url),
            None => return Err(StorageError::BadUrl(format!("{url}: expected file://… or s3://…"))),
        };
        Self::local(&dir)
    }

    /// A store in a local directory (created if missing).
    ///
    /// # Errors
    /// A directory that cannot be created.
    pub fn local(dir: &FsPath) -> StorageResult<Self> {
        std::fs::create_dir_all(dir)?;
        let root = std::fs::canonicalize(dir)?;
        let inner = Arc::new(LocalFileSystem::new_with_prefix(&root)?);
        Ok(Self { inner, description: format!("file://{}", root.display()), local_root: Some(root) })
    }

    /// Where the store is, for logs.
    pub fn describe(&self) -> &str {
        &self.description
    }

    /// Starts writing an object; nothing is visible until [`ObjectWriter::finish`].
    ///
    /// # Errors
    /// The backend refusing to start an upload.
    pub async fn writer(&self, key: &str) -> StorageResult<ObjectWriter> {
        let upload = self.inner.put_multipart(&Path::from(key)).await?;
        let durable_at = self.local_root.as_ref().map(|root| (root.clone(), root.join(key)));
        Ok(ObjectWriter { inner: WriteMultipart::new(upload), written: 0, durable_at })
    }

    /// Size of an object in bytes.
    ///
    /// # Errors
    /// [`StorageError::NotFound`] or a backend failure.
    pub async fn size(&self, key: &str) -> StorageResult<u64> {
        match self.inner.head(&Path::from(key)).await {
            Ok(meta) => Ok(meta.size),
            Err(object_store::Error::NotFound { .. }) => Err(StorageError::NotFound(key.to_owned())),
            Err(e) => Err(e.into()),
        }
    }

    /// A byte range of an object, as a stream.
    ///
    /// # Errors
    /// [`StorageError::NotFound`] or a backend failure.
    pub async fn read_range(&self, key: &str, range: Range<u64>) -> StorageResult<BoxStream<'static, StorageResult<Bytes>>> {
        let options = object_store::GetOptions { range: Some(range.into()), ..Default::default() };
        match self.inner.get_opts(&Path::from(key), options).await {
            Ok(result) => Ok(result.into_stream().map(|chunk| chunk.map_err(StorageError::from)).boxed()),
            Err(object_store::Error::NotFound { .. }) => Err(StorageError::NotFound(key.to_owned())),
            Err(e) => Err(e.into()),
        }
    }

    /// A local file holding the object: the object itself on the filesystem backend, otherwise
    /// a download into `scratch` (removed when the returned guard drops).
    ///
    /// # Errors
    /// [`StorageError::NotFound`] or a backend failure.
    pub async fn local_copy(&self, key: &str, scratch: &FsPath) -> StorageResult<LocalCopy> {
        if let Some(root) = &self.local_root {
            let path = root.join(key);
            if !path.is_file() {
                return Err(StorageError::NotFound(key.to_owned()));
            }
            return Ok(LocalCopy { path, temporary: None });
        }
        let size = self.size(key).await?;
        let file = tempfile::NamedTempFile::new_in(scratch)?;
        let mut out = tokio::fs::File::from_std(file.reopen()?);
        let mut stream = self.read_range(key, 0..size).await?;
        while let Some(chunk) = stream.next().await {
            tokio::io::AsyncWriteExt::write_all(&mut out, &chunk?).await?;
        }
        tokio::io::AsyncWriteExt::flush(&mut out).await?;
        Ok(LocalCopy { path: file.path().to_owned(), temporary: Some(file) })
    }

    /// Deletes an object; deleting one that is not there is not an error.
    ///
    /// # Errors
    /// A backend failure.
    pub async fn delete(&self, key: &str) -> StorageResult<()> {
        match self.inner.delete(&Path::from(key)).await {
            Ok(()) | Err(object_store::Error::NotFound { .. }) => Ok(()),
            Err(e) => Err(e.into()),
        }
    }
}

/// An object being written.
pub struct ObjectWriter {
    inner: WriteMultipart,
    written: u64,
    /// On the filesystem backend: the store's root and the object's file, synced on finish.
    durable_at: Option<(PathBuf, PathBuf)>,
}

impl ObjectWriter {
    /// Appends bytes, waiting while too many parts are in flight (so memory stays bounded).
    ///
    /// # Errors
    /// The backend failing a part.
    pub async fn write(&mut self, chunk: &[u8]) -> StorageResult<()> {
        self.inner.wait_for_capacity(MAX_PARTS_IN_FLIGHT).await?;
        self.inner.write(chunk);
        self.written += chunk.len() as u64;
        Ok(())
    }

    /// Bytes written so far.
    pub fn written(&self) -> u64 {
        self.written
    }

    /// Makes the object visible, and durable: on the filesystem backend the file and every
    /// directory from it up to the store's root are synced, so an object whose upload was
    /// answered survives a power cut (S3 acknowledges only what it has stored durably).
    ///
    /// # Errors
    /// The backend failing to complete the upload, or the disk failing to sync it.
    pub async fn finish(self) -> StorageResult<()> {
        self.inner.finish().await?;
        if let Some((root, file)) = self.durable_at {
            tokio::task::spawn_blocking(move || sync_to_root(&root, &file))
                .await
                .map_err(|e| StorageError::Io(std::io::Error::other(format!("the sync stopped: {e}"))))??;
        }
        Ok(())
    }

    /// Discards what was written.
    pub async fn abort(self) {
        let _ = self.inner.abort().await;
    }
}

/// Syncs `file`'s data and then each directory from its own up to `root`: a rename (how the
/// object appeared) and a newly made directory are durable only once their directory is synced.
fn sync_to_root(root: &FsPath, file: &FsPath) -> std::io::Result<()> {
    std::fs::File::open(file)?.sync_all()?;
    let mut dir = file.parent();
    while let Some(current) = dir {
        std::fs::File::open(current)?.sync_all()?;
        if current == root {
            break;
        }
        dir = current.parent().filter(|parent| parent.starts_with(root));
    }
    Ok(())
}

/// A local file with an object's bytes.
pub struct LocalCopy {
    path: PathBuf,
    temporary: Option<tempfile::NamedTempFile>,
}

impl LocalCopy {
    /// The file.
    pub fn path(&self) -> &FsPath {
        &self.path
    }

    /// Whether the file is a download that goes away with this value.
    pub fn is_temporary(&self) -> bool {
        self.temporary.is_some()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn objects_appear_only_when_finished_and_read_back_in_ranges() {
        let dir = tempfile::tempdir().unwrap();
        let storage = Storage::open(&format!("file://{}", dir.path().join("audio").display())).unwrap();
        let mut writer = storage.writer("projects/p/j.wav").await.unwrap();
        let data: Vec<u8> = (0..12_000_000u32).map(|i| (i % 251) as u8).collect();
        for chunk in data.chunks(65_536) {
            writer.write(chunk).await.unwrap();
        }
        assert!(matches!(storage.size("projects/p/j.wav").await, Err(StorageError::NotFound(_))), "invisible until finished");
        assert_eq!(writer.written(), data.len() as u64);
        writer.finish().await.unwrap();
        assert_eq!(storage.size("projects/p/j.wav").await.unwrap(), data.len() as u64);

        let mut stream = storage.read_range("projects/p/j.wav", 1_000..5_000_123).await.unwrap();
        let mut read = Vec::new();
        while let Some(chunk) = stream.next().await {
            read.extend_from_slice(&chunk.unwrap());
        }
        assert_eq!(read, data[1_000..5_000_123]);

        let copy = storage.local_copy("projects/p/j.wav", dir.path()).await.unwrap();
        assert!(!copy.is_temporary(), "the filesystem backend reads in place");
        assert_eq!(std::fs::read(copy.path()).unwrap(), data);

        let mut aborted = storage.writer("projects/p/gone.wav").await.unwrap();
        aborted.write(b"partial").await.unwrap();
        aborted.abort().await;
        assert!(matches!(storage.size("projects/p/gone.wav").await, Err(StorageError::NotFound(_))));

        storage.delete("projects/p/j.wav").await.unwrap();
        storage.delete("projects/p/j.wav").await.unwrap();
        assert!(matches!(storage.local_copy("projects/p/j.wav", dir.path()).await, Err(StorageError::NotFound(_))));
        assert!(Storage::open("ftp://x").is_err());
    }
}
