-- One taxonomy per project, created with its first category; its row is also the lock that
-- serialises edits of the project's tree.
create table taxonomies (
    id UUID primary key,
    project_id UUID not null unique references projects (id) on delete cascade,
    created_at TIMESTAMP not null,
    updated_at TIMESTAMP not null
);

create table categories (
    id UUID primary key,
    project_id UUID not null references projects (id) on delete cascade,
    taxonomy_id UUID not null references taxonomies (id) on delete cascade,
    parent_id UUID references categories (id) on delete cascade,
    name text not null,
    -- lower-cased name: sibling names are unique regardless of case
    name_key text not null,
    description text,
    display_order integer not null,
    created_at TIMESTAMP not null,
    updated_at TIMESTAMP not null
);

create unique index categories_sibling_name on categories (taxonomy_id, coalesce(parent_id, taxonomy_id), name_key);
create index categories_project on categories (project_id);
create index categories_parent on categories (parent_id);
