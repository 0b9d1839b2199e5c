//! One story of the store, told to both backends: whatever SQLite does, PostgreSQL does too.

use std::sync::Arc;

use callscope_domain::{
    ApiKeySecret, Clock, KeyDigest, Language, ManualClock, NewProject, OrgId, PageRequest, PiiRedaction, ProjectId,
    ProjectPatch,
};
use callscope_store::testing::TestDatabase;
use callscope_store::both_backends;
use callscope_store::{connect, Backend, Store, StoreError, StoreOptions};
use chrono::{DateTime, TimeDelta};

async fn open(backend: Backend) -> (TestDatabase, Arc<dyn Store>, Arc<ManualClock>) {
    let db = TestDatabase::new(backend).await;
    let start = DateTime::parse_from_rfc3339("2026-03-01T10:00:00.999Z").unwrap().to_utc();
    let clock = Arc::new(ManualClock::new(start));
    let store = connect(&StoreOptions { url: db.url().to_owned(), max_connections: 8 }, clock.clone())
        .await
        .expect("connect");
    assert_eq!(store.backend(), backend);
    store.migrate().await.expect("migrate");
    store.migrate().await.expect("migrating twice is a no-op");
    (db, store, clock)
}

both_backends!(
    bootstrap_happens_once_even_when_raced,
    keys_authenticate_until_revoked,
    projects_are_scoped_to_their_organization,
    project_lists_page_newest_first,
    project_patches_change_only_what_they_name,
);

async fn bootstrap_happens_once_even_when_raced(backend: Backend) {
    let (_db, store, _) = open(backend).await;
    let attempts = (0..6).map(|i| {
        let store = store.clone();
        tokio::spawn(async move { store.bootstrap("default", "bootstrap", &KeyDigest::of(&format!("k{i}"))).await })
    });
    let mut created = 0;
    for attempt in attempts {
        if attempt.await.unwrap().expect("bootstrap").is_some() {
            created += 1;
        }
    }
    assert_eq!(created, 1, "exactly one process creates the default organization");
    let orgs = store.list_organizations().await.unwrap();
    assert_eq!(orgs.len(), 1);
    assert_eq!(orgs[0].name, "default");
    assert_eq!(store.list_api_keys(orgs[0].id).await.unwrap().len(), 1);
}

async fn keys_authenticate_until_revoked(backend: Backend) {
    let (_db, store, clock) = open(backend).await;
    let org = store.create_organization("acme").await.unwrap();
    let secret = ApiKeySecret::generate();
    let key = store.create_api_key(org.id, "ci", &secret.digest()).await.unwrap().expect("org exists");
    assert_eq!(key.org_id, org.id);
    assert_eq!(key.revoked_at, None);

    let principal = store.authenticate(&KeyDigest::of(secret.expose())).await.unwrap().expect("valid key");
    assert_eq!((principal.org_id, principal.key_id), (org.id, key.id));
    assert!(store.authenticate(&KeyDigest::of("csk_unknown")).await.unwrap().is_none());

    assert!(
        store.create_api_key(OrgId::new(), "x", &KeyDigest::of("y")).await.unwrap().is_none(),
        "a key needs an existing organization"
    );
    let duplicate = store.create_api_key(org.id, "again", &secret.digest()).await;
    assert!(matches!(duplicate, Err(StoreError::Conflict(_))), "{duplicate:?}");

    let revoked = store.revoke_api_key(key.id).await.unwrap().expect("key exists");
    let first_revocation = revoked.revoked_at.expect("revoked");
    assert_eq!(first_revocation, clock.now());
    assert!(store.authenticate(&secret.digest()).await.unwrap().is_none(), "revoked keys do not authenticate");
    clock.advance(TimeDelta::minutes(5));
    let again = store.revoke_api_key(key.id).await.unwrap().unwrap();
    assert_eq!(again.revoked_at, Some(first_revocation), "revoking twice keeps the first time");
    assert!(store.revoke_api_key(callscope_domain::ApiKeyId::new()).await.unwrap().is_none());
}

fn new_project(name: &str) -> NewProject {
    NewProject::parse(name, None, None, None).unwrap()
}

