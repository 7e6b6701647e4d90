-- bm25 ranks a match by statistics of the table it is in (how many rows,
-- their lengths, how many hold each word). For a reader who may read no
-- restricted postmortem those must come from postmortems everyone may
-- read, or they could tell from a score whether hidden postmortems hold a
-- word: search_index now holds only postmortems open to everyone, and
-- search_index_all, of the same definition, every postmortem, for readers
-- who may read some restricted one (ranked in one table, their restricted
-- and open hits compare). A change of restriction marks the row stale;
-- store.Open rebuilds both for the new index version.
CREATE VIRTUAL TABLE search_index_all USING fts5(
    title, summary, body, extra, patterns,
    content = '', contentless_delete = 1,
    tokenize = 'unicode61 remove_diacritics 2',
    prefix = '2 3'
);
INSERT INTO search_index_all (search_index_all, rank) VALUES ('hashsize', 67108864);
CREATE TRIGGER search_postmortem_restrict AFTER UPDATE OF restricted_to ON postmortems BEGIN
    INSERT OR IGNORE INTO search_stale (postmortem_id) VALUES (new.id);
END;
