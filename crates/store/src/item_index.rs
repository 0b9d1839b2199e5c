//! The action item list's index in memory: per project, every item's filter columns, sort keys
//! and lower-cased search text. A list (its six counters, every filter including the substring
//! search, the sort and the page) is one pass over it; only the page's rows are then read from
//! the database, by id.
//!
//! A database scans every row's text for a substring, which no B-tree can seek and which costs
//! SQLite about 20 ms at 100,000 items. Here the same scan is a SIMD substring search over
//! strings already in memory.
//!
//! The index follows the database, never the other way round: every write to `action_items`
//! bumps its project's version and records the item under it (triggers on both backends).
//! Before each list the store reads the project's version; when it moved on, it reads just the
//! items changed since and applies them. Several processes over one database therefore each
//! keep their own index, all current.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, RwLock};

use callscope_domain::{ActionItemPriority, ActionItemStatus, Timestamp};
use memchr::memmem;
use uuid::Uuid;

use crate::{ActionItemList, ActionItemQuery, ActionItemSort};

/// How many items all projects' indexes may hold together before the least recently listed
/// projects are dropped (to be read again when next listed). About 300 bytes an item, with the
/// text, so some 300 MB at most.
pub(crate) const DEFAULT_CAPACITY: usize = 1_000_000;

/// An action item as the list sees it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct IndexedItem {
    pub id: Uuid,
    pub call_id: Uuid,
    /// Place in [`ActionItemStatus::ALL`] (its length for a value not in it).
    pub status: u8,
    /// Place in [`ActionItemPriority::ALL`] (its length for a value not in it).
    pub priority: u8,
    pub responsible_key: Option<Box<str>>,
    pub call_date: Timestamp,
    pub due_at: Option<Timestamp>,
    pub created_at: Timestamp,
    pub search_text: Box<str>,
}

impl IndexedItem {
    /// The item from its stored columns.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        id: Uuid,
        call_id: Uuid,
        status: &str,
        priority: &str,
        responsible_key: Option<String>,
        call_date: Timestamp,
        due_at: Option<Timestamp>,
        created_at: Timestamp,
        search_text: Option<String>,
    ) -> Self {
        Self {
            id,
            call_id,
            status: status.parse::<ActionItemStatus>().map_or(ActionItemStatus::ALL.len() as u8, |s| s as u8),
            priority: priority.parse::<ActionItemPriority>().map_or(ActionItemPriority::ALL.len() as u8, |p| p as u8),
            responsible_key: responsible_key.map(String::into_boxed_str),
            call_date,
            due_at,
            created_at,
            search_text: search_text.unwrap_or_default().into_boxed_str(),
        }
    }

    /// The sort key: seconds and nanoseconds of a date, or a rank.
    fn key(&self, sort: ActionItemSort) -> (i64, u32) {
        let date = |t: &Timestamp| (t.timestamp(), t.timestamp_subsec_nanos());
        match sort {
            ActionItemSort::CreatedAt => date(&self.created_at),
            ActionItemSort::CallDate => date(&self.call_date),
            ActionItemSort::Priority => (i64::from(self.priority), 0),
            ActionItemSort::Status => (i64::from(self.status), 0),
        }
    }

    /// Counted as overdue: open and past its due time.
    fn overdue(&self, now: Timestamp) -> bool {
        self.status <= 1 && self.due_at.is_some_and(|due| due < now)
    }
}

/// One project's items as of a version of its change log.
#[derive(Debug, Default)]
pub(crate) struct ProjectItems {
    version: i64,
    items: Vec<IndexedItem>,
    positions: HashMap<Uuid, usize>,
}

impl ProjectItems {
    /// Every item of a project, read at `version` or later.
    pub fn new(version: i64, items: Vec<IndexedItem>) -> Self {
        let positions = items.iter().enumerate().map(|(at, item)| (item.id, at)).collect();
        Self { version, items, positions }
    }

