//! The action item API (decisions §5) on items stored as analysis stores them: every filter,
//! every sort key both ways with its tie-break, the counters under a status filter, paging and
//! its bounds, PATCH with its rules and event, DELETE, the responsible parties, the pending
//! view, and `isOverdue` following a clock the test moves.

use std::sync::Arc;

use callscope_domain::{ActionItemId, Language, ManualClock, NewActionItem, ProjectId};
use callscope_store::testing::{store_call, text_call};
use callscope_store::Backend;
use chrono::{TimeZone, Utc};
use reqwest::Method;
use serde_json::{json, Value};

use crate::helpers::{assert_problem, spawn_app_with_clock, TestApp};

both_backends!(action_items_are_filtered_sorted_counted_and_edited, people_add_an_item_and_merge_a_duplicate);

fn at(day: u32) -> chrono::DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 11, day, 0, 0, 0).unwrap()
}

fn item(description: &str, party: Option<&str>, priority: &str, due: Option<chrono::DateTime<Utc>>) -> NewActionItem {
    NewActionItem {
        id: ActionItemId::new(),
        description: description.into(),
        responsible_party: party.map(Into::into),
        deadline_mentioned: due.map(|_| "by the end of the week".into()),
        due_at: due,
        evidence: Some(format!("\"{description}\"")),
        priority: priority.parse().expect("a priority"),
    }
}

/// Stores a call made on `day` with `items`; returns its id and the items' ids.
async fn call_with(app: &TestApp, project: &str, filename: &str, day: u32, items: Vec<NewActionItem>) -> (String, Vec<String>) {
    let mut call = text_call(Language::En, "A call", "Hello.", "");
    call.filename = filename.into();
    call.recorded_at = Some(at(day));
    let ids = items.iter().map(|i| i.id.0.to_string()).collect();
    call.analysis.as_mut().unwrap().action_items = items;
    let id = store_call(app.store.as_ref(), ProjectId(project.parse().unwrap()), &call).await;
    (id.0.to_string(), ids)
}

async fn list(app: &TestApp, project: &str, query: &str) -> Value {
    let response = app.get(&format!("/v1/projects/{project}/action-items?{query}")).await;
    assert_eq!(response.status(), 200, "{query}");
    response.json().await.unwrap()
}

async fn ids(app: &TestApp, project: &str, query: &str) -> Vec<String> {
    list(app, project, query).await["items"].as_array().unwrap().iter().map(|i| i["id"].as_str().unwrap().to_owned()).collect()
}

fn counters(page: &Value) -> [u64; 6] {
    ["totalCount", "pendingCount", "inProgressCount", "doneCount", "cancelledCount", "overdueCount"].map(|k| page[k].as_u64().unwrap())
}

