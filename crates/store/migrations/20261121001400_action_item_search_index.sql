--@ sqlite
-- The counters' columns plus the search text, so that counting the items that match `search`
-- (a substring, which no index can seek) scans this index alone instead of looking up every
-- item's row; a page of few matches is found the same way. The narrower counters' index stays
-- for lists without `search`: the store names the index to use, because SQLite would
-- otherwise take this wider one for those too. PostgreSQL gets no such index: a B-tree entry
-- there may not exceed a third of a page, and notes can be longer.
create index action_items_search on action_items (project_id, status, due_at, priority, responsible_key, call_date, search_text);
--@ end
