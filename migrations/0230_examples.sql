-- An example is a public postmortem the server loaded so a new instance is
-- not empty (the seeds). Follow-ups and insights leave examples out unless
-- asked, and an admin can archive them all at once. The seeds already
-- loaded are marked by seeds.Load, which knows their text.
ALTER TABLE postmortems ADD COLUMN example INTEGER NOT NULL DEFAULT 0 CHECK (example IN (0, 1));
CREATE INDEX postmortems_examples ON postmortems(id) WHERE example = 1 AND archived_at = '';
