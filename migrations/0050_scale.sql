-- Performance at scale (bench area: 0050-0059).

-- The texts imported before source_hash existed are found by their text:
-- this index holds just them, so that checking an import for a duplicate
-- never reads the other rows.
CREATE INDEX postmortems_unhashed ON postmortems(id) WHERE source_hash = '' AND source_text != '';

-- One-off jobs the store has finished (such as fingerprinting the
-- postmortems written before fingerprints existed), so that start-up does
-- not look for work again on every start.
CREATE TABLE store_jobs (
    name     TEXT PRIMARY KEY,
    done_at  TEXT NOT NULL
) STRICT;
