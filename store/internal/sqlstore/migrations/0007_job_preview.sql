-- Whether a job was asked for a preview of its result (issue 21): 1 for
-- preview=true. The lead renumbers this migration at merge if needed.
ALTER TABLE jobs ADD COLUMN preview INTEGER NOT NULL DEFAULT 0;
