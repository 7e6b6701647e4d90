-- An imported postmortem's verbatim source text and reader comments belong
-- to the version they came with, as a revision's text does: readers who
-- could not read the postmortem then never see them, even once it is
-- opened (written restricted, redacted, opened). source_restricted_to is
-- who could read it when they came, as postmortems.restricted_to ('' for
-- everyone). Rows imported before this was recorded take the restriction
-- they have now: restricted ones keep their source with their groups.
ALTER TABLE postmortems ADD COLUMN source_restricted_to TEXT NOT NULL DEFAULT '';
UPDATE postmortems SET source_restricted_to = restricted_to WHERE restricted_to != '';
