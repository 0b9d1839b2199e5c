//! Keeping the index in step with the database, and searching it.
//!
//! The index follows `calls.updated_at`: every change to a call (completion, re-analysis,
//! recategorisation, redaction) sets it, in the transaction that makes the change. A pass reads
//! the calls changed since the watermark in keyset order, re-indexes them, applies the erasures
//! recorded in `call_deletions`, and commits the documents with the new watermark. Each pass
//! looks back [`OVERLAP`] before the watermark, because a transaction may commit a little after
//! the time it stamped; calls already indexed at the same `updated_at` are skipped.

use std::collections::HashMap;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use callscope_domain::{CallId, ProjectId, Timestamp};
use callscope_store::{Erasures, Store, StoreError};
use tokio::sync::{watch, Mutex};

use crate::index::{CallIndex, Hits, IndexError, Opened, Watermark};
use crate::query::Query;

/// How far before the watermark each pass looks again.
pub const OVERLAP: Duration = Duration::from_secs(30);

/// Calls read from the database at a time.
const BATCH: u32 = 2_000;

/// Calls a search waits to have indexed before it answers anyway.
const SEARCH_BUDGET: usize = 2_000;

/// Calls indexed between commits while catching up on many.
const COMMIT_EVERY: usize = 20_000;

/// Why searching or indexing failed.
#[derive(Debug, thiserror::Error)]
pub enum SearchError {
    /// The index failed.
    #[error(transparent)]
    Index(#[from] IndexError),
    /// The database failed.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// The index is being built from the database and is not complete yet.
    #[error("the search index is being built ({indexed} calls so far); try again shortly")]
    Building {
        /// Calls indexed so far.
        indexed: u64,
    },
}

/// What one catch-up did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CatchUp {
    /// Calls (re-)indexed.
    pub indexed: usize,
    /// Calls removed.
    pub deleted: usize,
    /// Whether the index reached the database's state (false when the budget ran out first).
    pub complete: bool,
}

struct SyncState {
    watermark: Watermark,
    /// The last change this process has read (keyset position), for quick passes.
    cursor: Option<(Timestamp, CallId)>,
    /// The newest erasure this process has read.
    newest_deletion: Option<Timestamp>,
    /// Calls indexed within the overlap, with the `updated_at` indexed.
    recent: HashMap<CallId, Timestamp>,
    /// Erasures applied within the overlap.
    recent_deletions: HashMap<CallId, Timestamp>,
    /// When the last pass began.
    last_pass: Option<Instant>,
}

impl SyncState {
    /// Forgets what this process read since the last commit that held, so that the next pass
    /// reads it again from the stored watermark: a failed commit loses the index's changes.
    fn forget_uncommitted(&mut self) {
        self.cursor = None;
        self.newest_deletion = None;
        self.recent.clear();
        self.recent_deletions.clear();
    }
}

/// The search index with its link to the database.
pub struct SearchService {
    store: Arc<dyn Store>,
    index: Arc<CallIndex>,
    sync: Mutex<SyncState>,
    ready: AtomicBool,
    opened: Opened,
}

impl SearchService {
    /// Opens (or makes) the index in `dir` over `store`. A new index is empty until the first
    /// catch-up fills it; searches answer [`SearchError::Building`] until then.
    ///
    /// # Errors
    /// When the index is held by another process or the disk fails.
    pub async fn open(dir: &Path, store: Arc<dyn Store>) -> Result<Arc<Self>, SearchError> {
        let dir = dir.to_owned();
        let (index, opened) =
            tokio::task::spawn_blocking(move || CallIndex::open(&dir)).await.map_err(|e| IndexError::Io(std::io::Error::other(e)))??;
        match &opened {
            Opened::Existing => tracing::info!(path = %index.dir().display(), calls = index.len(), "search index opened"),
            Opened::Created(reason) => {
                tracing::info!(path = %index.dir().display(), reason = %reason, "search index created; filling it from the database")
            }
        }
        let watermark = index.watermark()?;
        Ok(Arc::new(Self {
            store,
            index: Arc::new(index),
            sync: Mutex::new(SyncState {
                watermark,
                cursor: None,
                newest_deletion: None,
                recent: HashMap::new(),
                recent_deletions: HashMap::new(),
                last_pass: None,
            }),
            ready: AtomicBool::new(false),
            opened,
        }))
    }

    /// What opening found.
    pub fn opened(&self) -> &Opened {
        &self.opened
    }

    /// The index.
    pub fn index(&self) -> &CallIndex {
        &self.index
    }

