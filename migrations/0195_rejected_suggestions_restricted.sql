-- A suggestion rejected while writing a restricted postmortem, before it is
-- saved (postmortem_id NULL), keeps the groups the draft was restricted to:
-- its title is listed only to their members, as the postmortem would be.
-- A JSON array of group names, as postmortems.restricted_to; '' for none.
ALTER TABLE rejected_suggestions ADD COLUMN restricted_to TEXT NOT NULL DEFAULT '';
