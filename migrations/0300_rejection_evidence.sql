-- The sentences that showed a rejected suggestion, as a reader sees them,
-- one per line: the suggestion stays rejected on later edits of the
-- postmortem while the classifier finds it in those sentences alone, and
-- comes back once one of them changes (or new text shows it). Rejections
-- recorded before have none, and are not held against later edits.
ALTER TABLE rejected_suggestions ADD COLUMN evidence TEXT NOT NULL DEFAULT '';
CREATE INDEX rejected_suggestions_postmortem ON rejected_suggestions(postmortem_id, pattern_slug);
