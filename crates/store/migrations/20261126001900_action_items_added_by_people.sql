-- An item a person added (on the call page or through the API) rather than the analysis:
-- re-analysis replaces the analysis's items of a call and keeps these, after them.
alter table action_items add column added_by_person BOOLEAN not null default FALSE;
