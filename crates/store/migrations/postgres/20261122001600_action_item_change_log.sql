-- The action item list is answered from an index each process keeps in memory (see the
-- store's `item_index`). These tables tell a process what changed since it last looked:
-- every insert, update and delete of an item bumps its project's version and records the item
-- under that version (one row per item, the latest change only), so a process reads its
-- project's version, and when that moved on, only the items changed since. The version row's
-- lock is held to the end of the writing transaction, so versions become visible in order: a
-- reader that sees version N sees every change up to N.
create table action_item_versions (
    project_id uuid primary key,
    version bigint not null
);

create table action_item_changes (
    item_id uuid primary key,
    project_id uuid not null,
    version bigint not null
);
create index action_item_changes_project on action_item_changes (project_id, version);

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
