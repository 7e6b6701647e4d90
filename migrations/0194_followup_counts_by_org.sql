-- Follow-up counts (0192, 0193) are kept per scope: '' for every item,
-- 'pattern:' and a pattern's slug for its postmortems' items, 'org:' and
-- an organization folded to lower case (as COLLATE NOCASE folds it) for
-- its postmortems' items; so /action-items?org=… counts from them too.
-- Counted again from the start.
DROP TABLE followup_counts;
CREATE TABLE followup_counts (
    scope     TEXT NOT NULL,
    status    TEXT NOT NULL,
    time_zone TEXT NOT NULL,
    due       TEXT NOT NULL,
    n         INTEGER NOT NULL,
    PRIMARY KEY (scope, status, time_zone, due)
) STRICT, WITHOUT ROWID;
DELETE FROM followup_postmortems;
DELETE FROM followup_dirty;
INSERT INTO followup_dirty (postmortem_id) SELECT DISTINCT postmortem_id FROM action_items;
CREATE TRIGGER followup_pm_org AFTER UPDATE OF organization ON postmortems
BEGIN
    INSERT INTO followup_dirty (postmortem_id) VALUES (NEW.id);
END;
