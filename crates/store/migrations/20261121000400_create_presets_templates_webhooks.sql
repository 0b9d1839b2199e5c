create table speaker_presets (
    id UUID primary key,
    project_id UUID not null references projects (id) on delete cascade,
    name text not null,
    speakers JSON not null,
    is_default BOOLEAN not null default FALSE,
    created_at TIMESTAMP not null,
    updated_at TIMESTAMP not null
);

create index speaker_presets_project on speaker_presets (project_id);
create unique index speaker_presets_one_default on speaker_presets (project_id) where is_default;

create table analysis_templates (
    id UUID primary key,
    project_id UUID not null references projects (id) on delete cascade,
    -- the API key that created it
    user_id UUID not null references api_keys (id),
    name text not null,
    description text,
    is_active BOOLEAN not null default FALSE,
    fields JSON not null,
    created_at TIMESTAMP not null,
    updated_at TIMESTAMP not null
);

create index analysis_templates_project_created on analysis_templates (project_id, created_at desc, id desc);
create unique index analysis_templates_one_active on analysis_templates (project_id) where is_active;

create table webhooks (
    id UUID primary key,
    project_id UUID not null references projects (id) on delete cascade,
    url text not null,
    events JSON not null,
    -- whsec_…: needed in the clear to sign deliveries
    secret text not null,
    active BOOLEAN not null default TRUE,
    created_at TIMESTAMP not null,
    updated_at TIMESTAMP not null
);

create index webhooks_project on webhooks (project_id, created_at);
