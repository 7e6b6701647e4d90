-- Insights aggregate every live incident at once; this index holds every
-- column they read of a postmortem, so the wide rows (the write-up, the
-- source) are never visited for them.
CREATE INDEX postmortems_insights ON postmortems(id, group_id, archived_at, restricted_to, incident_date, severity,
    organization, started_at, detected_at, mitigated_at, resolved_at);
