-- The counters' index now also holds the search text, so that counting the items that match
-- `search` (a substring, which no index can seek) scans this index alone instead of looking
-- up every item's row; a page of few matches is found the same way. PostgreSQL keeps its index
-- as it is: a B-tree entry there may not exceed a third of a page, and notes can be longer.
drop index action_items_counters;
create index action_items_counters on action_items (project_id, status, due_at, priority, responsible_key, call_date, search_text);
