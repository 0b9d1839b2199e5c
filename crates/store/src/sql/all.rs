// Every area's SQL, included by both backends (`sqlite.rs`, `postgres.rs`) after they define
// what they differ in. `store.rs` first: it holds the imports and the `SqlStore` the areas
// implement.
include!("store.rs");
include!("tenancy.rs");
include!("categories.rs");
include!("presets.rs");
include!("templates.rs");
include!("rules.rs");
include!("vocabulary.rs");
include!("jobs.rs");
include!("calls.rs");
include!("search_sync.rs");
include!("action_items.rs");
include!("webhooks.rs");
