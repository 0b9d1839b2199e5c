-- Rules (issue 36): a project's own filing of calls under labels, and the calls each matched,
-- with the evidence. A rule's conditions are kept as written (JSON); its name is the label and is
-- unique in the project whatever its case. The calls stored before a rule was made or changed
-- are filed by a sweep, a batch at a time, by whichever worker holds its lease.
create table rules (
    id UUID primary key,
    project_id UUID not null references projects (id) on delete cascade,
    name text not null,
    name_key text not null,
    rule JSON not null,
    created_at TIMESTAMP not null,
    updated_at TIMESTAMP not null,
    -- The sweep that files the calls stored before the rule was made or last changed: pending
    -- until a worker has gone through them all, in (created_at, id) order, from the cursor on.
    sweep_pending BOOLEAN not null default TRUE,
    sweep_after_created TIMESTAMP,
    sweep_after_id UUID,
    sweep_filed BIGINT not null default 0,
    sweep_worker text,
    sweep_lease_until TIMESTAMP
);

create index rules_sweeps on rules (sweep_pending, sweep_lease_until);

create unique index rules_project_name on rules (project_id, name_key);

create table rule_matches (
    call_id UUID not null references calls (id) on delete cascade,
    rule_id UUID not null references rules (id) on delete cascade,
    project_id UUID not null references projects (id) on delete cascade,
    label text not null,
    evidence JSON not null,
    matched_at TIMESTAMP not null,
    primary key (call_id, rule_id)
);

create index rule_matches_rule on rule_matches (rule_id, call_id);
