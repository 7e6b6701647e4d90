-- Counting follow-ups reads every item's status, due date and the columns
-- the filters test; this index holds them all, so the count never visits
-- the item rows.
CREATE INDEX action_items_followups ON action_items(postmortem_id, status, due_date, kind, priority, owner);
