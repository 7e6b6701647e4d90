-- An imported postmortem remembers the SHA-256 of the verbatim text it came
-- from, so that importing the same file again is recognised and skipped.
-- Rows created before this column (the seeds of an older database) keep ''
-- and are matched on source_text itself.
ALTER TABLE postmortems ADD COLUMN source_hash TEXT NOT NULL DEFAULT '';
CREATE UNIQUE INDEX postmortems_source_hash ON postmortems(source_hash) WHERE source_hash != '';
