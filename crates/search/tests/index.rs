//! The index over a real database (both backends): it fills from the calls stored, follows
//! re-analysis, recategorisation and erasure, keeps tenants apart, survives a restart, and is
//! rebuilt when its files are damaged.

use std::sync::Arc;

use callscope_domain::{Clock, Language, ManualClock, NewProject, ProjectId, SystemClock};
use callscope_search::{parse, Opened, SearchError, SearchService};
use callscope_store::testing::{store_call, text_call, TestDatabase};
use callscope_store::{both_backends, Backend, Store, StoreOptions};

both_backends!(
    the_index_follows_the_database,
    a_damaged_index_is_rebuilt_and_a_held_one_refused,
    relevance_tells_nothing_of_other_organizations_calls,
    an_index_that_missed_pruned_erasures_is_built_again
);

async fn open_store(db: &TestDatabase) -> Arc<dyn Store> {
    open_store_at(db, Arc::new(SystemClock)).await
}

async fn open_store_at(db: &TestDatabase, clock: Arc<dyn Clock>) -> Arc<dyn Store> {
    let options = StoreOptions { url: db.url().to_owned(), max_connections: 4 };
    let store = callscope_store::connect(&options, clock).await.unwrap();
    store.migrate().await.unwrap();
    store
}

async fn project(store: &dyn Store, name: &str) -> ProjectId {
    let org = store.create_organization(name).await.unwrap();
    let new = NewProject::parse(name, None, None, None).unwrap();
    store.create_project(org.id, &new).await.unwrap().id
}

async fn ids(search: &SearchService, project: ProjectId, q: &str) -> Vec<callscope_domain::CallId> {
    search.search(project, parse(q).unwrap(), None, None, 0, 100).await.unwrap().hits.into_iter().map(|(id, _)| id).collect()
}

async fn the_index_follows_the_database(backend: Backend) {
    let db = TestDatabase::new(backend).await;
    let store = open_store(&db).await;
    let ours = project(store.as_ref(), "ours").await;
    let theirs = project(store.as_ref(), "theirs").await;
    let refund = store_call(
        store.as_ref(),
        ours,
        &text_call(Language::En, "Refund request", "I want a refund for the kettle.\nSure, I will start it.", "Refund of a kettle."),
    )
    .await;
    let zwrot = store_call(
        store.as_ref(),
        ours,
        &text_call(Language::Pl, "Reklamacja czajnika", "Chcę złożyć reklamację.\nZwrotem zajmie się dział w Łodzi.", "Klient z Łodzi."),
    )
    .await;
    let foreign = store_call(store.as_ref(), theirs, &text_call(Language::En, "Refund", "Refund please.", "")).await;

    let dir = tempfile::tempdir().unwrap();
    let search = SearchService::open(dir.path(), store.clone()).await.unwrap();
    // The first search fills the new index before it answers.
    assert_eq!(ids(&search, ours, "refund").await, [refund]);
    assert_eq!(ids(&search, theirs, "refund").await, [foreign], "each project sees its own calls only");
    assert_eq!(ids(&search, ours, "zwrot").await, [zwrot], "Polish inflection");
    assert_eq!(ids(&search, ours, "reklamacja lodz").await, [zwrot], "inflection and folded diacritics");
    assert_eq!(search.index().len(), 3);

    // A call stored later is found by the next search, without waiting for a background pass.
    let later = store_call(store.as_ref(), ours, &text_call(Language::En, "Card blocked", "My card was blocked abroad.", "")).await;
    assert_eq!(ids(&search, ours, "card").await, [later]);

    // Recategorisation and re-analysis change updated_at; the index picks the new text up.
    let job = store.create_reanalysis_job(ours, later, None).await.unwrap();
    let worker = "reanalyser";
    let claimed = store.claim_job(worker, std::time::Duration::from_secs(60)).await.unwrap().unwrap();
    assert_eq!(claimed.id, job.id);
    let analysis = callscope_store::CallAnalysisRecord {
        title: Some("Chargeback dispute".into()),
        sentiment_level: callscope_domain::SentimentLevel::Negative,
        summary: Some(callscope_store::testing::summary_saying("The customer disputes a chargeback.")),
        ..Default::default()
    };
    assert!(store.complete_reanalysis(claimed.id, worker, &analysis, &[]).await.unwrap());
    assert_eq!(ids(&search, ours, "chargeback").await, [later], "the new title and summary are searched");
    store.set_call_category(ours, refund, None, None).await.unwrap();
    assert_eq!(ids(&search, ours, "refund").await, [refund]);

    // Erasure removes the call from the index.
    store.delete_call(ours, refund).await.unwrap();
    assert!(ids(&search, ours, "refund").await.is_empty());
    assert_eq!(search.index().len(), 3);

    // After a restart the index opens as it was and stays in step.
    drop(search);
    let reopened = SearchService::open(dir.path(), store.clone()).await.unwrap();
    assert_eq!(reopened.opened(), &Opened::Existing);
    assert_eq!(reopened.index().len(), 3);
    assert_eq!(ids(&reopened, ours, "zwrotu").await, [zwrot]);
    assert!(ids(&reopened, ours, "refund").await.is_empty());
    assert!(reopened.index().watermark().unwrap().deleted.is_some());
}

