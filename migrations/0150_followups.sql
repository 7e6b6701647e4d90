-- Learning across incidents (issue 15 area: 0150-0159).

-- The services a postmortem names, one row each, so that lists filter by a
-- service through an index instead of reading every row's services text.
-- The store keeps it in step with postmortems.services on every write.
CREATE TABLE postmortem_services (
    postmortem_id INTEGER NOT NULL REFERENCES postmortems(id),
    service       TEXT NOT NULL COLLATE NOCASE,
    PRIMARY KEY (service, postmortem_id)
) STRICT, WITHOUT ROWID;
CREATE INDEX postmortem_services_postmortem ON postmortem_services(postmortem_id);

WITH RECURSIVE split(id, item, rest) AS (
    SELECT id, '', services || ',' FROM postmortems WHERE services != ''
    UNION ALL
    SELECT id, trim(substr(rest, 1, instr(rest, ',') - 1)), substr(rest, instr(rest, ',') + 1)
    FROM split WHERE rest != ''
)
INSERT OR IGNORE INTO postmortem_services (postmortem_id, service)
SELECT id, item FROM split WHERE item != '';

-- The follow-ups page sorts every action item by due date and joins each to
-- its postmortem's state; this index holds what the join reads, so the wide
-- postmortem rows are never visited for it.
CREATE INDEX action_items_due ON action_items(due_date, id);
CREATE INDEX postmortems_followups ON postmortems(id, archived_at, restricted_to, organization, time_zone, severity);