async fn projects_are_scoped_to_their_organization(backend: Backend) {
    let (_db, store, clock) = open(backend).await;
    let acme = store.create_organization("acme").await.unwrap();
    let other = store.create_organization("other").await.unwrap();
    let new = NewProject::parse("Support", Some("Inbound"), Some(Language::Pl), Some(PiiRedaction::Mask)).unwrap();
    let project = store.create_project(acme.id, &new).await.unwrap();
    assert_eq!(project.name, "Support");
    assert_eq!(project.description.as_deref(), Some("Inbound"));
    assert_eq!(project.default_language, Language::Pl);
    assert_eq!(project.pii_redaction, PiiRedaction::Mask);
    assert_eq!(project.created_at, clock.now(), "timestamps keep their milliseconds");
    assert_eq!(project.id.0.get_version_num(), 7);

    assert_eq!(store.get_project(acme.id, project.id).await.unwrap(), Some(project.clone()));
    assert_eq!(store.get_project(other.id, project.id).await.unwrap(), None);
    assert_eq!(store.get_project(acme.id, ProjectId::new()).await.unwrap(), None);
    let patch = ProjectPatch { name: Some("Stolen".into()), ..Default::default() };
    assert_eq!(store.update_project(other.id, project.id, &patch).await.unwrap(), None);
    assert_eq!(store.list_projects(other.id, PageRequest { page: 1, page_size: 10 }).await.unwrap().total, 0);
    assert_eq!(store.get_project(acme.id, project.id).await.unwrap().unwrap().name, "Support");
}

async fn project_lists_page_newest_first(backend: Backend) {
    let (_db, store, clock) = open(backend).await;
    let org = store.create_organization("acme").await.unwrap();
    let mut ids = Vec::new();
    for i in 0..7 {
        // Steps of 1 ms and of whole seconds: ordering must hold across both.
        clock.advance(if i % 2 == 0 { TimeDelta::milliseconds(1) } else { TimeDelta::seconds(1) });
        ids.push(store.create_project(org.id, &new_project(&format!("p{i}"))).await.unwrap().id);
    }
    ids.reverse();
    let first = store.list_projects(org.id, PageRequest { page: 1, page_size: 3 }).await.unwrap();
    assert_eq!(first.total, 7);
    assert_eq!(first.total_pages(3), 3);
    assert_eq!(first.items.iter().map(|p| p.id).collect::<Vec<_>>(), ids[..3]);
    let last = store.list_projects(org.id, PageRequest { page: 3, page_size: 3 }).await.unwrap();
    assert_eq!(last.items.iter().map(|p| p.id).collect::<Vec<_>>(), ids[6..]);
    let past = store.list_projects(org.id, PageRequest { page: 4, page_size: 3 }).await.unwrap();
    assert!(past.items.is_empty());
    assert_eq!(past.total, 7);
}

async fn project_patches_change_only_what_they_name(backend: Backend) {
    let (_db, store, clock) = open(backend).await;
    let org = store.create_organization("acme").await.unwrap();
    let created = store
        .create_project(org.id, &NewProject::parse("Sales", Some("Outbound"), None, None).unwrap())
        .await
        .unwrap();
    clock.advance(TimeDelta::seconds(3));

    let language_only = ProjectPatch { default_language: Some(Language::Pl), ..Default::default() };
    let updated = store.update_project(org.id, created.id, &language_only).await.unwrap().unwrap();
    assert_eq!(updated.default_language, Language::Pl);
    assert_eq!(updated.name, "Sales");
    assert_eq!(updated.description.as_deref(), Some("Outbound"));
    assert_eq!(updated.pii_redaction, PiiRedaction::None);
    assert_eq!(updated.created_at, created.created_at);
    assert_eq!(updated.updated_at, clock.now());

    let clear = ProjectPatch::parse(Some("Sales EU"), Some(None), None, Some(PiiRedaction::Mask)).unwrap();
    let updated = store.update_project(org.id, created.id, &clear).await.unwrap().unwrap();
    assert_eq!(updated.name, "Sales EU");
    assert_eq!(updated.description, None);
    assert_eq!(updated.pii_redaction, PiiRedaction::Mask);
    assert_eq!(updated.default_language, Language::Pl);
    assert_eq!(store.get_project(org.id, created.id).await.unwrap(), Some(updated));
}
