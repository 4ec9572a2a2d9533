-- docmill schema, version 1.
--
-- Portable SQL: SQLite and PostgreSQL both accept this file unchanged.
-- Timestamps are BIGINT unix milliseconds (UTC); JSON documents are TEXT.

CREATE TABLE accounts (
    id                  TEXT PRIMARY KEY,
    name                TEXT NOT NULL,
    email               TEXT UNIQUE,
    plan                TEXT NOT NULL,
    -- The account's own limits (custom plans); all NULL when it has none.
    ops_per_month       BIGINT,
    max_file_bytes      BIGINT,
    requests_per_minute INTEGER,
    jobs_in_flight      INTEGER,
    priority            INTEGER,
    result_ttl_seconds  BIGINT,
    created_at          BIGINT NOT NULL,
    -- updated_at is also touched by CreateJob to lock the account row.
    updated_at          BIGINT NOT NULL
);

CREATE TABLE api_keys (
    hash       TEXT PRIMARY KEY,
    prefix     TEXT NOT NULL,
    account_id TEXT NOT NULL REFERENCES accounts (id),
    name       TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    revoked_at BIGINT
);

CREATE INDEX api_keys_prefix ON api_keys (prefix);
CREATE INDEX api_keys_account ON api_keys (account_id);

CREATE TABLE jobs (
    id                  TEXT PRIMARY KEY,
    account_id          TEXT NOT NULL REFERENCES accounts (id),
    tool                TEXT NOT NULL,
    status              TEXT NOT NULL,
    params              TEXT NOT NULL,
    inputs              TEXT NOT NULL,
    priority            INTEGER NOT NULL,
    result_ttl_ms       BIGINT NOT NULL,
    idempotency_key     TEXT,
    request_hash        TEXT NOT NULL,
    created_at          BIGINT NOT NULL,
    started_at          BIGINT,
    finished_at         BIGINT,
    result_key          TEXT,
    result_filename     TEXT,
    result_content_type TEXT,
    result_size         BIGINT,
    result_expires_at   BIGINT,
    result_deleted_at   BIGINT,
    meta                TEXT NOT NULL,
    error_code          TEXT,
    error_message       TEXT,
    error_fields        TEXT,
    inputs_deleted_at   BIGINT,
    -- period is the usage period ("2006-01") a done job is charged to.
    period              TEXT NOT NULL
);

CREATE INDEX jobs_account_status ON jobs (account_id, status);
CREATE INDEX jobs_status ON jobs (status);
CREATE INDEX jobs_created_at ON jobs (created_at);
CREATE INDEX jobs_result_expiry ON jobs (result_expires_at) WHERE result_deleted_at IS NULL;
CREATE INDEX jobs_inputs_pending ON jobs (finished_at) WHERE inputs_deleted_at IS NULL;
CREATE UNIQUE INDEX jobs_idempotency ON jobs (account_id, idempotency_key) WHERE idempotency_key IS NOT NULL;

CREATE TABLE usage (
    account_id TEXT NOT NULL REFERENCES accounts (id),
    period     TEXT NOT NULL,
    operations BIGINT NOT NULL,
    PRIMARY KEY (account_id, period)
);

CREATE TABLE settings (
    name  TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
