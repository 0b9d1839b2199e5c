-- Calls, as far as the category tree needs them: deleting a category un-categorizes its calls.
-- The upload pipeline adds the rest of a call's columns.
create table calls (
    id blob primary key,
    project_id blob not null references projects (id) on delete cascade,
    primary_category_id blob references categories (id) on delete set null,
    created_at text not null,
    updated_at text not null
);

create index calls_project_created on calls (project_id, created_at desc, id desc);
create index calls_primary_category on calls (primary_category_id);
