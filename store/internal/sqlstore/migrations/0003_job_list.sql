-- The job list (GET /v1/jobs): an account's jobs newest first, paged by
-- position (created_at, id), read in order from this index.
CREATE INDEX jobs_account_list ON jobs (account_id, created_at DESC, id DESC);
