--@ sqlite
-- ids are 16-byte UUID blobs and timestamps RFC 3339 text in UTC, as sqlx encodes them
--@ end
create table organizations (
    id UUID primary key,
    name text not null,
    created_at TIMESTAMP not null
);

create table api_keys (
    id UUID primary key,
    organization_id UUID not null references organizations (id) on delete cascade,
    name text not null,
    -- lower-case hex SHA-256 of the plain key; the key itself is never stored
    key_hash text not null unique,
    created_at TIMESTAMP not null,
    revoked_at TIMESTAMP
);

create index api_keys_organization on api_keys (organization_id);
