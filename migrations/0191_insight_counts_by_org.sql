-- The counts kept for insights (0190) are also kept per organization, so
-- /insights?org=… reads them too: an organization's counts are kept where
-- that page reads them (incidents per year and severity, families and
-- patterns per year, the rest over every year and severity). org is the
-- organization folded to lower case as COLLATE NOCASE folds it, '*' for
-- every organization. Counted again from the start.
DROP TABLE insight_counts;
CREATE TABLE insight_counts (
    kind     TEXT NOT NULL,
    org      TEXT NOT NULL,
    severity TEXT NOT NULL,
    year     TEXT NOT NULL,
    a        TEXT NOT NULL DEFAULT '',
    b        TEXT NOT NULL DEFAULT '',
    n        INTEGER NOT NULL,
    PRIMARY KEY (kind, org, severity, year, a, b)
) STRICT, WITHOUT ROWID;
DELETE FROM insight_groups;
DELETE FROM insight_dirty;
INSERT INTO insight_dirty (group_id) SELECT id FROM variant_groups;
