create table projects (
    id UUID primary key,
    organization_id UUID not null references organizations (id) on delete cascade,
    name text not null,
    description text,
    default_language text not null check (default_language in ('en', 'pl')),
    pii_redaction text not null check (pii_redaction in ('none', 'mask')),
    created_at TIMESTAMP not null,
    updated_at TIMESTAMP not null
);

create index projects_organization_created on projects (organization_id, created_at desc, id desc);
