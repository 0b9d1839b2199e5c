-- Upload jobs: the durable queue. A worker claims a job by setting worker_id and lease_until,
-- and keeps the lease alive while it works; an expired lease lets another worker take over.
create table jobs (
    id UUID primary key,
    project_id UUID not null references projects (id) on delete cascade,
    status text not null check (status in ('PENDING', 'PROCESSING', 'COMPLETED', 'FAILED')),
    stage text not null,
    progress FLOAT not null default 0,
    attempts integer not null default 0,
    error_message text,
    original_filename text not null,
    content_type text not null,
    size_bytes BIGINT not null,
    sha256 text not null,
    storage_path text not null,
    language text not null,
    channel_roles JSON,
    recorded_at TIMESTAMP,
    transcript_id UUID,
    run_at TIMESTAMP not null,
    lease_until TIMESTAMP,
    worker_id text,
    submitted_at TIMESTAMP not null,
    started_at TIMESTAMP,
    completed_at TIMESTAMP,
    updated_at TIMESTAMP not null
);

create index jobs_runnable on jobs (run_at) where status in ('PENDING', 'PROCESSING');
create index jobs_project_sha256 on jobs (project_id, sha256);
