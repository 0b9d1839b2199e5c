-- Calls, as far as the category tree needs them: deleting a category un-categorizes its calls.
-- The upload pipeline adds the rest of a call's columns.
create table calls (
    id UUID primary key,
    project_id UUID not null references projects (id) on delete cascade,
    primary_category_id UUID references categories (id) on delete set null,
    created_at TIMESTAMP not null,
    updated_at TIMESTAMP not null
);

create index calls_project_created on calls (project_id, created_at desc, id desc);
create index calls_primary_category on calls (primary_category_id);
