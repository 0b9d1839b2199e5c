-- The action item list filters by responsible party ignoring case and searches text ignoring
--@ postgres
-- case. Both keys are lower-cased by the store on every write; rows written before this
-- migration get them when the store next migrates.
--@ end
--@ sqlite
-- case. Both keys are lower-cased by the store (Unicode-aware, which SQLite's lower() is not) on
-- every write; rows written before this migration get them when the store next migrates.
--@ end
alter table action_items add column responsible_key text;
alter table action_items add column search_text text;

create index action_items_project_call_date on action_items (project_id, call_date, id);
create index action_items_project_due on action_items (project_id, due_at);