async fn action_items_are_filtered_sorted_counted_and_edited(backend: Backend) {
    let clock = Arc::new(ManualClock::new(Utc.with_ymd_and_hms(2026, 11, 20, 12, 0, 0).unwrap()));
    let app = spawn_app_with_clock(backend, clock.clone(), |_| {}).await;
    let project = app.create_project("Support").await["id"].as_str().unwrap().to_owned();
    let other = app.create_project("Other").await["id"].as_str().unwrap().to_owned();
    // Items are made at the same clock time, so CREATED_AT ties and the id decides.
    let (call_a, a) = call_with(
        &app,
        &project,
        "a.wav",
        1,
        vec![item("Send the refund form", Some("Agent"), "HIGH", Some(at(10))), item("Call the customer back", Some("agent"), "MEDIUM", None)],
    )
    .await;
    let (call_b, b) = call_with(
        &app,
        &project,
        "b.wav",
        15,
        vec![item("Wyślę FAKTURĘ korygującą", Some("Łukasz"), "LOW", Some(at(30))), item("Check the router 50%", None, "HIGH", Some(at(18)))],
    )
    .await;
    let (_, foreign) = call_with(&app, &other, "c.wav", 2, vec![item("Elsewhere", Some("agent"), "LOW", None)]).await;
    let (a1, a2, b1, b2) = (a[0].as_str(), a[1].as_str(), b[0].as_str(), b[1].as_str());

    // The default: newest first (ties by id, same direction), everything counted.
    let all = list(&app, &project, "").await;
    assert_eq!(ids(&app, &project, "").await, [b2, b1, a2, a1]);
    assert_eq!(counters(&all), [4, 4, 0, 0, 0, 2]);
    let first = &all["items"][3];
    assert_eq!(first["id"], a1);
    for field in [
        "id", "projectId", "transcriptId", "transcriptIndex", "callDate", "callFilename", "description", "responsibleParty", "deadlineMentioned",
        "dueAt", "evidence", "status", "priority", "notes", "completedAt", "createdAt", "updatedAt", "isOverdue",
    ] {
        assert!(first.get(field).is_some(), "{field}: {first}");
    }
    assert_eq!(
        (first["transcriptId"].as_str(), first["transcriptIndex"].as_i64(), first["callFilename"].as_str()),
        (Some(call_a.as_str()), Some(0), Some("a.wav"))
    );
    assert_eq!(first["callDate"], "2026-11-01T00:00:00.000Z");
    let overdue: Vec<bool> = all["items"].as_array().unwrap().iter().map(|i| i["isOverdue"].as_bool().unwrap()).collect();
    assert_eq!(overdue, [true, false, false, true], "b2 and a1 are past due");

    // Filters.
    assert_eq!(ids(&app, &project, "priority=HIGH&sortDir=ASC").await, [a1, b2]);
    assert_eq!(ids(&app, &project, "priority=LOW,MEDIUM&sortDir=ASC").await, [a2, b1]);
    assert_eq!(ids(&app, &project, "priority=LOW&priority=medium&sortDir=ASC").await, [a2, b1]);
    assert_eq!(ids(&app, &project, "responsibleParty=AGENT&sortDir=ASC").await, [a1, a2], "exact, ignoring case");
    assert_eq!(ids(&app, &project, "responsibleParty=%C5%82ukasz").await, [b1], "ignoring case beyond ASCII");
    assert!(ids(&app, &project, "responsibleParty=age").await.is_empty(), "exact, not a substring");
    assert_eq!(ids(&app, &project, &format!("transcriptId={call_b}&sortDir=ASC")).await, [b1, b2]);
    assert_eq!(ids(&app, &project, "from=2026-11-15T00:00:00Z&sortDir=ASC").await, [b1, b2], "from is inclusive");
    assert_eq!(ids(&app, &project, "to=2026-11-01T00:00:00Z&sortDir=ASC").await, [a1, a2], "to is inclusive");
    assert_eq!(ids(&app, &project, "search=ROUTER").await, [b2]);
    assert_eq!(ids(&app, &project, "search=faktur%C4%99").await, [b1], "case-insensitive beyond ASCII");
    assert_eq!(ids(&app, &project, "search=A.WAV&sortDir=ASC").await, [a1, a2], "the call's file name");
    assert_eq!(ids(&app, &project, "search=refund%20form").await, [a1], "the evidence and description");
    assert_eq!(ids(&app, &project, "search=50%25").await, [b2], "% is a character, not a wildcard");
    assert!(ids(&app, &project, "search=%25%25%25").await.is_empty());
    assert!(!ids(&app, &project, "responsibleParty=agent").await.contains(&foreign[0]), "another project's item never shows");

    // Editing: DONE sets completedAt at the clock's time and bumps updatedAt; the event says so.
    let item_url = |id: &str| format!("/v1/projects/{project}/action-items/{id}");
    clock.advance(chrono::TimeDelta::hours(1));
    let done: Value = app.patch_json(&item_url(a1), &json!({"status": "DONE", "notes": "Sent"})).await.json().await.unwrap();
    assert_eq!((done["status"].as_str(), done["notes"].as_str()), (Some("DONE"), Some("Sent")));
    assert_eq!(done["completedAt"], "2026-11-20T13:00:00.000Z");
    assert_eq!(done["updatedAt"], "2026-11-20T13:00:00.000Z");
    assert_eq!(done["isOverdue"], false, "a done item is never overdue");
    let progressing: Value = app.patch_json(&item_url(b1), &json!({"status": "in_progress"})).await.json().await.unwrap();
    assert_eq!(progressing["status"], "IN_PROGRESS");
    assert!(progressing["completedAt"].is_null());
    let events = app.store.list_events(ProjectId(project.parse().unwrap())).await.unwrap();
    let updated: Vec<&Value> = events.iter().filter(|(kind, _)| kind == "action_item.updated").map(|(_, p)| p).collect();
    assert_eq!(updated.len(), 2);
    assert_eq!((updated[0]["id"].as_str(), updated[0]["status"].as_str()), (Some(a1), Some("DONE")));

    // The counters ignore the status filter; the total does not.
    let done_only = list(&app, &project, "status=DONE").await;
    assert_eq!(ids(&app, &project, "status=DONE").await, [a1]);
    assert_eq!(counters(&done_only), [1, 2, 1, 1, 0, 1]);
    let open = list(&app, &project, "status=PENDING,IN_PROGRESS&priority=HIGH").await;
    assert_eq!(counters(&open), [1, 1, 0, 1, 0, 1], "priority still filters the counters");
    assert_eq!(ids(&app, &project, "status=DONE&status=CANCELLED&status=PENDING&sortDir=ASC").await, [a1, a2, b2]);
    assert_eq!(ids(&app, &project, "status=DONE,CANCELLED,PENDING&sortDir=ASC").await, [a1, a2, b2]);

    // Every sort key both ways; ties go by id in the same direction.
    assert_eq!(ids(&app, &project, "sortBy=CREATED_AT&sortDir=ASC").await, [a1, a2, b1, b2]);
    assert_eq!(ids(&app, &project, "sortBy=CALL_DATE&sortDir=ASC").await, [a1, a2, b1, b2]);
    assert_eq!(ids(&app, &project, "sortBy=CALL_DATE&sortDir=DESC").await, [b2, b1, a2, a1]);
    assert_eq!(ids(&app, &project, "sortBy=PRIORITY&sortDir=ASC").await, [b1, a2, a1, b2]);
    assert_eq!(ids(&app, &project, "sortBy=PRIORITY").await, [b2, a1, a2, b1]);
    assert_eq!(ids(&app, &project, "sortBy=STATUS&sortDir=ASC").await, [a2, b2, b1, a1]);
    assert_eq!(ids(&app, &project, "sortBy=status&sortDir=desc").await, [a1, b1, b2, a2]);

    // Pages from 0, with bounds.
    assert_eq!(ids(&app, &project, "pageSize=3&page=1&sortDir=ASC").await, [b2]);
    assert!(ids(&app, &project, "pageSize=3&page=7").await.is_empty());
    assert_eq!(list(&app, &project, "pageSize=500").await["items"].as_array().unwrap().len(), 4);
    let base = format!("/v1/projects/{project}/action-items");
    for bad in [
        "page=-1",
        "pageSize=0",
        "pageSize=501",
        "sortBy=NAME",
        "sortDir=UP",
        "status=OPEN",
        "priority=URGENT",
        "from=2026-12-01T00:00:00Z&to=2026-11-01T00:00:00Z",
    ] {
        assert_problem(app.get(&format!("{base}?{bad}")).await, 422, "validation_failed").await;
    }
    for bad in ["page=x", "transcriptId=nope", "from=yesterday"] {
        assert_problem(app.get(&format!("{base}?{bad}")).await, 400, "bad_request").await;
    }

    // PATCH rules.
    for (body, field) in [
        (json!({"description": "  "}), "description"),
        (json!({"status": "OPEN"}), "status"),
        (json!({"priority": "urgent"}), "priority"),
        (json!({"notes": "x", "clearNotes": true}), "clearNotes"),
        (json!({"dueAt": "2026-12-01T00:00:00Z", "clearDeadline": true}), "clearDeadline"),
        (json!({"dueAt": "next week"}), "dueAt"),
    ] {
        let problem = assert_problem(app.patch_json(&item_url(a2), &body).await, 422, "validation_failed").await;
        assert_eq!(problem["errors"][0]["field"], field, "{body}");
    }
    let reopened: Value = app.patch_json(&item_url(a1), &json!({"status": "PENDING", "clearNotes": true})).await.json().await.unwrap();
    assert!(reopened["completedAt"].is_null() && reopened["notes"].is_null(), "{reopened}");
    assert_eq!(reopened["isOverdue"], true, "pending again and past due");
    let cleared: Value = app
        .patch_json(&item_url(a1), &json!({"clearDeadline": true, "responsibleParty": null, "description": "Send the form"}))
        .await
        .json()
        .await
        .unwrap();
    assert!(cleared["dueAt"].is_null() && cleared["deadlineMentioned"].is_null() && cleared["responsibleParty"].is_null(), "{cleared}");
    assert_eq!((cleared["description"].as_str(), cleared["isOverdue"].as_bool()), (Some("Send the form"), Some(false)));
    let due: Value =
        app.patch_json(&item_url(a2), &json!({"dueAt": "2026-11-20T14:00:00+01:00", "deadlineMentioned": "today"})).await.json().await.unwrap();
    assert_eq!((due["dueAt"].as_str(), due["isOverdue"].as_bool()), (Some("2026-11-20T13:00:00.000Z"), Some(false)));
    // Text that stands for no value is no value: it clears the owner and leaves the deadline.
    let owned: Value = app.patch_json(&item_url(a2), &json!({"responsibleParty": "agent"})).await.json().await.unwrap();
    assert_eq!(owned["responsibleParty"], "agent");
    let nothing: Value = app.patch_json(&item_url(a2), &json!({"responsibleParty": "N/A", "deadlineMentioned": "null"})).await.json().await.unwrap();
    assert!(nothing["responsibleParty"].is_null(), "{nothing}");
    assert_eq!(nothing["deadlineMentioned"], "today", "{nothing}");
    app.patch_json(&item_url(a2), &json!({"responsibleParty": "agent"})).await;
    clock.advance(chrono::TimeDelta::minutes(1));
    assert_eq!(app.get(&item_url(a2)).await.json::<Value>().await.unwrap()["isOverdue"], true, "the clock moved past dueAt");
    assert_problem(app.patch_json(&item_url(&foreign[0]), &json!({"status": "DONE"})).await, 404, "not_found").await;
    assert_problem(app.patch_json(&item_url(&uuid::Uuid::now_v7().to_string()), &json!({"status": "DONE"})).await, 404, "not_found").await;

    // The responsible parties, and the pending view: overdue first, then by dueAt (none last),
    // then by call date.
    let parties: Value = app.get(&format!("{base}/responsible-parties")).await.json().await.unwrap();
    assert_eq!(parties, json!(["agent", "Łukasz"]), "distinct, non-empty, sorted");
    let pending: Value = app.get(&format!("{base}/pending")).await.json().await.unwrap();
    let order: Vec<&str> = pending.as_array().unwrap().iter().map(|i| i["id"].as_str().unwrap()).collect();
    // b2 (due 18th) and a2 (due 20th 13:00) are overdue; b1 is due on the 30th; a1 has no date.
    assert_eq!(order, [b2, a2, b1, a1]);
    let later: Value = app.get(&format!("{base}/pending?from=2026-11-15T00:00:00Z")).await.json().await.unwrap();
    assert_eq!(later.as_array().unwrap().len(), 2);
    assert_problem(app.get(&format!("{base}/pending?from=2026-12-01T00:00:00Z&to=2026-11-01T00:00:00Z")).await, 422, "validation_failed").await;

    // DELETE, with its event.
    let deleted = app.request(Method::DELETE, &item_url(b2)).send().await.unwrap();
    assert_eq!(deleted.status(), 204);
    assert_problem(app.get(&item_url(b2)).await, 404, "not_found").await;
    assert_problem(app.request(Method::DELETE, &item_url(b2)).send().await.unwrap(), 404, "not_found").await;
    let events = app.store.list_events(ProjectId(project.parse().unwrap())).await.unwrap();
    assert_eq!(events.last().unwrap(), &("action_item.deleted".to_owned(), json!({"id": b2})));
    assert_eq!(list(&app, &project, "").await["totalCount"], 3);

    // transcriptIndex is the item's position in its call's list: deleting the first moves the
    // next one up.
    let index_of = |item: &str| {
        let url = item_url(item);
        let app = &app;
        async move { app.get(&url).await.json::<Value>().await.unwrap()["transcriptIndex"].clone() }
    };
    assert_eq!(index_of(a2).await, 1);
    assert_eq!(app.request(Method::DELETE, &item_url(a1)).send().await.unwrap().status(), 204);
    assert_eq!(index_of(a2).await, 0);
}

