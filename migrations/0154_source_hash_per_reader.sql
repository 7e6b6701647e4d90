-- A text already imported is a duplicate only for readers who can see the
-- postmortem imported from it (restricted postmortems do not exist for the
-- others), so two postmortems may now hold the same text: the index stays,
-- unique no longer.
DROP INDEX postmortems_source_hash;
CREATE INDEX postmortems_source_hash ON postmortems(source_hash) WHERE source_hash != '';
