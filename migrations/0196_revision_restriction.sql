-- Changing who may read a postmortem is a save of its own: it makes a new
-- version, so an edit (form or API) based on the version before is stale
-- and refused, as one based on replaced text is, and cannot silently undo
-- the change. Its revision is a 'restrict', with the text unchanged.
-- Every revision also records who may read the postmortem at its version:
-- restricted_to is a JSON array of group names as postmortems.restricted_to,
-- '' for everyone, NULL when not known (older revisions; the current
-- version's is the postmortem's restriction now).
-- SQLite cannot change a CHECK constraint: the table is rebuilt.
CREATE TABLE revisions_new (
    id            INTEGER PRIMARY KEY,
    postmortem_id INTEGER NOT NULL REFERENCES postmortems(id),
    version       INTEGER NOT NULL,
    action        TEXT NOT NULL CHECK (action IN ('create', 'edit', 'restore', 'baseline', 'restrict')),
    restored_from INTEGER,
    author        TEXT NOT NULL DEFAULT '',
    note          TEXT NOT NULL DEFAULT '',
    fields        TEXT NOT NULL,
    created_at    TEXT NOT NULL,
    restricted_to TEXT,
    UNIQUE (postmortem_id, version)
) STRICT;
INSERT INTO revisions_new (id, postmortem_id, version, action, restored_from, author, note, fields, created_at)
    SELECT id, postmortem_id, version, action, restored_from, author, note, fields, created_at FROM revisions ORDER BY id;
DROP TABLE revisions;
ALTER TABLE revisions_new RENAME TO revisions;
UPDATE revisions SET restricted_to = (SELECT p.restricted_to FROM postmortems p WHERE p.id = revisions.postmortem_id)
    WHERE version = (SELECT p.version FROM postmortems p WHERE p.id = revisions.postmortem_id);
