//! The category tree (decisions §7): ordering, uniqueness, moves, cycles, deletion, counts.

use callscope_store::Backend;
use reqwest::Method;
use serde_json::{json, Value};

use crate::helpers::{assert_problem, spawn_app, TestApp};

both_backends!(
    siblings_get_contiguous_positions_and_unique_names,
    moves_renumber_both_sibling_lists_and_refuse_cycles,
    the_tree_counts_calls_and_deletes_uncategorize_them,
    updates_and_validation,
    trees_stop_at_twenty_levels,
);

struct Tree<'a> {
    app: &'a TestApp,
    base: String,
}

impl<'a> Tree<'a> {
    async fn new(app: &'a TestApp) -> Self {
        let project = app.create_project("Support").await;
        Self { app, base: format!("/v1/projects/{}/categories", project["id"].as_str().unwrap()) }
    }

    async fn add(&self, name: &str, parent: Option<&str>) -> String {
        let response = self.app.post_json(&self.base, &json!({"name": name, "parentId": parent})).await;
        assert_eq!(response.status(), 201, "creating {name}");
        response.json::<Value>().await.unwrap()["id"].as_str().unwrap().to_owned()
    }

    async fn tree(&self) -> Value {
        let response = self.app.get(&self.base).await;
        assert_eq!(response.status(), 200);
        response.json().await.unwrap()
    }

    async fn move_to(&self, id: &str, body: Value) -> reqwest::Response {
        self.app.patch_json(&format!("{}/{id}/move", self.base), &body).await
    }

    /// `name:order` of the children of `parent` (roots when `None`), as the tree shows them.
    async fn order(&self, parent: Option<&str>) -> Vec<String> {
        fn find<'v>(nodes: &'v Value, id: &str) -> Option<&'v Value> {
            nodes.as_array()?.iter().find_map(|n| if n["id"] == id { Some(n) } else { find(&n["children"], id) })
        }
        let tree = self.tree().await;
        let nodes = match parent {
            None => tree.clone(),
            Some(id) => find(&tree, id).expect("parent in tree")["children"].clone(),
        };
        nodes.as_array().unwrap().iter().map(|n| format!("{}:{}", n["name"].as_str().unwrap(), n["displayOrder"])).collect()
    }
}

async fn siblings_get_contiguous_positions_and_unique_names(backend: Backend) {
    let app = spawn_app(backend).await;
    let tree = Tree::new(&app).await;
    let billing = tree.add("Billing", None).await;
    tree.add("Account", None).await;
    let response = app.post_json(&tree.base, &json!({"name": "Urgent", "displayOrder": 0})).await;
    assert_eq!(response.status(), 201);
    let location = response.headers()["location"].to_str().unwrap().to_owned();
    let urgent: Value = response.json().await.unwrap();
    assert_eq!(urgent["displayOrder"], 0);
    assert_eq!(urgent["parentId"], Value::Null);
    assert_eq!(app.get(&location).await.json::<Value>().await.unwrap()["id"], urgent["id"]);
    assert_eq!(tree.order(None).await, ["Urgent:0", "Billing:1", "Account:2"], "inserting shifts the siblings after it");
    let far: Value = app.post_json(&tree.base, &json!({"name": "Other", "displayOrder": 99})).await.json().await.unwrap();
    assert_eq!(far["displayOrder"], 3, "a position past the end means last");

    for clash in ["billing", "BILLING", " Billing "] {
        assert_problem(app.post_json(&tree.base, &json!({"name": clash})).await, 409, "duplicate_category").await;
    }
    let polish = tree.add("Łódź", Some(&billing)).await;
    assert_problem(app.post_json(&tree.base, &json!({"name": "ŁÓDŹ", "parentId": billing})).await, 409, "duplicate_category").await;
    tree.add("Łódź", None).await; // same name under another parent is fine
    tree.add("Refunds", Some(&billing)).await;
    assert_eq!(tree.order(Some(&billing)).await, ["Łódź:0", "Refunds:1"]);

    let tree_json = tree.tree().await;
    assert_eq!(tree_json[1]["children"][0]["id"], polish.as_str());
    assert_eq!(tree_json[1]["children"][0]["parentId"], billing.as_str());
    let taxonomy = tree_json[0]["taxonomyId"].clone();
    assert!(tree_json.as_array().unwrap().iter().all(|n| n["taxonomyId"] == taxonomy), "one taxonomy per project");
}

