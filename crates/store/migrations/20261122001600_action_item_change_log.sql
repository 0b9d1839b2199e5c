-- The action item list is answered from an index each process keeps in memory (see the
-- store's `item_index`). These tables tell a process what changed since it last looked:
-- every insert, update and delete of an item bumps its project's version and records the item
-- under that version (one row per item, the latest change only), so a process reads its
--@ postgres
-- project's version, and when that moved on, only the items changed since. The version row's
-- lock is held to the end of the writing transaction, so versions become visible in order: a
-- reader that sees version N sees every change up to N.
--@ end
--@ sqlite
-- project's version, and when that moved on, only the items changed since.
--@ end
create table action_item_versions (
    project_id UUID primary key,
    version BIGINT not null
);

create table action_item_changes (
    item_id UUID primary key,
    project_id UUID not null,
    version BIGINT not null
);
create index action_item_changes_project on action_item_changes (project_id, version);

--@ postgres
create function note_action_item_change() returns trigger language plpgsql as $$
declare
    changed_project uuid;
    changed_item uuid;
    next_version bigint;
begin
    if tg_op = 'DELETE' then
        changed_project := old.project_id;
        changed_item := old.id;
    else
        changed_project := new.project_id;
        changed_item := new.id;
    end if;
    insert into action_item_versions as v (project_id, version) values (changed_project, 1)
        on conflict (project_id) do update set version = v.version + 1
        returning v.version into next_version;
    insert into action_item_changes (item_id, project_id, version) values (changed_item, changed_project, next_version)
        on conflict (item_id) do update set version = excluded.version, project_id = excluded.project_id;
    return null;
end;
$$;

create trigger action_items_changed after insert or update or delete on action_items
    for each row execute function note_action_item_change();
--@ end
--@ sqlite
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
--@ end