    /// Empties the index and forgets its watermark, so that the next catch-ups rebuild it
    /// from the whole database (`callscope reindex`).
    ///
    /// # Errors
    /// When the index cannot be written.
    pub async fn clear(&self) -> Result<(), SearchError> {
        let mut state = self.sync.lock().await;
        self.empty(&mut state).await
    }

    async fn empty(&self, state: &mut SyncState) -> Result<(), SearchError> {
        let index = Arc::clone(&self.index);
        blocking(move || index.clear()).await?;
        state.watermark = Watermark::default();
        state.recent.clear();
        state.recent_deletions.clear();
        state.cursor = None;
        state.newest_deletion = None;
        self.ready.store(false, Ordering::Release);
        Ok(())
    }

    /// Brings the index up to the database: indexes calls changed since the watermark and
    /// removes erased ones, committing at the end (and every [`COMMIT_EVERY`] calls). With a
    /// `budget`, stops after about that many calls. A caller that finds a pass begun after it
    /// asked waits for that pass instead of running another.
    ///
    /// This is the full pass: it looks [`OVERLAP`] back for changes committed late.
    ///
    /// # Errors
    /// When the database or the index fails; what was committed before stays.
    pub async fn catch_up(&self, budget: Option<usize>) -> Result<CatchUp, SearchError> {
        self.pass(budget, true).await
    }

    /// The quick pass searches run: it reads only what changed after the last change this
    /// process has seen. A transaction that commits after a later-stamped one is left to the
    /// next full pass (at most `search_sync_interval_ms` away).
    ///
    /// # Errors
    /// As [`Self::catch_up`].
    pub async fn catch_up_quickly(&self, budget: Option<usize>) -> Result<CatchUp, SearchError> {
        self.pass(budget, false).await
    }

    async fn pass(&self, budget: Option<usize>, full: bool) -> Result<CatchUp, SearchError> {
        let asked = Instant::now();
        let mut state = self.sync.lock().await;
        if state.last_pass.is_some_and(|at| at > asked) && self.ready.load(Ordering::Acquire) {
            return Ok(CatchUp { complete: true, ..CatchUp::default() });
        }
        state.last_pass = Some(Instant::now());
        let started_empty = state.watermark.changed.is_none() && state.cursor.is_none();
        let overlap = chrono::TimeDelta::from_std(OVERLAP).unwrap_or_default();
        let epoch = Timestamp::UNIX_EPOCH;
        let look_back = (state.watermark.changed.map_or(epoch, |t| t - overlap), CallId(uuid::Uuid::nil()));
        let mut cursor = match state.cursor {
            Some(seen) if !full => seen.max(look_back),
            _ => look_back,
        };
        let mut progress = CatchUp { complete: true, ..CatchUp::default() };
        let mut newest = state.watermark.changed;
        let mut uncommitted = 0;
        loop {
            let batch = self.store.changed_calls(cursor, BATCH).await?;
            let Some(&(last_id, last_at)) = batch.last() else { break };
            cursor = (last_at, last_id);
            let todo: Vec<CallId> = batch.iter().filter(|(id, at)| state.recent.get(id) != Some(at)).map(|(id, _)| *id).collect();
            if !todo.is_empty() {
                let documents = self.store.search_documents(None, &todo).await?;
                let index = Arc::clone(&self.index);
                blocking(move || index.upsert(&documents)).await?;
            }
            // Only once the batch is in the writer: a batch that failed is read again next time.
            state.cursor = state.cursor.max(Some(cursor));
            for (id, at) in &batch {
                state.recent.insert(*id, *at);
            }
            newest = newest.max(Some(last_at));
            progress.indexed += todo.len();
            uncommitted += todo.len();
            if uncommitted >= COMMIT_EVERY {
                let watermark = Watermark { changed: newest, ..state.watermark.clone() };
                self.commit_or_forget(&mut state, &watermark).await?;
                uncommitted = 0;
            }
            if batch.len() < BATCH as usize {
                break;
            }
            if budget.is_some_and(|b| progress.indexed >= b) {
                progress.complete = false;
                break;
            }
        }
        let look_back = state.watermark.deleted.map_or(epoch, |t| t - overlap);
        let since = match state.newest_deletion {
            Some(seen) if !full => seen.max(look_back),
            _ => look_back,
        };
        let Erasures { calls: deletions, pruned_through } = self.store.deleted_calls(since).await?;
        if pruned_through > state.watermark.deleted.max(state.newest_deletion) {
            if !started_empty {
                // Retention pruned erasures this index never applied: which of its calls they
                // named cannot be known any more, and an erased call must not stay findable.
                tracing::warn!(
                    applied = ?state.watermark.deleted,
                    pruned_through = ?pruned_through,
                    "the search index missed erasures that retention has since pruned; building it again from the database"
                );
                self.empty(&mut state).await?;
                return Ok(CatchUp { complete: false, ..progress });
            }
            // An index filled from nothing holds no call erased before it began, and what was
            // pruned was erased a retention period ago.
            state.newest_deletion = state.newest_deletion.max(pruned_through);
        }
        let gone: Vec<CallId> = deletions.iter().filter(|(id, at)| state.recent_deletions.get(id) != Some(at)).map(|(id, _)| *id).collect();
        let newest_deletion = deletions.iter().map(|(_, at)| *at).max().max(state.watermark.deleted).max(state.newest_deletion);
        if !gone.is_empty() {
            self.index.delete(&gone);
            progress.deleted = gone.len();
        }
        for (id, at) in deletions {
            state.recent_deletions.insert(id, at);
        }
        state.newest_deletion = state.newest_deletion.max(newest_deletion);
        if uncommitted > 0 || progress.deleted > 0 || newest != state.watermark.changed {
            let watermark = Watermark { changed: newest, deleted: newest_deletion, ..state.watermark.clone() };
            self.commit_or_forget(&mut state, &watermark).await?;
        }
        // What fell out of the overlap cannot come back: forget it.
        if let Some(horizon) = state.watermark.changed.map(|t| t - overlap) {
            state.recent.retain(|_, at| *at >= horizon);
        }
        if let Some(horizon) = state.watermark.deleted.map(|t| t - overlap) {
            state.recent_deletions.retain(|_, at| *at >= horizon);
        }
        if progress.complete {
            self.ready.store(true, Ordering::Release);
        }
        Ok(progress)
    }

