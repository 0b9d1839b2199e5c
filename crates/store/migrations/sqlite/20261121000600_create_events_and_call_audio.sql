-- The outbox: events are written in the same transaction as the change that raised them, so
-- none is lost in a crash; the webhook dispatcher turns them into deliveries.
create table events (
    id blob primary key,
    project_id blob not null references projects (id) on delete cascade,
    type text not null,
    payload text not null,
    created_at text not null
);

create index events_created on events (created_at, id);

-- What a completed job knows about its call's audio.
alter table calls add column job_id blob;
alter table calls add column filename text not null default '';
alter table calls add column language text not null default 'en';
alter table calls add column size_bytes integer not null default 0;
alter table calls add column duration_s real;
alter table calls add column storage_path text not null default '';
alter table calls add column sha256 text not null default '';
alter table calls add column content_type text not null default '';
alter table calls add column sample_rate integer;
alter table calls add column channels integer;
alter table calls add column codec text;
alter table calls add column recorded_at text;
