-- The search index follows the database: it reads calls changed since its watermark (in
-- updated_at order), and the ids of erased calls from call_deletions. A deletion row names the
-- call by id only, never its content.
create index calls_updated on calls (updated_at, id);

create table call_deletions (
    call_id UUID primary key,
    project_id UUID not null,
    deleted_at TIMESTAMP not null
);

create index call_deletions_deleted on call_deletions (deleted_at);