    /// Commits with `watermark` and takes it as the state's; when the commit fails, the state
    /// forgets what the lost changes had read.
    async fn commit_or_forget(&self, state: &mut SyncState, watermark: &Watermark) -> Result<(), SearchError> {
        match self.commit(watermark).await {
            Ok(()) => {
                state.watermark = watermark.clone();
                Ok(())
            }
            Err(error) => {
                state.forget_uncommitted();
                Err(error)
            }
        }
    }

    async fn commit(&self, watermark: &Watermark) -> Result<(), SearchError> {
        let index = Arc::clone(&self.index);
        let watermark = watermark.clone();
        blocking(move || index.commit(&watermark)).await?;
        Ok(())
    }

    /// One page of the project's calls matching `query` (see [`CallIndex::search`]), after
    /// catching up with the database.
    ///
    /// # Errors
    /// [`SearchError::Building`] while a new index is still being filled; database and index
    /// failures.
    pub async fn search(
        &self,
        project: ProjectId,
        query: Query,
        from: Option<Timestamp>,
        to: Option<Timestamp>,
        offset: usize,
        limit: usize,
    ) -> Result<Hits, SearchError> {
        self.catch_up_quickly(Some(SEARCH_BUDGET)).await?;
        if !self.ready.load(Ordering::Acquire) {
            return Err(SearchError::Building { indexed: self.index.len() });
        }
        let index = Arc::clone(&self.index);
        Ok(blocking(move || index.search(project, &query, from, to, offset, limit)).await?)
    }

    /// Catches up every `interval` until `shutdown` turns true, so the index stays fresh (and a
    /// new one fills) without waiting for searches.
    pub fn spawn(self: &Arc<Self>, interval: Duration, mut shutdown: watch::Receiver<bool>) -> tokio::task::JoinHandle<()> {
        let service = Arc::clone(self);
        tokio::spawn(async move {
            loop {
                match service.catch_up(None).await {
                    Ok(done) if done.indexed + done.deleted > 0 => {
                        tracing::debug!(indexed = done.indexed, deleted = done.deleted, "search index caught up");
                    }
                    Ok(_) => {}
                    Err(err) => tracing::warn!(error = %err, "search index could not catch up; trying again"),
                }
                tokio::select! {
                    _ = tokio::time::sleep(interval) => {}
                    _ = shutdown.wait_for(|stop| *stop) => break,
                }
            }
        })
    }
}

async fn blocking<T: Send + 'static>(work: impl FnOnce() -> Result<T, IndexError> + Send + 'static) -> Result<T, IndexError> {
    tokio::task::spawn_blocking(work).await.map_err(|e| IndexError::Io(std::io::Error::other(e)))?
}
