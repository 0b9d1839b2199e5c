-- A project's vocabulary (issue 36): the terms its calls use and the ways they are heard, as
-- written (JSON). A project without a row has an empty vocabulary.
create table vocabularies (
    project_id UUID primary key references projects (id) on delete cascade,
    terms JSON not null,
    updated_at TIMESTAMP not null
);
