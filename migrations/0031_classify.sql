-- MinHash signature of each postmortem's text (classify.Signature.Bytes),
-- kept up to date in the transaction that writes the postmortem.
CREATE TABLE postmortem_fingerprints (
    postmortem_id INTEGER PRIMARY KEY REFERENCES postmortems(id),
    signature     BLOB NOT NULL
) STRICT;

-- The signature's LSH bands: postmortems that share a band with a text are
-- the candidates to compare it with, found through the primary key instead
-- of reading every signature.
CREATE TABLE fingerprint_bands (
    band          INTEGER NOT NULL,
    postmortem_id INTEGER NOT NULL REFERENCES postmortems(id),
    PRIMARY KEY (band, postmortem_id)
) STRICT, WITHOUT ROWID;
CREATE INDEX fingerprint_bands_postmortem ON fingerprint_bands(postmortem_id);

-- Numbers and names a postmortem mentions ("#2.5", "facebook"): they survive
-- translation, so texts in other languages sharing them are translation
-- candidates.
CREATE TABLE postmortem_facts (
    fact          TEXT NOT NULL,
    postmortem_id INTEGER NOT NULL REFERENCES postmortems(id),
    PRIMARY KEY (fact, postmortem_id)
) STRICT, WITHOUT ROWID;
CREATE INDEX postmortem_facts_postmortem ON postmortem_facts(postmortem_id);

-- Pattern suggestions a writer rejected, with the phrases that triggered
-- them, so the detection phrases can be tuned. A suggestion made on a draft
-- that was never saved has no postmortem; its title says what it was.
CREATE TABLE rejected_suggestions (
    id            INTEGER PRIMARY KEY,
    postmortem_id INTEGER REFERENCES postmortems(id),
    title         TEXT NOT NULL DEFAULT '',
    pattern_slug  TEXT NOT NULL REFERENCES patterns(slug),
    phrases       TEXT NOT NULL DEFAULT '',  -- matched phrases, one per line
    score         REAL NOT NULL DEFAULT 0,
    rejected_at   TEXT NOT NULL
) STRICT;
CREATE INDEX rejected_suggestions_pattern ON rejected_suggestions(pattern_slug, rejected_at);
