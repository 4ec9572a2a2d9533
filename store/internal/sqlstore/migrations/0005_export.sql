-- A job's export (export_url): its destination and where it stands, as
-- JSON (docmill.Export); NULL for a job without one.
ALTER TABLE jobs ADD COLUMN export TEXT;