async fn a_damaged_index_is_rebuilt_and_a_held_one_refused(backend: Backend) {
    let db = TestDatabase::new(backend).await;
    let store = open_store(&db).await;
    let ours = project(store.as_ref(), "ours").await;
    let call = store_call(store.as_ref(), ours, &text_call(Language::En, "Invoice", "The invoice is wrong.", "")).await;
    let dir = tempfile::tempdir().unwrap();
    let search = SearchService::open(dir.path(), store.clone()).await.unwrap();
    assert_eq!(ids(&search, ours, "invoice").await, [call]);

    // One writer per index: a second process (here, a second open) is told so.
    match SearchService::open(dir.path(), store.clone()).await {
        Err(SearchError::Index(callscope_search::IndexError::InUse(path))) => assert_eq!(path, dir.path()),
        other => panic!("a held index must be refused, got {:?}", other.map(|_| ())),
    }
    drop(search);

    // Damage every segment file: the next open notices (checksums) and starts afresh.
    for entry in std::fs::read_dir(dir.path()).unwrap().flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.ends_with(".idx") || name.ends_with(".term") || name.ends_with(".store") {
            let mut bytes = std::fs::read(entry.path()).unwrap();
            let middle = bytes.len() / 2;
            bytes[middle] ^= 0xff;
            std::fs::write(entry.path(), bytes).unwrap();
        }
    }
    let (index, opened) = callscope_search::CallIndex::open(dir.path()).unwrap();
    assert!(matches!(&opened, Opened::Created(reason) if reason.contains("damaged")), "{opened:?}");
    assert!(index.is_empty());
    drop(index);
    let rebuilt = SearchService::open(dir.path(), store.clone()).await.unwrap();
    assert_eq!(ids(&rebuilt, ours, "invoice").await, [call], "filled again from the database");
}

/// The relevance of each of the project's hits for `q`.
async fn relevance(search: &SearchService, project: ProjectId, q: &str) -> Vec<(callscope_domain::CallId, f32)> {
    search.search(project, parse(q).unwrap(), None, None, 0, 100).await.unwrap().hits
}

