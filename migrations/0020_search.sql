-- Full-text search. The index holds what package search makes of each
-- postmortem's text (folded, stemmed words), not the text itself, so it is
-- contentless: rowid = postmortems.id, and rows can be deleted (SQLite 3.43+).
-- Columns, in bm25 weight order of importance: title, summary, body (the write-up
-- and every section), extra (organization, services, action items) and
-- patterns (one synthetic token per tagged pattern, for pattern synonyms).
-- The prefix indexes keep short prefix* queries cheap.
CREATE VIRTUAL TABLE search_index USING fts5(
    title, summary, body, extra, patterns,
    content = '', contentless_delete = 1,
    tokenize = 'unicode61 remove_diacritics 2',
    prefix = '2 3'
);

-- Postmortems whose indexed text changed in the current transaction. The
-- triggers below fill it whatever code does the write; the store reindexes
-- those rows and empties it before every commit (store.inTx), so the index
-- never lags a committed write.
CREATE TABLE search_stale (
    postmortem_id INTEGER PRIMARY KEY
) STRICT;

-- search_meta.version names the index definition the rows were built with;
-- store.Open rebuilds the whole index when the code's differs (or is unset,
-- as right after this migration).
CREATE TABLE search_meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
) STRICT;

CREATE TRIGGER search_postmortem_insert AFTER INSERT ON postmortems BEGIN
    INSERT OR IGNORE INTO search_stale (postmortem_id) VALUES (new.id);
END;
CREATE TRIGGER search_postmortem_update AFTER UPDATE OF
    title, summary, body, impact, trigger_text, contributing, detection, resolution, timeline,
    went_well, went_wrong, got_lucky, organization, services, language ON postmortems BEGIN
    INSERT OR IGNORE INTO search_stale (postmortem_id) VALUES (new.id);
END;
CREATE TRIGGER search_postmortem_delete AFTER DELETE ON postmortems BEGIN
    INSERT OR IGNORE INTO search_stale (postmortem_id) VALUES (old.id);
END;
CREATE TRIGGER search_tag_insert AFTER INSERT ON tags BEGIN
    INSERT OR IGNORE INTO search_stale (postmortem_id) VALUES (new.postmortem_id);
END;
CREATE TRIGGER search_tag_delete AFTER DELETE ON tags BEGIN
    INSERT OR IGNORE INTO search_stale (postmortem_id) VALUES (old.postmortem_id);
END;
CREATE TRIGGER search_tag_update AFTER UPDATE ON tags BEGIN
    INSERT OR IGNORE INTO search_stale (postmortem_id) VALUES (old.postmortem_id), (new.postmortem_id);
END;
CREATE TRIGGER search_action_item_insert AFTER INSERT ON action_items BEGIN
    INSERT OR IGNORE INTO search_stale (postmortem_id) VALUES (new.postmortem_id);
END;
CREATE TRIGGER search_action_item_delete AFTER DELETE ON action_items BEGIN
    INSERT OR IGNORE INTO search_stale (postmortem_id) VALUES (old.postmortem_id);
END;
CREATE TRIGGER search_action_item_update AFTER UPDATE OF title, postmortem_id ON action_items BEGIN
    INSERT OR IGNORE INTO search_stale (postmortem_id) VALUES (old.postmortem_id), (new.postmortem_id);
END;

-- Filters that a query may use without any search words.
CREATE INDEX postmortems_language ON postmortems(language);
CREATE INDEX postmortems_severity ON postmortems(severity);

-- Search reads these columns for every hit; most sit after the large text
-- columns in the row, so reading them from the table would walk each row's
-- overflow pages. This index holds them all, keyed by id.
CREATE INDEX postmortems_search ON postmortems(id, group_id, archived_at, organization, incident_date, language, severity);
