-- Issue 32 (email notifications): who people are and what they want to
-- hear.

-- People as the sign-in proxy names them: their email address and the
-- groups they were in when last seen (a JSON array, as restricted_to),
-- which decide the restricted postmortems they may hear about. Written
-- when a signed-in request shows something new, or at most once an hour.
CREATE TABLE people (
    name    TEXT PRIMARY KEY COLLATE NOCASE,
    email   TEXT NOT NULL DEFAULT '',
    groups  TEXT NOT NULL DEFAULT '',
    seen_at TEXT NOT NULL
) STRICT;

-- The kinds of notification each person turned off on their settings
-- page; every kind is on until turned off.
CREATE TABLE notification_optouts (
    name TEXT NOT NULL COLLATE NOCASE,
    kind TEXT NOT NULL,
    PRIMARY KEY (name, kind)
) STRICT, WITHOUT ROWID;
