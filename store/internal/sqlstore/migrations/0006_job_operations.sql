-- Operations a job is charged when it ends done (issue 18): one for a
-- tool, one a step for a pipeline. While the job is in flight they are
-- held against the account's quota.
ALTER TABLE jobs ADD COLUMN operations INTEGER NOT NULL DEFAULT 1;
