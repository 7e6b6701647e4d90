-- search_index_all held every postmortem beside search_index's open ones,
-- so an open postmortem was indexed twice: about a quarter of an import's
-- write time. Restricted hits are now ranked by search_index's statistics
-- (store/search_restricted.go), so the second table needs only the
-- restricted postmortems: renamed here, emptied of the open ones by the
-- rebuild store.Open makes for the new index version.
ALTER TABLE search_index_all RENAME TO search_index_restricted;
