-- An audit entry about a restricted postmortem names it as it was then
-- (its title, what changed): it belongs to that moment, as a version saved
-- while restricted does. restricted_to is who could read the postmortem
-- just after the write, as postmortems.restricted_to ('' for everyone);
-- once the postmortem is opened, readers who could not read it then still
-- do not see the entry. Entries written before this take the restriction
-- their postmortem has now.
ALTER TABLE audit_log ADD COLUMN restricted_to TEXT NOT NULL DEFAULT '';
UPDATE audit_log SET restricted_to = (SELECT p.restricted_to FROM postmortems p WHERE p.slug = audit_log.postmortem)
    WHERE postmortem != '' AND EXISTS (SELECT 1 FROM postmortems p WHERE p.slug = audit_log.postmortem AND p.restricted_to != '');
