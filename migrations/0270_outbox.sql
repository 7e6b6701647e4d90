-- Issue 32: notifications. An event is written to the outbox in the same
-- transaction as the change that causes it, so a change is never without
-- its event nor an event without its change; the sender (package notify)
-- then fans each event out into one delivery per channel that takes it
-- and delivers those with retries, across restarts.

-- The events. payload is the event as JSON (store.Event); restricted_to
-- is who could read its postmortem when it happened (a JSON array of
-- groups, '' for everyone), as revisions.restricted_to. dedupe_key, when
-- set, makes a scheduled event (a reminder) idempotent: the scheduler may
-- enqueue it again after a crash and nothing is added. fanned_at is when
-- the sender made its deliveries ('' until then).
CREATE TABLE outbox (
    id            INTEGER PRIMARY KEY,
    kind          TEXT NOT NULL,
    postmortem_id INTEGER REFERENCES postmortems(id) ON DELETE SET NULL,
    payload       TEXT NOT NULL,
    restricted_to TEXT NOT NULL DEFAULT '',
    dedupe_key    TEXT UNIQUE,
    created_at    TEXT NOT NULL,
    fanned_at     TEXT NOT NULL DEFAULT ''
) STRICT;
CREATE INDEX outbox_unfanned ON outbox(id) WHERE fanned_at = '';

-- One event to one channel: "webhook:1", "slack", "email:someone@example.com".
-- A delivery is queued until it is delivered, or failed once the sender
-- gives up (an admin may queue it again). attempts counts the sends
-- begun; next_attempt_at is when it is due (a send in progress has the
-- time of its retry there already, so a crash mid-send retries then).
CREATE TABLE deliveries (
    id              INTEGER PRIMARY KEY,
    event_id        INTEGER NOT NULL REFERENCES outbox(id) ON DELETE CASCADE,
    channel         TEXT NOT NULL,
    state           TEXT NOT NULL DEFAULT 'queued' CHECK (state IN ('queued', 'delivered', 'failed')),
    attempts        INTEGER NOT NULL DEFAULT 0,
    next_attempt_at TEXT NOT NULL,
    last_error      TEXT NOT NULL DEFAULT '',
    delivered_at    TEXT NOT NULL DEFAULT '',
    UNIQUE (event_id, channel)
) STRICT;
CREATE INDEX deliveries_due ON deliveries(next_attempt_at) WHERE state = 'queued';
CREATE INDEX deliveries_state ON deliveries(state, id);