    pub fn version(&self) -> i64 {
        self.version
    }

    pub fn len(&self) -> usize {
        self.items.len()
    }

    /// Applies the items changed after this version, read at `version` or later: `None` for
    /// an item that no longer exists. An older read than the one applied already is ignored.
    pub fn apply(&mut self, version: i64, changes: Vec<(Uuid, Option<IndexedItem>)>) {
        if version <= self.version {
            return;
        }
        for (id, item) in changes {
            match (item, self.positions.get(&id).copied()) {
                (Some(item), Some(at)) => self.items[at] = item,
                (Some(item), None) => {
                    self.positions.insert(id, self.items.len());
                    self.items.push(item);
                }
                (None, Some(at)) => {
                    self.positions.remove(&id);
                    self.items.swap_remove(at);
                    if let Some(moved) = self.items.get(at) {
                        self.positions.insert(moved.id, at);
                    }
                }
                (None, None) => {}
            }
        }
        self.version = version;
    }

    /// The list's counters, and the ids of the requested page in order.
    pub fn list(&self, query: &ActionItemQuery, now: Timestamp) -> (ActionItemList, Vec<Uuid>) {
        let statuses = allowed(ActionItemStatus::ALL.len(), query.statuses.iter().map(|s| *s as usize));
        let priorities = allowed(ActionItemPriority::ALL.len(), query.priorities.iter().map(|p| *p as usize));
        let party = query.responsible_party.as_deref().map(str::to_lowercase);
        let search = query.search.as_deref().filter(|s| !s.is_empty()).map(str::to_lowercase);
        let finder = search.as_deref().map(|s| memmem::Finder::new(s.as_bytes()));

        let mut per_status = [0u64; ActionItemStatus::ALL.len() + 1];
        let mut overdue = 0;
        let mut matches: Vec<((i64, u32), Uuid)> = Vec::new();
        for item in &self.items {
            let passes = priorities.as_ref().is_none_or(|p| p[usize::from(item.priority)])
                && party.as_deref().is_none_or(|p| item.responsible_key.as_deref() == Some(p))
                && query.call.is_none_or(|call| item.call_id == call.0)
                && query.from.is_none_or(|from| item.call_date >= from)
                && query.to.is_none_or(|to| item.call_date <= to)
                && finder.as_ref().is_none_or(|f| f.find(item.search_text.as_bytes()).is_some());
            if !passes {
                continue;
            }
            per_status[usize::from(item.status)] += 1;
            if item.overdue(now) {
                overdue += 1;
            }
            if statuses.as_ref().is_none_or(|s| s[usize::from(item.status)]) {
                matches.push((item.key(query.sort), item.id));
            }
        }

        let list = ActionItemList {
            items: Vec::new(),
            total: matches.len() as u64,
            pending: per_status[0],
            in_progress: per_status[1],
            done: per_status[2],
            cancelled: per_status[3],
            overdue,
        };
        let start = usize::try_from(u64::from(query.page) * u64::from(query.page_size)).unwrap_or(usize::MAX);
        if start >= matches.len() || query.page_size == 0 {
            return (list, Vec::new());
        }
        let end = matches.len().min(start + query.page_size as usize);
        // Ties go by id, in the key's direction.
        let order = |a: &((i64, u32), Uuid), b: &((i64, u32), Uuid)| if query.descending { b.cmp(a) } else { a.cmp(b) };
        // Only the first `end` in order are needed: pick them in linear time, then sort those.
        if end < matches.len() {
            matches.select_nth_unstable_by(end - 1, order);
        }
        matches[..end].sort_unstable_by(order);
        (list, matches[start..end].iter().map(|(_, id)| *id).collect())
    }
}

/// Which of `values` places a filter lets through (the place after them, of values the build
/// does not know, never); `None` when the filter is empty (all).
fn allowed(values: usize, wanted: impl ExactSizeIterator<Item = usize>) -> Option<Vec<bool>> {
    if wanted.len() == 0 {
        return None;
    }
    let mut allowed = vec![false; values + 1];
    for at in wanted {
        allowed[at] = true;
    }
    Some(allowed)
}

