-- The outbox: events are written in the same transaction as the change that raised them, so
-- none is lost in a crash; the webhook dispatcher turns them into deliveries.
create table events (
    id UUID primary key,
    project_id UUID not null references projects (id) on delete cascade,
    type text not null,
    payload JSON not null,
    created_at TIMESTAMP not null
);

create index events_created on events (created_at, id);

-- What a completed job knows about its call's audio.
alter table calls add column job_id UUID;
alter table calls add column filename text not null default '';
alter table calls add column language text not null default 'en';
alter table calls add column size_bytes BIGINT not null default 0;
alter table calls add column duration_s FLOAT;
alter table calls add column storage_path text not null default '';
alter table calls add column sha256 text not null default '';
alter table calls add column content_type text not null default '';
alter table calls add column sample_rate integer;
alter table calls add column channels integer;
alter table calls add column codec text;
alter table calls add column recorded_at TIMESTAMP;
