-- Issue 29: postmortems are reviewed before they are published.

-- Where each postmortem is in its review: a draft, in review, or
-- published. Every postmortem has a row, written with it; those held
-- before reviews existed were all published when they were saved.
-- published_at is when it was first published ('' before then): feeds
-- announce it then.
CREATE TABLE review_status (
    postmortem_id INTEGER PRIMARY KEY REFERENCES postmortems(id) ON DELETE CASCADE,
    status        TEXT NOT NULL CHECK (status IN ('draft', 'in_review', 'published')),
    published_at  TEXT NOT NULL DEFAULT ''
) STRICT;
INSERT INTO review_status (postmortem_id, status, published_at)
    SELECT id, 'published', created_at FROM postmortems;
-- Lists filtered by status, and /reviews, read the few not yet published.
CREATE INDEX review_status_unpublished ON review_status(status) WHERE status != 'published';

-- Who was asked to review a postmortem, by whom and when.
CREATE TABLE review_reviewers (
    postmortem_id INTEGER NOT NULL REFERENCES postmortems(id),
    reviewer      TEXT NOT NULL COLLATE NOCASE,
    requested_by  TEXT NOT NULL,
    requested_at  TEXT NOT NULL,
    PRIMARY KEY (postmortem_id, reviewer)
) STRICT;
CREATE INDEX review_reviewers_reviewer ON review_reviewers(reviewer);

-- Every review action, in order: an approval is of the version it names,
-- and counts only while that is the postmortem's version.
CREATE TABLE review_events (
    id            INTEGER PRIMARY KEY,
    postmortem_id INTEGER NOT NULL REFERENCES postmortems(id),
    action        TEXT NOT NULL CHECK (action IN ('request', 'approve', 'request_changes', 'publish', 'reopen')),
    actor         TEXT NOT NULL,
    version       INTEGER NOT NULL,
    comment       TEXT NOT NULL DEFAULT '',
    at            TEXT NOT NULL
) STRICT;
CREATE INDEX review_events_postmortem ON review_events(postmortem_id, id);

-- Review comments: on the whole postmortem (section '') or on one section
-- of its template (a form field name such as impact), replies to a
-- comment, resolved or not. A comment belongs to the version it was made
-- on: restricted_to is who could read the postmortem then (as
-- revisions.restricted_to), so opening a postmortem later does not show
-- what was said while it was restricted. A deleted comment keeps its row
-- (its replies hang from it) without its text; the audit trail keeps who
-- deleted it.
CREATE TABLE review_comments (
    id            INTEGER PRIMARY KEY,
    postmortem_id INTEGER NOT NULL REFERENCES postmortems(id),
    reply_to      INTEGER REFERENCES review_comments(id),
    section       TEXT NOT NULL DEFAULT '',
    author        TEXT NOT NULL,
    body          TEXT NOT NULL,
    version       INTEGER NOT NULL,
    restricted_to TEXT NOT NULL DEFAULT '',
    resolved      INTEGER NOT NULL DEFAULT 0 CHECK (resolved IN (0, 1)),
    resolved_by   TEXT NOT NULL DEFAULT '',
    created_at    TEXT NOT NULL,
    edited_at     TEXT NOT NULL DEFAULT '',
    deleted_at    TEXT NOT NULL DEFAULT ''
) STRICT;
CREATE INDEX review_comments_postmortem ON review_comments(postmortem_id, id);

-- @name mentions of known users in comments, kept for notifications.
CREATE TABLE comment_mentions (
    comment_id INTEGER NOT NULL REFERENCES review_comments(id),
    name       TEXT NOT NULL,
    PRIMARY KEY (comment_id, name)
) STRICT, WITHOUT ROWID;
CREATE INDEX comment_mentions_name ON comment_mentions(name);

-- Each review question a postmortem in review is asked (a general
-- criterion's key, or a pattern question's id as 'q<id>'), answered by a
-- comment or a section it points to, or waived with a reason.
CREATE TABLE review_answers (
    postmortem_id INTEGER NOT NULL REFERENCES postmortems(id),
    question      TEXT NOT NULL,
    comment_id    INTEGER REFERENCES review_comments(id),
    section       TEXT NOT NULL DEFAULT '',
    waived        TEXT NOT NULL DEFAULT '',  -- the reason, when waived
    by            TEXT NOT NULL,
    at            TEXT NOT NULL,
    PRIMARY KEY (postmortem_id, question)
) STRICT;

-- Each pattern's review questions, edited as its checklist is: a version
-- per row for stale edits, a removed one kept (removed_at) so it can be
-- brought back.
CREATE TABLE review_questions (
    id           INTEGER PRIMARY KEY,
    pattern_slug TEXT NOT NULL REFERENCES patterns(slug),
    position     INTEGER NOT NULL,
    text         TEXT NOT NULL,
    version      INTEGER NOT NULL DEFAULT 1,
    removed_at   TEXT NOT NULL DEFAULT ''
) STRICT;
CREATE INDEX review_questions_pattern ON review_questions(pattern_slug, position);