/// A project's place in the cache: its items once read, and a lock that lets one request at a
/// time bring them up to date.
#[derive(Default)]
pub(crate) struct Slot {
    pub items: RwLock<Option<ProjectItems>>,
    pub refresh: tokio::sync::Mutex<()>,
    last_used: AtomicU64,
}

impl Slot {
    /// The version the slot holds, if it was read.
    pub fn version(&self) -> Option<i64> {
        self.items.read().unwrap_or_else(std::sync::PoisonError::into_inner).as_ref().map(ProjectItems::version)
    }

    /// Applies changed items to the project's items, if they were read.
    pub fn apply(&self, version: i64, changes: Vec<(Uuid, Option<IndexedItem>)>) {
        if let Some(items) = self.items.write().unwrap_or_else(std::sync::PoisonError::into_inner).as_mut() {
            items.apply(version, changes);
        }
    }

    /// Replaces the project's items.
    pub fn install(&self, items: ProjectItems) {
        *self.items.write().unwrap_or_else(std::sync::PoisonError::into_inner) = Some(items);
    }

    /// Lists from the project's items (`None` if they were never read).
    pub fn list(&self, query: &ActionItemQuery, now: Timestamp) -> Option<(ActionItemList, Vec<Uuid>)> {
        let items = self.items.read().unwrap_or_else(std::sync::PoisonError::into_inner);
        items.as_ref().map(|items| items.list(query, now))
    }

    fn len(&self) -> usize {
        self.items.read().unwrap_or_else(std::sync::PoisonError::into_inner).as_ref().map_or(0, ProjectItems::len)
    }
}

/// Every project's index in this process, within a total number of items.
pub(crate) struct ItemIndex {
    slots: Mutex<HashMap<Uuid, Arc<Slot>>>,
    capacity: usize,
    uses: AtomicU64,
}

impl ItemIndex {
    pub fn new(capacity: usize) -> Self {
        Self { slots: Mutex::new(HashMap::new()), capacity, uses: AtomicU64::new(0) }
    }

    /// The project's slot, made empty on first use.
    pub fn slot(&self, project: Uuid) -> Arc<Slot> {
        let slot = Arc::clone(self.slots.lock().unwrap_or_else(std::sync::PoisonError::into_inner).entry(project).or_default());
        slot.last_used.store(self.uses.fetch_add(1, Ordering::Relaxed), Ordering::Relaxed);
        slot
    }

    /// Drops the least recently listed projects, other than `keep`, until the rest fit. A
    /// request still holding a dropped slot finishes with it.
    pub fn evict(&self, keep: Uuid) {
        let mut slots = self.slots.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let mut held: usize = slots.values().map(|s| s.len()).sum();
        while held > self.capacity {
            let oldest = slots
                .iter()
                .filter(|(project, _)| **project != keep)
                .min_by_key(|(_, slot)| slot.last_used.load(Ordering::Relaxed))
                .map(|(project, slot)| (*project, slot.len()));
            let Some((project, len)) = oldest else { break };
            slots.remove(&project);
            held -= len;
        }
    }

    /// Projects held, for tests.
    #[cfg(test)]
    fn projects(&self) -> usize {
        self.slots.lock().unwrap().len()
    }
}

#[cfg(test)]
mod tests {
    use chrono::{Duration, TimeZone, Utc};

    use super::*;
    use callscope_domain::CallId;

    fn at(day: i64) -> Timestamp {
        Utc.with_ymd_and_hms(2026, 1, 1, 0, 0, 0).unwrap() + Duration::days(day)
    }

