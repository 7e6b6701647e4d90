-- Restricted postmortems are indexed apart from the others, in a table of
-- the same definition: bm25 ranks a match by statistics of the table it is
-- in (how many rows, their lengths, how many hold each word), and those of
-- search_index must come from postmortems everyone may read, or an
-- outsider could tell from a score whether hidden postmortems hold a word.
-- A change of restriction moves the row (the trigger marks it stale);
-- store.Open rebuilds both tables for the new index version.
CREATE VIRTUAL TABLE search_index_restricted USING fts5(
    title, summary, body, extra, patterns,
    content = '', contentless_delete = 1,
    tokenize = 'unicode61 remove_diacritics 2',
    prefix = '2 3'
);
INSERT INTO search_index_restricted (search_index_restricted, rank) VALUES ('hashsize', 67108864);
CREATE TRIGGER search_postmortem_restrict AFTER UPDATE OF restricted_to ON postmortems BEGIN
    INSERT OR IGNORE INTO search_stale (postmortem_id) VALUES (new.id);
END;
