create table organizations (
    id uuid primary key,
    name text not null,
    created_at timestamptz not null
);

create table api_keys (
    id uuid primary key,
    organization_id uuid not null references organizations (id) on delete cascade,
    name text not null,
    -- lower-case hex SHA-256 of the plain key; the key itself is never stored
    key_hash text not null unique,
    created_at timestamptz not null,
    revoked_at timestamptz
);

create index api_keys_organization on api_keys (organization_id);