    fn item(n: u128, status: &str, priority: &str, party: Option<&str>, text: &str) -> IndexedItem {
        IndexedItem::new(
            Uuid::from_u128(n),
            Uuid::from_u128(1000 + n % 3),
            status,
            priority,
            party.map(str::to_lowercase),
            at(n as i64 % 5),
            Some(at(n as i64 % 7)),
            at(n as i64),
            Some(text.to_lowercase()),
        )
    }

    fn sample() -> ProjectItems {
        ProjectItems::new(
            3,
            vec![
                item(1, "PENDING", "HIGH", Some("Anna"), "Send the invoice"),
                item(2, "IN_PROGRESS", "LOW", Some("Bob"), "call back about the refund"),
                item(3, "DONE", "MEDIUM", Some("anna"), "Invoice corrected"),
                item(4, "CANCELLED", "HIGH", None, "nothing"),
                item(5, "PENDING", "LOW", Some("ANNA"), "Zażółć gęślą jaźń"),
            ],
        )
    }

    fn query() -> ActionItemQuery {
        ActionItemQuery { page_size: 10, ..ActionItemQuery::default() }
    }

    fn ids(page: &[Uuid]) -> Vec<u128> {
        page.iter().map(|id| id.as_u128()).collect()
    }

    #[test]
    fn counters_ignore_the_status_filter_and_the_total_does_not() {
        let items = sample();
        let q = ActionItemQuery { statuses: vec![ActionItemStatus::Pending], ..query() };
        let (list, page) = items.list(&q, at(10));
        assert_eq!((list.total, list.pending, list.in_progress, list.done, list.cancelled), (2, 2, 1, 1, 1));
        // Open and due before day 10: items 1, 2 and 5 (items 3 and 4 are closed).
        assert_eq!(list.overdue, 3);
        assert_eq!(ids(&page), vec![1, 5], "oldest first");
        let (list, _) = items.list(&query(), at(3));
        // Due on day 1, 2 and 5: only items 1 and 2 are past due on day 3.
        assert_eq!(list.overdue, 2);
    }

    #[test]
    fn each_filter_narrows() {
        let items = sample();
        let run = |q: ActionItemQuery| ids(&items.list(&q, at(0)).1);
        assert_eq!(run(ActionItemQuery { search: Some("INVOICE".into()), ..query() }), vec![1, 3]);
        assert_eq!(run(ActionItemQuery { search: Some("GĘŚLĄ".into()), ..query() }), vec![5]);
        assert_eq!(run(ActionItemQuery { search: Some("xylophone".into()), ..query() }), Vec::<u128>::new());
        assert_eq!(run(ActionItemQuery { responsible_party: Some("aNNa".into()), ..query() }), vec![1, 3, 5]);
        assert_eq!(run(ActionItemQuery { priorities: vec![ActionItemPriority::High, ActionItemPriority::Low], ..query() }), vec![1, 2, 4, 5]);
        assert_eq!(run(ActionItemQuery { call: Some(CallId(Uuid::from_u128(1001))), ..query() }), vec![1, 4]);
        assert_eq!(run(ActionItemQuery { from: Some(at(2)), to: Some(at(3)), ..query() }), vec![2, 3]);
    }

    #[test]
    fn a_stored_status_this_build_does_not_know_passes_no_status_filter() {
        let items = ProjectItems::new(1, vec![item(1, "ARCHIVED", "SOMEDAY", None, "from a newer version")]);
        let (_, page) = items.list(&ActionItemQuery { statuses: ActionItemStatus::ALL.to_vec(), ..query() }, at(0));
        assert!(page.is_empty());
        let (_, page) = items.list(&ActionItemQuery { priorities: ActionItemPriority::ALL.to_vec(), ..query() }, at(0));
        assert!(page.is_empty());
        assert_eq!(ids(&items.list(&query(), at(0)).1), vec![1], "unfiltered, it is listed");
    }