async fn relevance_tells_nothing_of_other_organizations_calls(backend: Backend) {
    let db = TestDatabase::new(backend).await;
    let store = open_store(&db).await;
    let ours = project(store.as_ref(), "ours").await;
    let theirs = project(store.as_ref(), "theirs").await;
    for (title, text) in [
        ("Address change", "Please call Kowalski back about the new address."),
        ("Invoice", "The invoice for March is wrong, Kowalski said."),
        ("Router", "My router keeps dropping the connection every evening."),
    ] {
        store_call(store.as_ref(), ours, &text_call(Language::En, title, text, "")).await;
    }
    let dir = tempfile::tempdir().unwrap();
    let search = SearchService::open(dir.path(), store.clone()).await.unwrap();
    let before = relevance(&search, ours, "kowalski").await;
    let phone_before = relevance(&search, ours, "router connection").await;
    assert_eq!(before.len(), 2);

    // Another organization's calls, many of them naming the same person, change nothing of what
    // this project's search answers.
    for i in 0..40 {
        let text = format!("Kowalski called about order {i}; Kowalski wants it by Friday, and the router too.");
        store_call(store.as_ref(), theirs, &text_call(Language::En, "Order", &text, "Kowalski")).await;
    }
    assert_eq!(relevance(&search, ours, "kowalski").await, before, "scores from this project's calls alone");
    assert_eq!(relevance(&search, ours, "router connection").await, phone_before);
    assert_eq!(relevance(&search, theirs, "kowalski").await.len(), 40);
}

/// Retention prunes the log of erasures. An index that was offline while a call was erased and
/// the erasure then pruned cannot know the call went: it is built again, and the call is not
/// found. An index that applied the erasure in time, or one filled after it, is not rebuilt.
async fn an_index_that_missed_pruned_erasures_is_built_again(backend: Backend) {
    let db = TestDatabase::new(backend).await;
    let clock = Arc::new(ManualClock::new(chrono::Utc::now()));
    let store = open_store_at(&db, clock.clone()).await;
    let ours = project(store.as_ref(), "ours").await;
    let erased = store_call(store.as_ref(), ours, &text_call(Language::En, "Refund", "Jan Kowalski wants a refund.", "")).await;
    let kept = store_call(store.as_ref(), ours, &text_call(Language::En, "Invoice", "Jan Kowalski asks about an invoice.", "")).await;
    let (offline_dir, online_dir) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let offline = SearchService::open(offline_dir.path(), store.clone()).await.unwrap();
    let online = SearchService::open(online_dir.path(), store.clone()).await.unwrap();
    assert_eq!(ids(&offline, ours, "kowalski").await.len(), 2);
    assert_eq!(ids(&online, ours, "kowalski").await.len(), 2);
    drop(offline);

    store.delete_call(ours, erased).await.unwrap();
    assert_eq!(ids(&online, ours, "kowalski").await, [kept]);
    clock.advance(chrono::TimeDelta::days(31));
    assert_eq!(store.prune_deleted_calls(clock.now() - chrono::TimeDelta::days(30)).await.unwrap(), 1);

    // Kept up: nothing to do.
    let pass = online.catch_up(None).await.unwrap();
    assert_eq!((pass.indexed, pass.deleted, pass.complete), (0, 0, true));
    assert_eq!(ids(&online, ours, "kowalski").await, [kept]);

    // Fell behind: emptied, then filled again from the calls that exist.
    let offline = SearchService::open(offline_dir.path(), store.clone()).await.unwrap();
    assert_eq!(offline.index().len(), 2, "as it was left");
    assert!(!offline.catch_up(None).await.unwrap().complete);
    assert!(offline.index().is_empty());
    assert_eq!(offline.catch_up(None).await.unwrap().indexed, 1);
    assert_eq!(ids(&offline, ours, "kowalski").await, [kept]);
    assert!(offline.catch_up(None).await.unwrap().complete, "and is not built again");

    // Filled after the prune: never behind it.
    let fresh_dir = tempfile::tempdir().unwrap();
    let fresh = SearchService::open(fresh_dir.path(), store.clone()).await.unwrap();
    assert_eq!(ids(&fresh, ours, "kowalski").await, [kept]);
    assert!(fresh.catch_up(None).await.unwrap().complete);
    drop(fresh);
    let reopened = SearchService::open(fresh_dir.path(), store.clone()).await.unwrap();
    assert!(reopened.catch_up(None).await.unwrap().complete, "nor after a restart");
    assert_eq!(reopened.index().len(), 1);
}
