-- The action item list filters by responsible party ignoring case and searches text ignoring
-- case. Both keys are lower-cased by the store on every write; rows written before this
-- migration get them when the store next migrates.
alter table action_items add column responsible_key text;
alter table action_items add column search_text text;

create index action_items_project_call_date on action_items (project_id, call_date, id);
create index action_items_project_due on action_items (project_id, due_at);