async fn moves_renumber_both_sibling_lists_and_refuse_cycles(backend: Backend) {
    let app = spawn_app(backend).await;
    let tree = Tree::new(&app).await;
    let a = tree.add("A", None).await;
    let b = tree.add("B", None).await;
    let c = tree.add("C", None).await;
    let a1 = tree.add("A1", Some(&a)).await;
    let a2 = tree.add("A2", Some(&a)).await;
    let a1x = tree.add("A1x", Some(&a1)).await;

    // Under another node at a position: the old siblings close the gap, the new ones open one.
    let moved: Value = tree.move_to(&b, json!({"parentId": a, "displayOrder": 1})).await.json().await.unwrap();
    assert_eq!((moved["parentId"].as_str(), moved["displayOrder"].as_i64()), (Some(a.as_str()), Some(1)));
    assert_eq!(tree.order(None).await, ["A:0", "C:1"]);
    assert_eq!(tree.order(Some(&a)).await, ["A1:0", "B:1", "A2:2"]);

    // To the roots, position omitted: last.
    let moved: Value = tree.move_to(&a2, json!({"parentId": null})).await.json().await.unwrap();
    assert_eq!(moved["parentId"], Value::Null);
    assert_eq!(tree.order(None).await, ["A:0", "C:1", "A2:2"]);
    assert_eq!(tree.order(Some(&a)).await, ["A1:0", "B:1"]);

    // Within the same parent, parentId absent: only the position changes.
    tree.move_to(&a2, json!({"displayOrder": 0})).await;
    assert_eq!(tree.order(None).await, ["A2:0", "A:1", "C:2"]);

    // Cycles: under itself, under a child, under a grandchild.
    for target in [&a, &a1, &a1x] {
        let response = tree.move_to(&a, json!({"parentId": target})).await;
        assert_problem(response, 409, "category_cycle").await;
    }
    assert_eq!(tree.order(None).await, ["A2:0", "A:1", "C:2"], "a refused move changes nothing");

    // A name clash in the new parent, a parent that is not in the project, a bad position.
    tree.add("c", Some(&a)).await;
    assert_problem(tree.move_to(&c, json!({"parentId": a})).await, 409, "duplicate_category").await;
    let problem = assert_problem(tree.move_to(&c, json!({"parentId": uuid::Uuid::now_v7()})).await, 422, "validation_failed").await;
    assert_eq!(problem["errors"][0]["field"], "parentId");
    assert_problem(tree.move_to(&c, json!({"displayOrder": -1})).await, 422, "validation_failed").await;
    assert_problem(tree.move_to(&uuid::Uuid::now_v7().to_string(), json!({"parentId": null})).await, 404, "not_found").await;
}

async fn insert_call(app: &TestApp, project: &str, category: Option<&str>) {
    let id = uuid::Uuid::now_v7();
    let (id, project, category) = match app.db.backend() {
        Backend::Sqlite => {
            let blob = |u: &str| format!("x'{}'", uuid::Uuid::parse_str(u).unwrap().simple());
            (blob(&id.to_string()), blob(project), category.map_or("null".into(), blob))
        }
        Backend::Postgres => {
            let text = |u: &str| format!("'{u}'");
            (text(&id.to_string()), text(project), category.map_or("null".into(), text))
        }
    };
    app.sql_execute(&format!(
        "insert into calls (id, project_id, primary_category_id, created_at, updated_at) \
         values ({id}, {project}, {category}, '2026-11-21T10:00:00.000Z', '2026-11-21T10:00:00.000Z')"
    ))
    .await;
}

async fn the_tree_counts_calls_and_deletes_uncategorize_them(backend: Backend) {
    let app = spawn_app(backend).await;
    let project = app.create_project("Support").await;
    let project_id = project["id"].as_str().unwrap();
    let tree = Tree { app: &app, base: format!("/v1/projects/{project_id}/categories") };
    let billing = tree.add("Billing", None).await;
    let refunds = tree.add("Refunds", Some(&billing)).await;
    let partial = tree.add("Partial", Some(&refunds)).await;
    let account = tree.add("Account", None).await;
    tree.add("Sibling", Some(&billing)).await;
    assert_eq!(tree.tree().await[0]["totalCallCount"], 0);

    insert_call(&app, project_id, Some(&billing)).await;
    insert_call(&app, project_id, Some(&refunds)).await;
    insert_call(&app, project_id, Some(&partial)).await;
    insert_call(&app, project_id, Some(&partial)).await;
    insert_call(&app, project_id, Some(&account)).await;
    insert_call(&app, project_id, None).await;
    let other = app.create_project("Other").await;
    insert_call(&app, other["id"].as_str().unwrap(), None).await;

    let t = tree.tree().await;
    assert_eq!((t[0]["name"].as_str(), t[0]["callCount"].as_u64(), t[0]["totalCallCount"].as_u64()), (Some("Billing"), Some(1), Some(4)));
    let r = &t[0]["children"][0];
    assert_eq!((r["callCount"].as_u64(), r["totalCallCount"].as_u64()), (Some(1), Some(3)));
    assert_eq!(r["children"][0]["callCount"], 2);
    assert_eq!(t[0]["children"][1]["children"], json!([]));
    assert_eq!((t[1]["callCount"].as_u64(), t[1]["totalCallCount"].as_u64()), (Some(1), Some(1)));

    // Deleting Refunds takes Partial with it; their three calls lose their category.
    let response = app.request(Method::DELETE, &format!("{}/{refunds}", tree.base)).send().await.unwrap();
    assert_eq!(response.status(), 204);
    assert_eq!(tree.order(Some(&billing)).await, ["Sibling:0"], "siblings renumbered");
    let t = tree.tree().await;
    assert_eq!(t[0]["totalCallCount"], 1);
    let uncategorized = app.sql_strings("select cast(count(*) as text) from calls where primary_category_id is null").await;
    assert_eq!(uncategorized, ["5"], "3 un-categorized by the delete, plus the 2 that never had one");
    assert_problem(app.get(&format!("{}/{partial}", tree.base)).await, 404, "not_found").await;
    assert_problem(app.request(Method::DELETE, &format!("{}/{refunds}", tree.base)).send().await.unwrap(), 404, "not_found").await;

    // Clearing removes the whole taxonomy; the next category starts a new one.
    let old_taxonomy = t[0]["taxonomyId"].clone();
    assert_eq!(app.request(Method::DELETE, &tree.base).send().await.unwrap().status(), 204);
    assert_eq!(tree.tree().await, json!([]));
    let uncategorized = app.sql_strings("select cast(count(*) as text) from calls where primary_category_id is null").await;
    assert_eq!(uncategorized, ["7"]);
    tree.add("Fresh", None).await;
    assert_ne!(tree.tree().await[0]["taxonomyId"], old_taxonomy);
}

