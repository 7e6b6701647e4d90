-- The Atom feeds list the postmortems changed last.
CREATE INDEX postmortems_updated ON postmortems(updated_at DESC, id DESC);
