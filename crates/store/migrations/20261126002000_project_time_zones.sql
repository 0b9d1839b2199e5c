-- The zone a project's calls take place in (IANA name): spoken deadlines are resolved in it.
alter table projects add column time_zone text not null default 'UTC';
