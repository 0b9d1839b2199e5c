-- Retention prunes the two change logs the indexes follow (`action_item_changes`, read by each
-- process's action item index, and `call_deletions`, read by the search index). A reader whose
-- state is older than what was pruned cannot tell what it missed, so each log records how far
-- it was pruned, and such a reader reads its whole state again instead.

-- When housekeeping first saw that a change row's item no longer exists (by the service's
-- clock, not the database's); rows of live items keep null and are never pruned.
alter table action_item_changes add column gone_at TIMESTAMP;

-- The newest version of the project's change log that was pruned: an index holding an older
-- version reads the project's items again.
alter table action_item_versions add column pruned_through BIGINT not null default 0;

-- The newest erasure pruned from `call_deletions`: a search index that has not applied it
-- rebuilds.
create table pruned_call_deletions (
    singleton BOOLEAN primary key check (singleton = TRUE),
    newest_pruned TIMESTAMP not null
);
