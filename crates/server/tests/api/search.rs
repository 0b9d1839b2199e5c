//! Keyword search over stored calls (decisions §4): the query language with its errors,
//! English and Polish inflection, folded diacritics, ranking (title weighs more, ties newest
//! first), bounds, paging, escaped snippets with phrase-aware marks, and an index that follows
//! recategorisation and erasure at once.

use callscope_domain::{Language, ProjectId};
use callscope_store::testing::{store_call, text_call};
use callscope_store::Backend;
use reqwest::Method;
use serde_json::{json, Value};

use crate::helpers::{assert_problem, spawn_app, TestApp};

both_backends!(search_finds_ranks_and_highlights, search_refuses_bad_queries_and_follows_changes);

async fn stored(app: &TestApp, project: &str, language: Language, title: &str, transcript: &str, summary: &str) -> String {
    let project = ProjectId(project.parse().unwrap());
    // Times are kept to the millisecond: each call gets a creation time of its own, which the
    // bounds and the newest-first ties below rely on.
    tokio::time::sleep(std::time::Duration::from_millis(2)).await;
    store_call(app.store.as_ref(), project, &text_call(language, title, transcript, summary)).await.0.to_string()
}

async fn search(app: &TestApp, project: &str, query: &str) -> Value {
    let response = app
        .client
        .get(app.url(&format!("/v1/projects/{project}/calls/search")))
        .header("X-API-Key", &app.key)
        .query(&[("q", query)])
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200, "{query}");
    response.json().await.unwrap()
}

async fn hits(app: &TestApp, project: &str, query: &str) -> Vec<String> {
    let page = search(app, project, query).await;
    page["data"].as_array().unwrap().iter().map(|h| h["id"].as_str().unwrap().to_owned()).collect()
}

async fn search_finds_ranks_and_highlights(backend: Backend) {
    let app = spawn_app(backend).await;
    let project = app.create_project("Support").await["id"].as_str().unwrap().to_owned();
    let kettle = stored(
        &app,
        &project,
        Language::En,
        "Refund for a broken kettle",
        "Hello, I bought a kettle and it broke after two days.\nI would like a refund to my credit card.\nI will process the refund today.",
        "The customer asked for a refund of a broken kettle.",
    )
    .await;
    let card = stored(
        &app,
        &project,
        Language::En,
        "Card blocked abroad",
        "My credit card was blocked in Spain.\nWe unblocked the card, so no refund is needed.",
        "A blocked card was unblocked.",
    )
    .await;
    let complaint = stored(
        &app,
        &project,
        Language::Pl,
        "Reklamacja czajnika",
        "Dzień dobry, chcę złożyć reklamację czajnika.\nZwrotem pieniędzy zajmie się nasz dział w Łodzi.",
        "Klient składa reklamację.",
    )
    .await;
    let address = stored(
        &app,
        &project,
        Language::Pl,
        "Zmiana adresu",
        "Proszę o zmianę adresu na ul. Piotrkowską w Łodzi.\nAdres zmieniony <script>alert(1)</script> & zapisany.",
        "Zmiana adresu klienta.",
    )
    .await;

    // Words, stems and ranking: the kettle call says "refund" in its title, summary and twice in
    // the transcript; the card call once.
    let page = search(&app, &project, "refunds").await;
    assert_eq!(
        (page["total"].as_u64(), page["page"].as_u64(), page["pageSize"].as_u64(), page["totalPages"].as_u64()),
        (Some(2), Some(1), Some(25), Some(1))
    );
    let first = &page["data"][0];
    assert_eq!(first["id"], kettle.as_str());
    assert_eq!(page["data"][1]["id"], card.as_str());
    assert!(first["relevance"].as_f64().unwrap() > page["data"][1]["relevance"].as_f64().unwrap(), "{page}");
    for field in [
        "id", "filename", "language", "durationS", "sentimentLevel", "primaryCategory", "actionItemsCount", "createdAt", "title", "snippet",
        "relevance",
    ] {
        assert!(first.get(field).is_some(), "{field}: {first}");
    }
    assert!(first.get("sizeBytes").is_none(), "a search hit has no sizeBytes");
    assert_eq!(first.get("recordedAt"), Some(&Value::Null), "null when the upload did not say when the call took place");
    assert_eq!(first["title"], "Refund for a broken kettle");
    assert_eq!(first["snippet"], "Hello, I bought a kettle and it broke after two days. I would like a <mark>refund</mark> to my credit card. I will process the <mark>refund</mark> today.");

    // Phrases are marked as one; OR; exclusions of words and phrases.
    let phrase = search(&app, &project, "\"credit card\" spain").await;
    assert_eq!(phrase["total"], 1);
    assert_eq!(
        phrase["data"][0]["snippet"],
        "My <mark>credit card</mark> was blocked in <mark>Spain</mark>. We unblocked the card, so no refund is needed."
    );
    assert_eq!(hits(&app, &project, "refund -kettle").await, [card.as_str()]);
    assert!(hits(&app, &project, "refund -\"credit card\"").await.is_empty());
    let either = hits(&app, &project, "kettle OR spain").await;
    assert_eq!(either.len(), 2, "{either:?}");
    assert!(hits(&app, &project, "\"card credit\"").await.is_empty(), "a phrase keeps its order");

    // Polish: inflected forms, and no diacritics needed.
    assert_eq!(hits(&app, &project, "zwrot").await, [complaint.as_str()]);
    assert_eq!(hits(&app, &project, "reklamacja").await, [complaint.as_str()]);
    let lodz = search(&app, &project, "lodz").await;
    assert_eq!(lodz["total"], 2);
    // The snippet is escaped text; only the marks are markup.
    let escaped = search(&app, &project, "adres zapisany").await;
    assert_eq!(escaped["data"][0]["id"], address.as_str());
    let snippet = escaped["data"][0]["snippet"].as_str().unwrap();
    assert!(snippet.contains("&lt;script&gt;alert(1)&lt;/script&gt; &amp; <mark>zapisany</mark>"), "{snippet}");
    assert!(snippet.contains("<mark>adresu</mark>") && snippet.contains("<mark>Adres</mark>"), "{snippet}");

    // Paging.
    let second: Value = app.get(&format!("/v1/projects/{project}/calls/search?q=lodz&pageSize=1&page=2")).await.json().await.unwrap();
    assert_eq!((second["total"].as_u64(), second["totalPages"].as_u64(), second["data"].as_array().unwrap().len()), (Some(2), Some(2), 1));
    assert_eq!(second["data"][0]["id"], lodz["data"][1]["id"]);
    let beyond: Value = app.get(&format!("/v1/projects/{project}/calls/search?q=lodz&page=99")).await.json().await.unwrap();
    assert_eq!((beyond["total"].as_u64(), beyond["data"].as_array().unwrap().len()), (Some(2), 0));

    // Inclusive bounds on the creation time.
    let created = first["createdAt"].as_str().unwrap().replace('+', "%2B");
    let until: Value = app.get(&format!("/v1/projects/{project}/calls/search?q=refund&to={created}")).await.json().await.unwrap();
    assert_eq!(until["data"].as_array().unwrap().iter().map(|h| h["id"].as_str().unwrap()).collect::<Vec<_>>(), [kettle.as_str()]);
    let since: Value = app.get(&format!("/v1/projects/{project}/calls/search?q=refund&from={created}")).await.json().await.unwrap();
    assert_eq!(since["total"], 2);

    // The title weighs more than the transcript; equal matches come newest first.
    let other = app.create_project("Ranking").await["id"].as_str().unwrap().to_owned();
    let in_body = stored(&app, &other, Language::En, "Billing question", "I have a question about my invoice from March.", "").await;
    let in_title = stored(&app, &other, Language::En, "Invoice question", "I have a question about my bill from March.", "").await;
    assert_eq!(hits(&app, &other, "invoice").await, [in_title.clone(), in_body.clone()]);
    let older = stored(&app, &other, Language::En, "Same", "Parcel lost in transit.", "").await;
    tokio::time::sleep(std::time::Duration::from_millis(5)).await;
    let newer = stored(&app, &other, Language::En, "Same", "Parcel lost in transit.", "").await;
    let tie = search(&app, &other, "parcel").await;
    assert_eq!(tie["data"][0]["relevance"], tie["data"][1]["relevance"], "{tie}");
    assert_eq!(hits(&app, &other, "parcel").await, [newer, older]);
}

