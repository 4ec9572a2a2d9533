-- Processing time a job's attempts used, in milliseconds, as last recorded
-- while they ran (issue 29): a job handed back after its worker was lost
-- runs again with only what is left of its work budget. The lead
-- renumbers this migration at merge if needed.
ALTER TABLE jobs ADD COLUMN used_ms BIGINT NOT NULL DEFAULT 0;
