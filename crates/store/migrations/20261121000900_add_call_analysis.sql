-- What analysis found: a title, the sentiment level (for lists and the dashboard), the
-- classification, the summary block and the template answers, each null until made; and the
-- action items, one row each, which the action items API reads and edits.
alter table calls add column title text;
alter table calls add column sentiment_level text not null default 'unknown';
alter table calls add column classification JSON;
alter table calls add column summary JSON;
alter table calls add column template_analysis JSON;

create table action_items (
    id UUID primary key,
    project_id UUID not null references projects (id) on delete cascade,
    call_id UUID not null references calls (id) on delete cascade,
    transcript_index integer not null,
    call_date TIMESTAMP not null,
    call_filename text not null,
    description text not null,
    responsible_party text,
    deadline_mentioned text,
    due_at TIMESTAMP,
    evidence text,
    status text not null default 'PENDING',
    priority text not null,
    notes text,
    completed_at TIMESTAMP,
    created_at TIMESTAMP not null,
    updated_at TIMESTAMP not null
);

create index action_items_project_created on action_items (project_id, created_at desc, id desc);
create index action_items_call on action_items (call_id, transcript_index);
