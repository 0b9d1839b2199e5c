-- The action item list at scale: sort keys as numbers with their own indexes, so that a page
-- sorted by priority or status is read from an index instead of sorting every item, and an
-- index holding every column the counters and the filters read, so that the counters are
-- counted from it instead of from the (wide) rows.
alter table action_items add column priority_rank integer not null default 0;
alter table action_items add column status_rank integer not null default 0;
update action_items set
    priority_rank = case priority when 'LOW' then 0 when 'MEDIUM' then 1 else 2 end,
    status_rank = case status when 'PENDING' then 0 when 'IN_PROGRESS' then 1 when 'DONE' then 2 else 3 end;

create index action_items_project_priority on action_items (project_id, priority_rank, id);
create index action_items_project_status_rank on action_items (project_id, status_rank, id);
create index action_items_counters on action_items (project_id, status, due_at, priority, responsible_key, call_date);

-- Items still without their filter keys (written before migration 1200): the store fills them
-- on start, and this keeps the look for them from reading every item once there are none.
create index action_items_unkeyed on action_items (id) where search_text is null;
