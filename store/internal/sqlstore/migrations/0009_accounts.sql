-- Accounts a public service hands out (issue 30): an account's status
-- (active or suspended by an operator), a key's last use, the tokens of
-- mailed sign-up and sign-in links, and browser sessions. Tokens and
-- sessions are stored as hashes only. The lead renumbers this migration
-- at merge if needed.
ALTER TABLE accounts ADD COLUMN status TEXT NOT NULL DEFAULT 'active';
ALTER TABLE accounts ADD COLUMN suspended_at BIGINT;
ALTER TABLE api_keys ADD COLUMN last_used_at BIGINT;
ALTER TABLE api_keys ADD COLUMN last_used_ip TEXT;

CREATE TABLE auth_tokens (
    hash       TEXT PRIMARY KEY,
    purpose    TEXT NOT NULL,
    -- email is the mailbox the link went to, in canonical form.
    email      TEXT NOT NULL,
    name       TEXT NOT NULL,
    lang       TEXT NOT NULL,
    -- account_id is the account a sign-in link opens; NULL for sign-up.
    account_id TEXT REFERENCES accounts (id),
    created_at BIGINT NOT NULL,
    expires_at BIGINT NOT NULL,
    used_at    BIGINT
);
CREATE INDEX auth_tokens_expires ON auth_tokens (expires_at);
CREATE INDEX auth_tokens_email ON auth_tokens (email);
CREATE INDEX auth_tokens_account ON auth_tokens (account_id);

CREATE TABLE sessions (
    hash       TEXT PRIMARY KEY,
    account_id TEXT NOT NULL REFERENCES accounts (id),
    created_at BIGINT NOT NULL,
    expires_at BIGINT NOT NULL,
    ip         TEXT NOT NULL,
    user_agent TEXT NOT NULL,
    revoked_at BIGINT
);
CREATE INDEX sessions_expires ON sessions (expires_at);
CREATE INDEX sessions_account ON sessions (account_id);
