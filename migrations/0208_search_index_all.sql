-- 0206 indexed restricted postmortems in a table of their own; ranked by
-- its own statistics, their scores were on another scale than the open
-- ones' (in a small table nearly every word is in most rows, and FTS5
-- floors its weight). Instead, search_index holds the postmortems open to
-- everyone and search_index_all, of the same definition, every postmortem:
-- a reader who may read no restricted postmortem is ranked in the first,
-- so their scores come only from what everyone may read; one who may read
-- some, in the second, one scale for all their hits. 0206's trigger still
-- marks a row stale when its restriction changes; store.Open rebuilds both
-- tables for the new index version.
DROP TABLE search_index_restricted;
CREATE VIRTUAL TABLE search_index_all USING fts5(
    title, summary, body, extra, patterns,
    content = '', contentless_delete = 1,
    tokenize = 'unicode61 remove_diacritics 2',
    prefix = '2 3'
);
INSERT INTO search_index_all (search_index_all, rank) VALUES ('hashsize', 67108864);
