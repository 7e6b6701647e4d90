-- Checklist items are edited through forms; removing one only hides it, so
-- ticks and action items that point to it keep their meaning.
ALTER TABLE checklist_items ADD COLUMN removed_at TEXT NOT NULL DEFAULT '';
ALTER TABLE checklist_items ADD COLUMN updated_at TEXT NOT NULL DEFAULT '';

-- Whether a postmortem's team did a checklist item, and who said so when.
-- Unticking keeps the row (done = 0) with who unticked it.
CREATE TABLE checklist_ticks (
    postmortem_id INTEGER NOT NULL REFERENCES postmortems(id),
    item_id       INTEGER NOT NULL REFERENCES checklist_items(id),
    done          INTEGER NOT NULL CHECK (done IN (0, 1)),
    changed_by    TEXT NOT NULL DEFAULT '',
    changed_at    TEXT NOT NULL,
    PRIMARY KEY (postmortem_id, item_id)
) STRICT, WITHOUT ROWID;

-- An action item made from a checklist item remembers it, once per postmortem.
ALTER TABLE action_items ADD COLUMN checklist_item_id INTEGER REFERENCES checklist_items(id);
CREATE UNIQUE INDEX action_items_checklist ON action_items(postmortem_id, checklist_item_id)
    WHERE checklist_item_id IS NOT NULL;
