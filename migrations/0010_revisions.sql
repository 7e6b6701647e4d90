-- Every save of a postmortem (create, edit, restore) is a revision: a full
-- snapshot of the fields a writer edits, as JSON, so that a column added
-- later does not invalidate old revisions. version is the postmortem's
-- version that the save produced.
CREATE TABLE revisions (
    id            INTEGER PRIMARY KEY,
    postmortem_id INTEGER NOT NULL REFERENCES postmortems(id),
    version       INTEGER NOT NULL,
    -- baseline: the state of a postmortem saved before history was kept,
    -- recorded just before its first edit so that nothing is lost.
    action        TEXT NOT NULL CHECK (action IN ('create', 'edit', 'restore', 'baseline')),
    restored_from INTEGER,  -- the version a restore brought back
    author        TEXT NOT NULL DEFAULT '',
    note          TEXT NOT NULL DEFAULT '',
    fields        TEXT NOT NULL,
    created_at    TEXT NOT NULL,
    UNIQUE (postmortem_id, version)
) STRICT;

-- The IANA time zone the incident's times were entered in, so the edit form
-- shows them as they were typed; the times themselves carry their offset.
ALTER TABLE postmortems ADD COLUMN time_zone TEXT NOT NULL DEFAULT '';
