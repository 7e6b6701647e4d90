-- The follow-ups check each item's postmortem: live, readable, and not an
-- example unless asked. postmortems_followups lacked the example flag, so
-- that check read the postmortem's whole row (its texts) for every item.
DROP INDEX postmortems_followups;
CREATE INDEX postmortems_followups ON postmortems(id, archived_at, restricted_to, organization, time_zone, severity, example);

-- The postmortems the kept follow-up counts leave out (archived,
-- restricted) and the examples, a few: store.TimeZonesInUse reads their
-- time zones from here. (Written first for a way of counting that kept
-- counts by type and priority replaced the same day.)
CREATE INDEX postmortems_hidden ON postmortems(id) WHERE archived_at != '' OR restricted_to != '' OR example = 1;
