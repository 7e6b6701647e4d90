-- Issue 30: graphs, screenshots and files attached to postmortems, kept in
-- the database file itself so that backup, replication and restore carry
-- them with the text that shows them.

-- The bytes, stored once per content (sha256, hex), in chunks so that no
-- read or write holds a whole file in memory.
CREATE TABLE attachment_blobs (
    sha256     TEXT PRIMARY KEY,
    size       INTEGER NOT NULL,
    created_at TEXT NOT NULL
) STRICT;
CREATE TABLE attachment_chunks (
    sha256 TEXT NOT NULL REFERENCES attachment_blobs(sha256) ON DELETE CASCADE,
    seq    INTEGER NOT NULL,
    data   BLOB NOT NULL,
    PRIMARY KEY (sha256, seq)
) STRICT, WITHOUT ROWID;

-- One upload: the bytes as a file of a postmortem, under a name. A
-- postmortem_id NULL is an upload from the form of a postmortem not saved
-- yet (pending). restricted_to is who may read it (as
-- postmortems.restricted_to, '' for everyone): the postmortem's restriction
-- when the versions referencing it were saved; it stays with those versions
-- and widens only when a version saved with a wider restriction references
-- it. referenced is 1 once a saved version references it; attachments never
-- referenced are removed after a grace period.
CREATE TABLE attachments (
    id            INTEGER PRIMARY KEY,
    postmortem_id INTEGER REFERENCES postmortems(id),
    sha256        TEXT NOT NULL REFERENCES attachment_blobs(sha256),
    name          TEXT NOT NULL,
    alt           TEXT NOT NULL DEFAULT '',
    content_type  TEXT NOT NULL,
    size          INTEGER NOT NULL,
    width         INTEGER NOT NULL DEFAULT 0,
    height        INTEGER NOT NULL DEFAULT 0,
    uploaded_by   TEXT NOT NULL DEFAULT '',
    created_at    TEXT NOT NULL,
    restricted_to TEXT NOT NULL DEFAULT '',
    referenced    INTEGER NOT NULL DEFAULT 0
) STRICT;
CREATE INDEX attachments_postmortem ON attachments(postmortem_id);
CREATE INDEX attachments_sha256 ON attachments(sha256);
CREATE INDEX attachments_unreferenced ON attachments(created_at) WHERE referenced = 0;
