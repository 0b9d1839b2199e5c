-- What analysis found: a title, the sentiment level (for lists and the dashboard), the
-- classification, the summary block and the template answers, each null until made; and the
-- action items, one row each, which the action items API reads and edits.
alter table calls add column title text;
alter table calls add column sentiment_level text not null default 'unknown';
alter table calls add column classification jsonb;
alter table calls add column summary jsonb;
alter table calls add column template_analysis jsonb;

create table action_items (
    id uuid primary key,
    project_id uuid not null references projects (id) on delete cascade,
    call_id uuid not null references calls (id) on delete cascade,
    transcript_index integer not null,
    call_date timestamptz not null,
    call_filename text not null,
    description text not null,
    responsible_party text,
    deadline_mentioned text,
    due_at timestamptz,
    evidence text,
    status text not null default 'PENDING',
    priority text not null,
    notes text,
    completed_at timestamptz,
    created_at timestamptz not null,
    updated_at timestamptz not null
);

create index action_items_project_created on action_items (project_id, created_at desc, id desc);
create index action_items_call on action_items (call_id, transcript_index);
