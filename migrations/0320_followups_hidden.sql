-- The follow-ups check each item's postmortem: live, readable, and not an
-- example unless asked. postmortems_followups lacked the example flag, so
-- that check read the postmortem's whole row (its texts) for every item.
DROP INDEX postmortems_followups;
CREATE INDEX postmortems_followups ON postmortems(id, archived_at, restricted_to, organization, time_zone, severity, example);

-- The postmortems whose items a list may leave out: counting a filter on
-- the items' own columns takes their items away from all the matching
-- ones (store.itemQuery.itemColumnTotals) instead of checking every
-- item's postmortem.
CREATE INDEX postmortems_hidden ON postmortems(id) WHERE archived_at != '' OR restricted_to != '' OR example = 1;
