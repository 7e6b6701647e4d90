-- Follow-ups at 100,000 postmortems: how many action items of the live
-- postmortems anyone may read there are per status, time zone (of the
-- postmortem; overdue is judged there) and month due ('' when undated),
-- kept on write, so the follow-ups page counts its items, and the overdue
-- ones, from a few thousand rows (the items due this month are counted
-- from the items: whether they are overdue depends on the day).
CREATE TABLE followup_counts (
    status    TEXT NOT NULL,
    time_zone TEXT NOT NULL,
    due       TEXT NOT NULL,
    n         INTEGER NOT NULL,
    PRIMARY KEY (status, time_zone, due)
) STRICT, WITHOUT ROWID;

-- What each postmortem adds to followup_counts (a JSON array of
-- [status, time zone, month, n]).
CREATE TABLE followup_postmortems (
    postmortem_id INTEGER PRIMARY KEY,
    counts        TEXT NOT NULL
) STRICT;

-- Postmortems whose items changed since they were counted; folded by every
-- write transaction before it commits, and at start-up (store.inTx, Open).
CREATE TABLE followup_dirty (
    postmortem_id INTEGER NOT NULL
) STRICT;

INSERT INTO followup_dirty (postmortem_id) SELECT DISTINCT postmortem_id FROM action_items;

CREATE TRIGGER followup_item_insert AFTER INSERT ON action_items
BEGIN
    INSERT INTO followup_dirty (postmortem_id) VALUES (NEW.postmortem_id);
END;
CREATE TRIGGER followup_item_update AFTER UPDATE OF postmortem_id, status, due_date ON action_items
BEGIN
    INSERT INTO followup_dirty (postmortem_id) VALUES (NEW.postmortem_id);
    INSERT INTO followup_dirty (postmortem_id) SELECT OLD.postmortem_id WHERE OLD.postmortem_id != NEW.postmortem_id;
END;
CREATE TRIGGER followup_item_delete AFTER DELETE ON action_items
BEGIN
    INSERT INTO followup_dirty (postmortem_id) VALUES (OLD.postmortem_id);
END;
CREATE TRIGGER followup_pm_update AFTER UPDATE OF archived_at, restricted_to, time_zone ON postmortems
BEGIN
    INSERT INTO followup_dirty (postmortem_id) VALUES (NEW.id);
END;
CREATE TRIGGER followup_pm_delete AFTER DELETE ON postmortems
BEGIN
    INSERT INTO followup_dirty (postmortem_id) VALUES (OLD.id);
END;

-- Counting the items of one owner, one kind or one organization walks
-- their own index instead of every item.
CREATE INDEX action_items_owner ON action_items(owner COLLATE NOCASE, status, due_date, postmortem_id);
CREATE INDEX action_items_kind ON action_items(kind, priority, status, due_date, postmortem_id);
CREATE INDEX postmortems_org_nocase ON postmortems(organization COLLATE NOCASE, id, archived_at, restricted_to, time_zone);
