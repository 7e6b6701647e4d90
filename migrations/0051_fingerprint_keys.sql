-- Performance at scale: cheaper fingerprint writes.
-- Every postmortem writes its 64 LSH bands and some 36 facts. Each row went
-- into two B-trees (its lookup key, and an index by postmortem used only to
-- find the rows again when the text changes) and checked its foreign key,
-- which also made every insert keep a statement journal of each page it
-- touched. The fingerprint row now keeps the fact keys (the bands follow
-- from the signature), so replacing a fingerprint finds the old rows by
-- their lookup keys; the tables are rebuilt with only those keys. The
-- postmortem a row names is written in the same transaction
-- (store.insertPrint), and postmortems are archived, never deleted.
ALTER TABLE postmortem_fingerprints ADD COLUMN facts TEXT NOT NULL DEFAULT '[]'; -- JSON array of classify.DocFacts keys

UPDATE postmortem_fingerprints SET facts = (
    SELECT json_group_array(fact ORDER BY fact) FROM postmortem_facts f
    WHERE f.postmortem_id = postmortem_fingerprints.postmortem_id);

CREATE TABLE fingerprint_bands_keys (
    band          INTEGER NOT NULL,
    postmortem_id INTEGER NOT NULL,
    PRIMARY KEY (band, postmortem_id)
) STRICT, WITHOUT ROWID;
INSERT INTO fingerprint_bands_keys SELECT band, postmortem_id FROM fingerprint_bands ORDER BY band, postmortem_id;
DROP TABLE fingerprint_bands;
ALTER TABLE fingerprint_bands_keys RENAME TO fingerprint_bands;

CREATE TABLE postmortem_facts_keys (
    fact          TEXT NOT NULL,
    postmortem_id INTEGER NOT NULL,
    PRIMARY KEY (fact, postmortem_id)
) STRICT, WITHOUT ROWID;
INSERT INTO postmortem_facts_keys SELECT fact, postmortem_id FROM postmortem_facts ORDER BY fact, postmortem_id;
DROP TABLE postmortem_facts;
ALTER TABLE postmortem_facts_keys RENAME TO postmortem_facts;

-- FTS5 keeps the rows of a transaction in memory and writes them out as a
-- new index segment each time they pass hashsize (1 MB by default), to be
-- merged with the others later. A batch import writes tens of megabytes of
-- words (each also under its 2- and 3-letter prefixes): a larger buffer
-- writes fewer, larger segments and merges less. A commit always writes it
-- out, so single saves are unchanged.
INSERT INTO search_index (search_index, rank) VALUES ('hashsize', 67108864);
