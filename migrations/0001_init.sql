-- The pattern catalogue. Families are the browse hierarchy; tags stay flat.
CREATE TABLE families (
    slug     TEXT PRIMARY KEY,
    name     TEXT NOT NULL,
    position INTEGER NOT NULL
) STRICT;

CREATE TABLE patterns (
    slug       TEXT PRIMARY KEY,
    name       TEXT NOT NULL,
    headline   TEXT NOT NULL,
    family     TEXT NOT NULL REFERENCES families(slug),
    position   INTEGER NOT NULL,
    definition TEXT NOT NULL,
    mechanism  TEXT NOT NULL,
    signals    TEXT NOT NULL,
    related    TEXT NOT NULL,
    weak_words TEXT NOT NULL DEFAULT ''
) STRICT;

CREATE TABLE pattern_relations (
    pattern_slug TEXT NOT NULL REFERENCES patterns(slug),
    related_slug TEXT NOT NULL REFERENCES patterns(slug),
    PRIMARY KEY (pattern_slug, related_slug)
) STRICT, WITHOUT ROWID;

-- Detection phrases feed pattern suggestions and search synonyms.
CREATE TABLE pattern_phrases (
    pattern_slug TEXT NOT NULL REFERENCES patterns(slug),
    language     TEXT NOT NULL CHECK (language IN ('en', 'es')),
    phrase       TEXT NOT NULL,
    PRIMARY KEY (pattern_slug, language, phrase)
) STRICT; -- rowid order is catalogue order

CREATE TABLE checklist_items (
    id           INTEGER PRIMARY KEY,
    pattern_slug TEXT NOT NULL REFERENCES patterns(slug),
    position     INTEGER NOT NULL,
    text         TEXT NOT NULL,
    phase        TEXT NOT NULL CHECK (phase IN ('during', 'after'))
) STRICT;
CREATE INDEX checklist_items_pattern ON checklist_items(pattern_slug, position);

CREATE TABLE pattern_incidents (
    id           INTEGER PRIMARY KEY,
    pattern_slug TEXT NOT NULL REFERENCES patterns(slug),
    position     INTEGER NOT NULL,
    description  TEXT NOT NULL,
    url          TEXT NOT NULL DEFAULT ''
) STRICT;
CREATE INDEX pattern_incidents_pattern ON pattern_incidents(pattern_slug, position);

-- Postmortems that are the same write-up (a translation, a repost or a
-- rewrite) share a group; the group names one canonical member, which is the
-- one lists show. A standalone postmortem is a group of one.
CREATE TABLE variant_groups (
    id           INTEGER PRIMARY KEY,
    canonical_id INTEGER UNIQUE REFERENCES postmortems(id)
) STRICT;

CREATE TABLE postmortems (
    id               INTEGER PRIMARY KEY,
    slug             TEXT NOT NULL UNIQUE,
    title            TEXT NOT NULL,
    organization     TEXT NOT NULL DEFAULT '',
    incident_date    TEXT NOT NULL DEFAULT '',  -- YYYY-MM-DD, '' when unknown
    published_date   TEXT NOT NULL DEFAULT '',  -- date of the write-up
    duration_minutes INTEGER,                   -- NULL when unknown
    severity         TEXT NOT NULL DEFAULT '' CHECK (severity IN ('', 'SEV1', 'SEV2', 'SEV3', 'SEV4', 'SEV5')),
    language         TEXT NOT NULL DEFAULT 'en',
    summary          TEXT NOT NULL DEFAULT '',
    body             TEXT NOT NULL DEFAULT '',  -- Markdown
    -- Sections of the SRE postmortem template, Markdown each.
    impact           TEXT NOT NULL DEFAULT '',
    trigger_text     TEXT NOT NULL DEFAULT '',
    contributing     TEXT NOT NULL DEFAULT '',
    detection        TEXT NOT NULL DEFAULT '',
    resolution       TEXT NOT NULL DEFAULT '',
    timeline         TEXT NOT NULL DEFAULT '',
    went_well        TEXT NOT NULL DEFAULT '',
    went_wrong       TEXT NOT NULL DEFAULT '',
    got_lucky        TEXT NOT NULL DEFAULT '',
    services         TEXT NOT NULL DEFAULT '',
    authors          TEXT NOT NULL DEFAULT '',
    -- Incident times, RFC 3339 with the writer's offset, '' when unknown.
    started_at       TEXT NOT NULL DEFAULT '',
    detected_at      TEXT NOT NULL DEFAULT '',
    mitigated_at     TEXT NOT NULL DEFAULT '',
    resolved_at      TEXT NOT NULL DEFAULT '',
    source_url       TEXT NOT NULL DEFAULT '',
    source_text      TEXT NOT NULL DEFAULT '',  -- verbatim text when imported
    group_id         INTEGER NOT NULL REFERENCES variant_groups(id),
    variant_kind     TEXT NOT NULL DEFAULT 'original' CHECK (variant_kind IN ('original', 'translation', 'rewrite')),
    version          INTEGER NOT NULL DEFAULT 1,  -- bumped by every update; guards against lost edits
    archived_at      TEXT NOT NULL DEFAULT '',
    created_at       TEXT NOT NULL,
    updated_at       TEXT NOT NULL
) STRICT;
CREATE INDEX postmortems_group ON postmortems(group_id);
CREATE INDEX postmortems_incident ON postmortems(incident_date DESC, id DESC);
CREATE INDEX postmortems_org ON postmortems(organization);

-- Reader comments found in an imported page, kept apart from the write-up.
CREATE TABLE source_comments (
    id            INTEGER PRIMARY KEY,
    postmortem_id INTEGER NOT NULL REFERENCES postmortems(id),
    position      INTEGER NOT NULL,
    author        TEXT NOT NULL DEFAULT '',
    posted        TEXT NOT NULL DEFAULT '',
    text          TEXT NOT NULL
) STRICT;
CREATE INDEX source_comments_postmortem ON source_comments(postmortem_id, position);

CREATE TABLE tags (
    postmortem_id INTEGER NOT NULL REFERENCES postmortems(id),
    pattern_slug  TEXT NOT NULL REFERENCES patterns(slug),
    role          TEXT NOT NULL CHECK (role IN ('trigger', 'amplifier', 'contributing', 'missing-defence', 'mitigation')),
    PRIMARY KEY (postmortem_id, pattern_slug, role)
) STRICT, WITHOUT ROWID;
CREATE INDEX tags_pattern ON tags(pattern_slug, postmortem_id);

CREATE TABLE action_items (
    id            INTEGER PRIMARY KEY,
    postmortem_id INTEGER NOT NULL REFERENCES postmortems(id),
    title         TEXT NOT NULL,
    owner         TEXT NOT NULL DEFAULT '',
    kind          TEXT NOT NULL CHECK (kind IN ('mitigate', 'prevent', 'process')),
    priority      TEXT NOT NULL DEFAULT 'P2' CHECK (priority IN ('P0', 'P1', 'P2', 'P3')),
    status        TEXT NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'in-progress', 'done', 'wont-do')),
    due_date      TEXT NOT NULL DEFAULT '',
    ticket_url    TEXT NOT NULL DEFAULT '',
    created_at    TEXT NOT NULL,
    updated_at    TEXT NOT NULL
) STRICT;
CREATE INDEX action_items_postmortem ON action_items(postmortem_id);
CREATE INDEX action_items_status ON action_items(status);
