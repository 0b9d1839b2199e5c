-- The action item list is answered from an index each process keeps in memory (see the
-- store's `item_index`). These tables tell a process what changed since it last looked:
-- every insert, update and delete of an item bumps its project's version and records the item
-- under that version (one row per item, the latest change only), so a process reads its
-- project's version, and when that moved on, only the items changed since.
create table action_item_versions (
    project_id blob primary key,
    version integer not null
);

create table action_item_changes (
    item_id blob primary key,
    project_id blob not null,
    version integer not null
);
create index action_item_changes_project on action_item_changes (project_id, version);

create trigger action_items_inserted after insert on action_items begin
    insert into action_item_versions (project_id, version) values (new.project_id, 1)
        on conflict (project_id) do update set version = version + 1;
    insert into action_item_changes (item_id, project_id, version)
        select new.id, new.project_id, version from action_item_versions where project_id = new.project_id
        on conflict (item_id) do update set version = excluded.version, project_id = excluded.project_id;
end;

create trigger action_items_updated after update on action_items begin
    insert into action_item_versions (project_id, version) values (new.project_id, 1)
        on conflict (project_id) do update set version = version + 1;
    insert into action_item_changes (item_id, project_id, version)
        select new.id, new.project_id, version from action_item_versions where project_id = new.project_id
        on conflict (item_id) do update set version = excluded.version, project_id = excluded.project_id;
end;

create trigger action_items_deleted after delete on action_items begin
    insert into action_item_versions (project_id, version) values (old.project_id, 1)
        on conflict (project_id) do update set version = version + 1;
    insert into action_item_changes (item_id, project_id, version)
        select old.id, old.project_id, version from action_item_versions where project_id = old.project_id
        on conflict (item_id) do update set version = excluded.version, project_id = excluded.project_id;
end;

-- Substring search is answered in memory now; this index of every item's search text only
-- made writes slower and the file larger.
drop index action_items_search;