async fn updates_and_validation(backend: Backend) {
    let app = spawn_app(backend).await;
    let tree = Tree::new(&app).await;
    let billing = tree.add("Billing", None).await;
    tree.add("Account", None).await;
    let path = format!("{}/{billing}", tree.base);
    let put = |body: Value| app.request(Method::PUT, &path).json(&body).send();

    let updated: Value = put(json!({"description": "Invoices and payments"})).await.unwrap().json().await.unwrap();
    assert_eq!((updated["name"].as_str(), updated["description"].as_str()), (Some("Billing"), Some("Invoices and payments")));
    let updated: Value = put(json!({"name": "Payments", "description": null})).await.unwrap().json().await.unwrap();
    assert_eq!((updated["name"].as_str(), updated["description"].as_str()), (Some("Payments"), None));
    let same: Value = put(json!({"name": "PAYMENTS"})).await.unwrap().json().await.unwrap();
    assert_eq!(same["name"], "PAYMENTS", "a node may change the case of its own name");
    assert_problem(put(json!({"name": "account"})).await.unwrap(), 409, "duplicate_category").await;
    assert_problem(put(json!({"name": ""})).await.unwrap(), 422, "validation_failed").await;
    assert_problem(put(json!({"name": null})).await.unwrap(), 422, "validation_failed").await;

    for (body, field) in [
        (json!({}), "name"),
        (json!({"name": "x".repeat(201)}), "name"),
        (json!({"name": "ok", "description": "d".repeat(2001)}), "description"),
        (json!({"name": "ok", "displayOrder": -3}), "displayOrder"),
        (json!({"name": "ok", "parentId": uuid::Uuid::now_v7()}), "parentId"),
        (json!({"name": "ok", "parentId": "not-a-uuid"}), "parentId"),
    ] {
        let problem = assert_problem(app.post_json(&tree.base, &body).await, 422, "validation_failed").await;
        assert_eq!(problem["errors"][0]["field"], field, "{body}");
    }
    // A category of another project is not a parent here.
    let other = Tree::new(&app).await;
    let foreign = other.add("Foreign", None).await;
    let problem = assert_problem(app.post_json(&tree.base, &json!({"name": "x", "parentId": foreign})).await, 422, "validation_failed").await;
    assert_eq!(problem["errors"][0]["field"], "parentId");
    assert_problem(app.get(&format!("{}/{foreign}", tree.base)).await, 404, "not_found").await;
}

/// A tree has at most 20 levels (a root is level 1): a create or a move that would go deeper
/// is refused naming `parentId`, and leaves the tree as it was.
async fn trees_stop_at_twenty_levels(backend: Backend) {
    let app = spawn_app(backend).await;
    let tree = Tree::new(&app).await;
    let mut chain = vec![tree.add("level 1", None).await];
    for level in 2..=20 {
        let parent = chain.last().unwrap().clone();
        chain.push(tree.add(&format!("level {level}"), Some(&parent)).await);
    }
    let too_deep = app.post_json(&tree.base, &json!({"name": "level 21", "parentId": chain[19]})).await;
    let body = assert_problem(too_deep, 422, "validation_failed").await;
    assert_eq!(body["errors"][0]["field"], "parentId", "{body}");

    // A two-level subtree fits under level 18, not under level 19.
    let branch = tree.add("branch", None).await;
    tree.add("leaf", Some(&branch)).await;
    let refused = tree.move_to(&branch, json!({"parentId": chain[18]})).await;
    assert_problem(refused, 422, "validation_failed").await;
    assert_eq!(tree.order(None).await, ["level 1:0", "branch:1"], "the refused move changed nothing");
    assert_eq!(tree.move_to(&branch, json!({"parentId": chain[17]})).await.status(), 200);
    assert_eq!(tree.order(Some(&chain[17])).await, ["level 19:0", "branch:1"]);
}