async fn search_refuses_bad_queries_and_follows_changes(backend: Backend) {
    let app = spawn_app(backend).await;
    let project = app.create_project("Support").await["id"].as_str().unwrap().to_owned();
    let base = format!("/v1/projects/{project}/calls/search");
    let call = stored(&app, &project, Language::En, "Refund", "Please refund my order.", "").await;

    assert_problem(app.get(&base).await, 400, "bad_request").await;
    let unclosed = app.client.get(app.url(&base)).header("X-API-Key", &app.key).query(&[("q", "refund \"my order")]).send().await.unwrap();
    let problem = assert_problem(unclosed, 400, "invalid_query").await;
    assert!(problem["detail"].as_str().unwrap().contains("character 8"), "{problem}");
    for q in ["OR refund", "refund OR", "refund -"] {
        let response = app.client.get(app.url(&base)).header("X-API-Key", &app.key).query(&[("q", q)]).send().await.unwrap();
        assert_problem(response, 400, "invalid_query").await;
    }
    for q in ["", "   ", "-refund", "-\"my order\" -x"] {
        let response = app.client.get(app.url(&base)).header("X-API-Key", &app.key).query(&[("q", q)]).send().await.unwrap();
        assert_problem(response, 422, "validation_failed").await;
    }
    for bad in ["pageSize=0", "pageSize=101", "page=0", "from=2026-12-01T00:00:00Z&to=2026-11-01T00:00:00Z"] {
        assert_problem(app.get(&format!("{base}?q=refund&{bad}")).await, 422, "validation_failed").await;
    }
    assert_problem(app.get(&format!("{base}?q=refund&from=yesterday")).await, 400, "bad_request").await;

    // A category set by hand shows in the hit at once; an erased call is gone at once.
    let category: Value = app.post_json(&format!("/v1/projects/{project}/categories"), &json!({"name": "Refunds"})).await.json().await.unwrap();
    let patched = app.patch_json(&format!("/v1/projects/{project}/calls/{call}/category"), &json!({"categoryId": category["id"]})).await;
    assert_eq!(patched.status(), 200);
    let page: Value = app.get(&format!("{base}?q=refund")).await.json().await.unwrap();
    assert_eq!(page["data"][0]["primaryCategory"], "Refunds");
    let deleted = app.request(Method::DELETE, &format!("/v1/projects/{project}/calls/{call}")).send().await.unwrap();
    assert_eq!(deleted.status(), 204);
    let page: Value = app.get(&format!("{base}?q=refund")).await.json().await.unwrap();
    assert_eq!(page["total"], 0, "{page}");
}