/// Beyond the spec: a person adds the item the analysis missed and merges a duplicate into
/// another, each with its validation and errors.
async fn people_add_an_item_and_merge_a_duplicate(backend: Backend) {
    let clock = Arc::new(ManualClock::new(at(18)));
    let app = spawn_app_with_clock(backend, clock, |c| c.workers = 0).await;
    let project = app.create_project("Items").await["id"].as_str().unwrap().to_owned();
    let (call, items) = call_with(
        &app,
        &project,
        "a.wav",
        18,
        vec![item("Send the contract", Some("agent"), "LOW", None), item("Send the contract by email", None, "HIGH", Some(at(20)))],
    )
    .await;
    let (other_call, other_items) = call_with(&app, &project, "b.wav", 18, vec![item("Call back", None, "LOW", None)]).await;

    let added = app
        .post_json(
            &format!("/v1/projects/{project}/calls/{call}/action-items"),
            &json!({"description": "  Post the new card ", "responsibleParty": "agent", "dueAt": "2026-11-27T17:00:00Z"}),
        )
        .await;
    assert_eq!(added.status(), 201);
    let location = added.headers()["location"].to_str().unwrap().to_owned();
    let added: Value = added.json().await.unwrap();
    assert_eq!(location, format!("/v1/projects/{project}/action-items/{}", added["id"].as_str().unwrap()));
    assert_eq!(
        (&added["description"], &added["status"], &added["priority"], &added["transcriptIndex"], &added["transcriptId"]),
        (&json!("Post the new card"), &json!("PENDING"), &json!("MEDIUM"), &json!(2), &json!(call))
    );
    assert_eq!(app.get(&location).await.status(), 200);
    for (body, field) in [
        (json!({"description": " "}), "description"),
        (json!({"description": "x", "priority": "URGENT"}), "priority"),
        (json!({"description": "x", "dueAt": "Friday"}), "dueAt"),
    ] {
        let problem =
            assert_problem(app.post_json(&format!("/v1/projects/{project}/calls/{call}/action-items"), &body).await, 422, "validation_failed").await;
        assert!(problem.to_string().contains(field), "{problem}");
    }
    let nowhere = uuid::Uuid::new_v4();
    assert_problem(
        app.post_json(&format!("/v1/projects/{project}/calls/{nowhere}/action-items"), &json!({"description": "x"})).await,
        404,
        "not_found",
    )
    .await;

    // The second item is a duplicate of the first: it goes, the first takes its deadline.
    let merged = app.post_json(&format!("/v1/projects/{project}/action-items/{}/merge", items[1]), &json!({"into": items[0]})).await;
    assert_eq!(merged.status(), 200);
    let merged: Value = merged.json().await.unwrap();
    assert_eq!((&merged["id"], &merged["description"], &merged["priority"]), (&json!(items[0]), &json!("Send the contract"), &json!("HIGH")));
    assert_eq!(merged["dueAt"], json!("2026-11-20T00:00:00.000Z"));
    assert_eq!(merged["notes"], json!("Merged: Send the contract by email"));
    assert_eq!(app.get(&format!("/v1/projects/{project}/action-items/{}", items[1])).await.status(), 404);
    assert_eq!(ids(&app, &project, &format!("transcriptId={call}&sortBy=CREATED_AT&sortDir=ASC")).await.len(), 2);
    assert_problem(
        app.post_json(&format!("/v1/projects/{project}/action-items/{}/merge", items[0]), &json!({"into": items[0]})).await,
        422,
        "validation_failed",
    )
    .await;
    assert_problem(
        app.post_json(&format!("/v1/projects/{project}/action-items/{}/merge", other_items[0]), &json!({"into": items[0]})).await,
        422,
        "validation_failed",
    )
    .await;
    assert_problem(
        app.post_json(&format!("/v1/projects/{project}/action-items/{}/merge", items[1]), &json!({"into": items[0]})).await,
        404,
        "not_found",
    )
    .await;
    assert_problem(
        app.post_json(&format!("/v1/projects/{project}/action-items/{}/merge", items[0]), &json!({"into": "x"})).await,
        422,
        "validation_failed",
    )
    .await;
    let _ = other_call;
}
