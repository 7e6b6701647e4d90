-- The sentence of the postmortem that supports a tag, when someone recorded
-- it (the seeds' curated tags, a confirmed suggestion of the classifier).
-- An edit that keeps a tag keeps its evidence.
ALTER TABLE tags ADD COLUMN evidence TEXT NOT NULL DEFAULT '';
