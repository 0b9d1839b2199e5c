//! Authentication (decisions §3): keys as SHA-256 only, the bootstrap key, 401s.

use std::os::unix::fs::PermissionsExt;

use callscope_store::Backend;
use sha2::{Digest, Sha256};

use crate::helpers::{assert_problem, spawn_app};

both_backends!(
    missing_unknown_and_revoked_keys_get_the_same_401,
    the_bootstrap_key_is_written_once_with_private_permissions,
    only_the_sha256_of_a_key_is_stored,
);

async fn missing_unknown_and_revoked_keys_get_the_same_401(backend: Backend) {
    let app = spawn_app(backend).await;
    let project = app.create_project("Support").await;
    let path = format!("/v1/projects/{}", project["id"].as_str().unwrap());

    let missing = app.client.get(app.url(&path)).send().await.unwrap();
    let missing = assert_problem(missing, 401, "unauthorized").await;
    let unknown = app.client.get(app.url(&path)).header("X-API-Key", "csk_nope").send().await.unwrap();
    let unknown = assert_problem(unknown, 401, "unauthorized").await;

    let (_, other_key) = app.other_org("other").await;
    let key_id = app.store.authenticate(&callscope_domain::KeyDigest::of(&other_key)).await.unwrap().unwrap().key_id;
    let ok = app.client.get(app.url("/v1/projects")).header("X-API-Key", &other_key).send().await.unwrap();
    assert_eq!(ok.status(), 200);
    app.store.revoke_api_key(key_id).await.unwrap();
    let revoked = app.client.get(app.url("/v1/projects")).header("X-API-Key", &other_key).send().await.unwrap();
    let revoked = assert_problem(revoked, 401, "unauthorized").await;

    assert_eq!(missing["detail"], unknown["detail"], "existence of keys is not revealed");
    assert_eq!(unknown["detail"], revoked["detail"]);
    // A key is checked before anything else about the request.
    let bad_id = app.client.get(app.url("/v1/projects/not-a-uuid")).send().await.unwrap();
    assert_problem(bad_id, 401, "unauthorized").await;
}

async fn the_bootstrap_key_is_written_once_with_private_permissions(backend: Backend) {
    let app = spawn_app(backend).await;
    let path = app.config.data_dir.join("bootstrap-api-key");
    let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600);
    assert!(app.key.starts_with("csk_"));
    assert_eq!(app.get("/v1/projects").await.status(), 200, "the bootstrap key works");

    // A second start on the same database creates nothing and leaves the file alone. (It is a
    // second server beside the first, so it needs a search index of its own.)
    std::fs::remove_file(&path).unwrap();
    let mut config = app.config.clone();
    config.search_index_dir = app.config.data_dir.join("second-search-index").display().to_string();
    let second = callscope::Application::build(&config, std::sync::Arc::new(callscope_domain::SystemClock)).await.unwrap();
    assert!(!path.exists(), "no new key on a database that has organizations");
    assert_eq!(second.store().list_organizations().await.unwrap().len(), 1);
}

async fn only_the_sha256_of_a_key_is_stored(backend: Backend) {
    let app = spawn_app(backend).await;
    let hashes = app.sql_strings("select key_hash from api_keys").await;
    assert_eq!(hashes, [hex::encode(Sha256::digest(app.key.as_bytes()))]);
    // Nothing in the database holds the key itself.
    let names = app.sql_strings("select name from api_keys").await;
    assert!(names.iter().all(|n| !n.contains(&app.key)));
}
