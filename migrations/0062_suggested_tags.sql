-- Tags the classifier suggested for an imported postmortem, apart from the
-- tags people gave (tags). A suggestion stays 'suggested' until someone
-- reviews it: 'confirmed' copies it into tags (the row is kept as the tag's
-- origin), 'dismissed' also records it in rejected_suggestions. A pattern is
-- suggested at most once per postmortem, so a dismissed one is not offered
-- again.
CREATE TABLE suggested_tags (
    postmortem_id INTEGER NOT NULL REFERENCES postmortems(id),
    pattern_slug  TEXT NOT NULL REFERENCES patterns(slug),
    role          TEXT NOT NULL CHECK (role IN ('trigger', 'amplifier', 'contributing', 'missing-defence', 'mitigation')),
    confidence    REAL NOT NULL CHECK (confidence >= 0 AND confidence <= 1),
    reason        TEXT NOT NULL DEFAULT '',
    evidence      TEXT NOT NULL DEFAULT '',  -- the sentence that supports it best
    phrases       TEXT NOT NULL DEFAULT '',  -- matched phrases, one per line
    status        TEXT NOT NULL DEFAULT 'suggested' CHECK (status IN ('suggested', 'confirmed', 'dismissed')),
    suggested_at  TEXT NOT NULL,
    reviewed_at   TEXT NOT NULL DEFAULT '',
    reviewed_by   TEXT NOT NULL DEFAULT '',
    PRIMARY KEY (postmortem_id, pattern_slug)
) STRICT;
CREATE INDEX suggested_tags_status ON suggested_tags(status, postmortem_id);
CREATE INDEX suggested_tags_pattern ON suggested_tags(pattern_slug, status);

-- Unreviewed suggestions are indexed for search (with less weight than
-- tags): a change of status reindexes the postmortem.
CREATE TRIGGER search_suggested_tag_insert AFTER INSERT ON suggested_tags BEGIN
    INSERT OR IGNORE INTO search_stale (postmortem_id) VALUES (new.postmortem_id);
END;
CREATE TRIGGER search_suggested_tag_update AFTER UPDATE OF status ON suggested_tags BEGIN
    INSERT OR IGNORE INTO search_stale (postmortem_id) VALUES (new.postmortem_id);
END;
CREATE TRIGGER search_suggested_tag_delete AFTER DELETE ON suggested_tags BEGIN
    INSERT OR IGNORE INTO search_stale (postmortem_id) VALUES (old.postmortem_id);
END;
