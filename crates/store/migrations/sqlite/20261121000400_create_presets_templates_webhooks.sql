create table speaker_presets (
    id blob primary key,
    project_id blob not null references projects (id) on delete cascade,
    name text not null,
    speakers text not null,
    is_default integer not null default 0,
    created_at text not null,
    updated_at text not null
);

create index speaker_presets_project on speaker_presets (project_id);
create unique index speaker_presets_one_default on speaker_presets (project_id) where is_default;

create table analysis_templates (
    id blob primary key,
    project_id blob not null references projects (id) on delete cascade,
    -- the API key that created it
    user_id blob not null references api_keys (id),
    name text not null,
    description text,
    is_active integer not null default 0,
    fields text not null,
    created_at text not null,
    updated_at text not null
);

create index analysis_templates_project_created on analysis_templates (project_id, created_at desc, id desc);
create unique index analysis_templates_one_active on analysis_templates (project_id) where is_active;

create table webhooks (
    id blob primary key,
    project_id blob not null references projects (id) on delete cascade,
    url text not null,
    events text not null,
    -- whsec_…: needed in the clear to sign deliveries
    secret text not null,
    active integer not null default 1,
    created_at text not null,
    updated_at text not null
);

create index webhooks_project on webhooks (project_id, created_at);
