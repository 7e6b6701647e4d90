-- Follow-up counts (0192) are also kept per pattern of the postmortem
-- ('' for every item), so /action-items?pattern=… counts from them too.
-- A tag added or removed changes which patterns' counts a postmortem's
-- items are in. Counted again from the start.
DROP TABLE followup_counts;
CREATE TABLE followup_counts (
    pattern   TEXT NOT NULL,
    status    TEXT NOT NULL,
    time_zone TEXT NOT NULL,
    due       TEXT NOT NULL,
    n         INTEGER NOT NULL,
    PRIMARY KEY (pattern, status, time_zone, due)
) STRICT, WITHOUT ROWID;
DELETE FROM followup_postmortems;
DELETE FROM followup_dirty;
INSERT INTO followup_dirty (postmortem_id) SELECT DISTINCT postmortem_id FROM action_items;

CREATE TRIGGER followup_tag_insert AFTER INSERT ON tags
BEGIN
    INSERT INTO followup_dirty (postmortem_id) VALUES (NEW.postmortem_id);
END;
CREATE TRIGGER followup_tag_update AFTER UPDATE ON tags
BEGIN
    INSERT INTO followup_dirty (postmortem_id) VALUES (NEW.postmortem_id);
    INSERT INTO followup_dirty (postmortem_id) SELECT OLD.postmortem_id WHERE OLD.postmortem_id != NEW.postmortem_id;
END;
CREATE TRIGGER followup_tag_delete AFTER DELETE ON tags
BEGIN
    INSERT INTO followup_dirty (postmortem_id) VALUES (OLD.postmortem_id);
END;