    #[test]
    fn sorts_each_key_both_ways_with_ties_by_id() {
        let items = sample();
        let run = |sort, descending| ids(&items.list(&ActionItemQuery { sort, descending, ..query() }, at(0)).1);
        assert_eq!(run(ActionItemSort::Priority, false), vec![2, 5, 3, 1, 4]);
        assert_eq!(run(ActionItemSort::Priority, true), vec![4, 1, 3, 5, 2]);
        assert_eq!(run(ActionItemSort::Status, false), vec![1, 5, 2, 3, 4]);
        assert_eq!(run(ActionItemSort::Status, true), vec![4, 3, 2, 5, 1]);
        // Call dates: day 1, 2, 3, 4, 0.
        assert_eq!(run(ActionItemSort::CallDate, false), vec![5, 1, 2, 3, 4]);
        assert_eq!(run(ActionItemSort::CreatedAt, true), vec![5, 4, 3, 2, 1]);
    }

    #[test]
    fn pages_are_slices_of_the_whole_order() {
        let items = ProjectItems::new(1, (1..=57).map(|n| item(n, "PENDING", "LOW", None, "x")).collect());
        let whole = ids(&items.list(&ActionItemQuery { sort: ActionItemSort::CallDate, page_size: 100, ..query() }, at(0)).1);
        assert_eq!(whole.len(), 57);
        let mut paged = Vec::new();
        for page in 0..6 {
            let q = ActionItemQuery { sort: ActionItemSort::CallDate, page, page_size: 10, ..query() };
            let (list, ids_of_page) = items.list(&q, at(0));
            assert_eq!(list.total, 57);
            paged.extend(ids(&ids_of_page));
        }
        assert_eq!(paged, whole);
        let past = ActionItemQuery { page: 6, page_size: 10, ..query() };
        assert!(items.list(&past, at(0)).1.is_empty());
    }

    #[test]
    fn changes_update_insert_and_delete_items_once() {
        let mut items = sample();
        let changed = item(2, "DONE", "LOW", Some("Bob"), "refund sent");
        items.apply(
            5,
            vec![
                (Uuid::from_u128(2), Some(changed.clone())),
                (Uuid::from_u128(1), None),
                (Uuid::from_u128(9), Some(item(9, "PENDING", "HIGH", None, "new"))),
                (Uuid::from_u128(77), None),
            ],
        );
        assert_eq!(items.version(), 5);
        assert_eq!(items.len(), 5);
        assert_eq!(ids(&items.list(&query(), at(0)).1), vec![2, 3, 4, 5, 9]);
        assert_eq!(items.list(&ActionItemQuery { search: Some("refund sent".into()), ..query() }, at(0)).1, vec![changed.id]);
        // A read older than the one applied changes nothing.
        items.apply(4, vec![(Uuid::from_u128(9), None)]);
        assert_eq!(items.len(), 5);
        assert_eq!(items.version(), 5);
        // Every position still points at its item after the swap removal.
        for id in [9u128, 5, 4, 3, 2] {
            items.apply(items.version() + 1, vec![(Uuid::from_u128(id), None)]);
            assert!(!ids(&items.list(&query(), at(0)).1).contains(&id));
        }
        assert_eq!(items.len(), 0);
    }

    #[test]
    fn the_least_recently_listed_projects_go_first() {
        let index = ItemIndex::new(8);
        let fill = |project: u128, n: u128| {
            index.slot(Uuid::from_u128(project)).install(ProjectItems::new(1, (0..n).map(|i| item(i, "PENDING", "LOW", None, "x")).collect()));
        };
        fill(1, 3);
        fill(2, 3);
        index.evict(Uuid::from_u128(2));
        assert_eq!(index.projects(), 2);
        index.slot(Uuid::from_u128(1));
        fill(3, 4);
        index.evict(Uuid::from_u128(3));
        // 10 items held: project 2 was listed least recently and goes.
        assert_eq!(index.projects(), 2);
        assert!(index.slot(Uuid::from_u128(2)).version().is_none());
        assert_eq!(index.slot(Uuid::from_u128(1)).version(), Some(1));
    }
}
