//! What a process that runs for months cleans up after itself: events (and their webhook
//! deliveries) and the indexes' change logs past the retention setting, and scratch files a
//! crash left in the data directory. An index whose state is older than what was pruned reads
//! its data again (see the store's `prune_item_changes` and `prune_deleted_calls`).
//! `serve` and `worker` both run it, once at start and then every hour; any number of processes
//! may, since each step is idempotent.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use callscope_domain::Clock;
use callscope_store::Store;
use tokio::sync::watch;

/// Time between rounds.
const EVERY: Duration = Duration::from_secs(3600);

/// Scratch files untouched this long belong to no attempt any more: no stage reads a file that
/// long (its writes stop once decoded or downloaded, and the job that holds it is bounded by its
/// stage limits; deleting a file a job still holds open does not take it from the job).
pub const ORPHAN_AGE: Duration = Duration::from_secs(24 * 3600);

/// What housekeeping does.
#[derive(Debug, Clone)]
pub struct Housekeeping {
    /// How long events, deliveries and change logs are kept; `None` keeps them for ever.
    pub retention: Option<Duration>,
    /// The data directory's scratch space.
    pub scratch_dir: PathBuf,
}

impl Housekeeping {
    /// Runs a round at once and then every hour until `stop` turns true.
    pub fn spawn(self, store: Arc<dyn Store>, clock: Arc<dyn Clock>, mut stop: watch::Receiver<bool>) -> tokio::task::JoinHandle<()> {
        tokio::spawn(async move {
            loop {
                self.round(store.as_ref(), clock.as_ref()).await;
                tokio::select! {
                    () = tokio::time::sleep(EVERY) => {}
                    _ = stop.wait_for(|stopped| *stopped) => return,
                }
            }
        })
    }

    /// One round: prune, then sweep.
    pub async fn round(&self, store: &dyn Store, clock: &dyn Clock) {
        if let Some(retention) = self.retention {
            let before = clock.now() - chrono::TimeDelta::from_std(retention).unwrap_or(chrono::TimeDelta::MAX);
            match store.prune_events(before).await {
                Ok(0) => {}
                Ok(pruned) => tracing::info!(pruned, "events and deliveries past the retention period deleted"),
                Err(error) => tracing::warn!(%error, "could not prune events; will try again within the hour"),
            }
            match store.prune_item_changes(before).await {
                Ok(0) => {}
                Ok(pruned) => tracing::info!(pruned, "action item changes past the retention period deleted"),
                Err(error) => tracing::warn!(%error, "could not prune the action item change log; will try again within the hour"),
            }
            match store.prune_deleted_calls(before).await {
                Ok(0) => {}
                Ok(pruned) => tracing::info!(pruned, "erasures past the retention period deleted from the search index's log"),
                Err(error) => tracing::warn!(%error, "could not prune the log of erasures; will try again within the hour"),
            }
        }
        let dir = self.scratch_dir.clone();
        let swept = tokio::task::spawn_blocking(move || sweep(&dir, ORPHAN_AGE, SystemTime::now())).await.unwrap_or(0);
        if swept > 0 {
            tracing::info!(swept, dir = %self.scratch_dir.display(), "scratch files left by earlier attempts deleted");
        }
    }
}

/// Deletes the files directly in `dir` not modified for `age` before `now`; returns how many.
pub fn sweep(dir: &Path, age: Duration, now: SystemTime) -> usize {
    let Ok(entries) = std::fs::read_dir(dir) else { return 0 };
    let mut swept = 0;
    for entry in entries.flatten() {
        let Ok(meta) = entry.metadata() else { continue };
        let old = meta.modified().ok().and_then(|m| now.duration_since(m).ok()).is_some_and(|idle| idle >= age);
        if meta.is_file() && old && std::fs::remove_file(entry.path()).is_ok() {
            swept += 1;
        }
    }
    swept
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_files_left_for_a_day_are_swept() {
        let dir = tempfile::tempdir().unwrap();
        let now = SystemTime::now();
        let old = dir.path().join("decoding-1-0.0.f32");
        let fresh = dir.path().join("decoding-1-1.0.f32");
        std::fs::write(&old, b"left by a crash").unwrap();
        std::fs::write(&fresh, b"in use").unwrap();
        std::fs::File::options().write(true).open(&old).unwrap().set_modified(now - ORPHAN_AGE - Duration::from_secs(60)).unwrap();
        std::fs::create_dir(dir.path().join("a-folder")).unwrap();
        assert_eq!(sweep(dir.path(), ORPHAN_AGE, now), 1);
        assert!(!old.exists() && fresh.exists() && dir.path().join("a-folder").exists());
        assert_eq!(sweep(&dir.path().join("missing"), ORPHAN_AGE, now), 0);
    }
}
