-- Issue 13, ready for a team: API tokens, the audit trail, restricted
-- postmortems and versions for the rows two people may edit at once.

-- An API token's secret is shown once when it is made; only its SHA-256 is
-- kept. A revoked token stays listed; its name can be given to a new one.
CREATE TABLE api_tokens (
    id           INTEGER PRIMARY KEY,
    name         TEXT NOT NULL,
    role         TEXT NOT NULL CHECK (role IN ('viewer', 'editor', 'admin')),
    hash         TEXT NOT NULL UNIQUE,
    created_at   TEXT NOT NULL,
    created_by   TEXT NOT NULL DEFAULT '',
    last_used_at TEXT NOT NULL DEFAULT '',
    revoked_at   TEXT NOT NULL DEFAULT ''
) STRICT;
CREATE UNIQUE INDEX api_tokens_live_name ON api_tokens(name) WHERE revoked_at = '';

-- Every write: who (actor, and how they were known: proxy, token, browser
-- or the command line), when, what kind, on which postmortem, and from where.
CREATE TABLE audit_log (
    id         INTEGER PRIMARY KEY,
    at         TEXT NOT NULL,
    actor      TEXT NOT NULL,
    via        TEXT NOT NULL,
    kind       TEXT NOT NULL,
    postmortem TEXT NOT NULL DEFAULT '',
    what       TEXT NOT NULL,
    client     TEXT NOT NULL DEFAULT ''
) STRICT;
CREATE INDEX audit_log_at ON audit_log(at);
CREATE INDEX audit_log_actor ON audit_log(actor, at);
CREATE INDEX audit_log_kind ON audit_log(kind, at);
CREATE INDEX audit_log_postmortem ON audit_log(postmortem, at);

-- The groups a postmortem is restricted to, as a JSON array of names; ''
-- when anyone may read it.
ALTER TABLE postmortems ADD COLUMN restricted_to TEXT NOT NULL DEFAULT '';

-- Stale-edit protection: a save names the version it was based on.
ALTER TABLE action_items ADD COLUMN version INTEGER NOT NULL DEFAULT 1;
ALTER TABLE checklist_items ADD COLUMN version INTEGER NOT NULL DEFAULT 1;
