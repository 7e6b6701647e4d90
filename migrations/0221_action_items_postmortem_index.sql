-- action_items_followups (0153) starts with postmortem_id: it finds a
-- postmortem's items as well as action_items_postmortem (0001) did, which
-- every imported or saved item then no longer pays for.
DROP INDEX IF EXISTS action_items_postmortem;
