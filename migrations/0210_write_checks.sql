-- The row a readiness re-check writes to find out whether writes work
-- again after a storage fault (a full disk, a lock held elsewhere).
CREATE TABLE write_checks (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    checked_at TEXT NOT NULL
) STRICT;
