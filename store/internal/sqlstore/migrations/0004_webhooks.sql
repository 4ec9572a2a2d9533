-- Webhook endpoints of accounts, and the record of each delivery attempt
-- (issue 16). The queue entry of a delivery is River's; these rows are
-- what GET /v1/webhooks/{id}/deliveries shows.
CREATE TABLE webhooks (
    id                         TEXT PRIMARY KEY,
    account_id                 TEXT NOT NULL REFERENCES accounts (id),
    url                        TEXT NOT NULL,
    -- events is a JSON array of event types.
    events                     TEXT NOT NULL,
    secret                     TEXT NOT NULL,
    previous_secret            TEXT,
    previous_secret_expires_at BIGINT,
    created_at                 BIGINT NOT NULL,
    disabled_at                BIGINT,
    disabled_reason            TEXT,
    failing_since              BIGINT
);
CREATE INDEX webhooks_account ON webhooks (account_id, created_at);

CREATE TABLE webhook_attempts (
    webhook_id    TEXT NOT NULL,
    message_id    TEXT NOT NULL,
    attempt       INTEGER NOT NULL,
    event         TEXT NOT NULL,
    job_id        TEXT NOT NULL,
    attempted_at  BIGINT NOT NULL,
    -- status_code is 0 when the receiver gave no answer.
    status_code   INTEGER NOT NULL,
    error         TEXT,
    duration_ms   BIGINT NOT NULL,
    next_retry_at BIGINT,
    PRIMARY KEY (message_id, attempt)
);
CREATE INDEX webhook_attempts_webhook ON webhook_attempts (webhook_id, attempted_at);
CREATE INDEX webhook_attempts_job ON webhook_attempts (job_id);
