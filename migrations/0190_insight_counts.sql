-- Insights at 100,000 postmortems: counts kept on write, so a first
-- request reads a few thousand small rows instead of every incident.
--
-- insight_counts holds, for the incidents anyone may read (each variant
-- group counted once, through the version lists show), how many there are
-- per kind of figure (kind), severity and incident year, and what the
-- figure is about (a, b: a pattern, a family, a pair, a checklist step,
-- minutes). Each count is kept four times: for its year and severity, for
-- its year and every severity ('*'), for every year and its severity, and
-- for every year and severity; so an unfiltered page, a severity, or a span
-- of whole years reads the rows it shows and sums nothing else.
CREATE TABLE insight_counts (
    kind     TEXT NOT NULL,
    severity TEXT NOT NULL,
    year     TEXT NOT NULL,
    a        TEXT NOT NULL DEFAULT '',
    b        TEXT NOT NULL DEFAULT '',
    n        INTEGER NOT NULL,
    PRIMARY KEY (kind, severity, year, a, b)
) STRICT, WITHOUT ROWID;

-- What each variant group adds to insight_counts (a JSON array of
-- [kind, year, severity, a, b, n]), so that a change takes exactly that
-- away before adding what the group adds now.
CREATE TABLE insight_groups (
    group_id INTEGER PRIMARY KEY,
    counts   TEXT NOT NULL
) STRICT;

-- Variant groups changed since their counts were last taken. Triggers mark
-- them, whoever writes; every write transaction folds them into the counts
-- before it commits (store.inTx), and start-up folds any left over (rows
-- written by another program).
-- A group may be marked more than once (no key: a trigger's conflict
-- clause would give way to the writing statement's own, such as an upsert).
CREATE TABLE insight_dirty (
    group_id INTEGER NOT NULL
) STRICT;

INSERT INTO insight_dirty (group_id) SELECT id FROM variant_groups;

-- Restricted versions are few; a reader in a group sees them in place of the
-- public version of their group, which insights look up through this index.
CREATE INDEX postmortems_restricted_groups ON postmortems(group_id) WHERE restricted_to != '';

CREATE TRIGGER insight_pm_insert AFTER INSERT ON postmortems
BEGIN
    INSERT INTO insight_dirty (group_id) SELECT NEW.group_id WHERE NEW.group_id IS NOT NULL;
END;
CREATE TRIGGER insight_pm_update AFTER UPDATE OF group_id, archived_at, restricted_to, incident_date, severity,
    started_at, detected_at, mitigated_at, resolved_at ON postmortems
BEGIN
    INSERT INTO insight_dirty (group_id) SELECT NEW.group_id WHERE NEW.group_id IS NOT NULL;
    INSERT INTO insight_dirty (group_id) SELECT OLD.group_id WHERE OLD.group_id IS NOT NULL;
END;
CREATE TRIGGER insight_pm_delete AFTER DELETE ON postmortems
BEGIN
    INSERT INTO insight_dirty (group_id) SELECT OLD.group_id WHERE OLD.group_id IS NOT NULL;
END;
CREATE TRIGGER insight_group_insert AFTER INSERT ON variant_groups
BEGIN
    INSERT INTO insight_dirty (group_id) VALUES (NEW.id);
END;
CREATE TRIGGER insight_group_update AFTER UPDATE ON variant_groups
BEGIN
    INSERT INTO insight_dirty (group_id) VALUES (NEW.id);
    INSERT INTO insight_dirty (group_id) VALUES (OLD.id);
END;
CREATE TRIGGER insight_group_delete AFTER DELETE ON variant_groups
BEGIN
    INSERT INTO insight_dirty (group_id) VALUES (OLD.id);
END;
CREATE TRIGGER insight_tag_insert AFTER INSERT ON tags
BEGIN
    INSERT INTO insight_dirty (group_id) SELECT group_id FROM postmortems WHERE id = NEW.postmortem_id AND group_id IS NOT NULL;
END;
CREATE TRIGGER insight_tag_update AFTER UPDATE ON tags
BEGIN
    INSERT INTO insight_dirty (group_id) SELECT group_id FROM postmortems WHERE id IN (NEW.postmortem_id, OLD.postmortem_id) AND group_id IS NOT NULL;
END;
CREATE TRIGGER insight_tag_delete AFTER DELETE ON tags
BEGIN
    INSERT INTO insight_dirty (group_id) SELECT group_id FROM postmortems WHERE id = OLD.postmortem_id AND group_id IS NOT NULL;
END;
CREATE TRIGGER insight_tick_insert AFTER INSERT ON checklist_ticks
BEGIN
    INSERT INTO insight_dirty (group_id) SELECT group_id FROM postmortems WHERE id = NEW.postmortem_id AND group_id IS NOT NULL;
END;
CREATE TRIGGER insight_tick_update AFTER UPDATE ON checklist_ticks
BEGIN
    INSERT INTO insight_dirty (group_id) SELECT group_id FROM postmortems WHERE id IN (NEW.postmortem_id, OLD.postmortem_id) AND group_id IS NOT NULL;
END;
CREATE TRIGGER insight_tick_delete AFTER DELETE ON checklist_ticks
BEGIN
    INSERT INTO insight_dirty (group_id) SELECT group_id FROM postmortems WHERE id = OLD.postmortem_id AND group_id IS NOT NULL;
END;
CREATE TRIGGER insight_item_insert AFTER INSERT ON action_items
BEGIN
    INSERT INTO insight_dirty (group_id) SELECT group_id FROM postmortems WHERE id = NEW.postmortem_id AND group_id IS NOT NULL;
END;
CREATE TRIGGER insight_item_update AFTER UPDATE OF postmortem_id, status ON action_items
BEGIN
    INSERT INTO insight_dirty (group_id) SELECT group_id FROM postmortems WHERE id IN (NEW.postmortem_id, OLD.postmortem_id) AND group_id IS NOT NULL;
END;
CREATE TRIGGER insight_item_delete AFTER DELETE ON action_items
BEGIN
    INSERT INTO insight_dirty (group_id) SELECT group_id FROM postmortems WHERE id = OLD.postmortem_id AND group_id IS NOT NULL;
END;
-- A pattern moved to another family, or a checklist step to another
-- pattern, changes the counts of every incident tagged with them.
CREATE TRIGGER insight_pattern_family AFTER UPDATE OF family ON patterns
BEGIN
    INSERT INTO insight_dirty (group_id)
        SELECT p.group_id FROM tags t JOIN postmortems p ON p.id = t.postmortem_id WHERE t.pattern_slug = NEW.slug AND p.group_id IS NOT NULL;
END;
CREATE TRIGGER insight_step_pattern AFTER UPDATE OF pattern_slug ON checklist_items
BEGIN
    INSERT INTO insight_dirty (group_id)
        SELECT p.group_id FROM checklist_ticks k JOIN postmortems p ON p.id = k.postmortem_id WHERE k.item_id = NEW.id AND p.group_id IS NOT NULL;
END;
