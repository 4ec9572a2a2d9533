// Package sqltext is the SQL of docmill's stores, in one place. Every
// statement is portable: SQLite and PostgreSQL both accept it unchanged ($n
// placeholders, BIGINT unix milliseconds, TEXT JSON, INSERT ... ON
// CONFLICT), so store/sqlite and store/postgres run the same text. Status
// literals match the docmill.Status constants.
package sqltext

const (
	CreateMigrations = `CREATE TABLE IF NOT EXISTS schema_migrations (
	version    BIGINT PRIMARY KEY,
	applied_at BIGINT NOT NULL
)`
	AppliedMigrations = `SELECT version FROM schema_migrations`
	RecordMigration   = `INSERT INTO schema_migrations (version, applied_at) VALUES ($1, $2)`

	SettingInsert = `INSERT INTO settings (name, value) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING`
	SettingSelect = `SELECT value FROM settings WHERE name = $1`
)

// Accounts and keys.
const (
	AccountColumns = `a.id, a.name, COALESCE(a.email, ''), a.plan, a.ops_per_month, a.max_file_bytes,
	a.requests_per_minute, a.jobs_in_flight, a.priority, a.result_ttl_seconds, a.created_at,
	a.status, a.suspended_at`
	KeyColumns = `k.hash, k.prefix, k.account_id, k.name, k.created_at, k.revoked_at,
	k.last_used_at, COALESCE(k.last_used_ip, '')`

	// LockAccount touches the account row. In SQLite the first write of a
	// transaction takes the database write lock; in PostgreSQL it takes the
	// row lock. Either way, concurrent admissions of one account serialize.
	LockAccount = `UPDATE accounts SET updated_at = $2 WHERE id = $1`

	EmailTaken    = `SELECT COUNT(*) FROM accounts WHERE email = $1`
	InsertAccount = `INSERT INTO accounts (id, name, email, plan, ops_per_month, max_file_bytes,
	requests_per_minute, jobs_in_flight, priority, result_ttl_seconds, created_at, updated_at,
	status, suspended_at)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $11, $12, $13)`
	InsertKey = `INSERT INTO api_keys (hash, prefix, account_id, name, created_at, revoked_at,
	last_used_at, last_used_ip)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`

	Account   = `SELECT ` + AccountColumns + ` FROM accounts a WHERE a.id = $1`
	KeyByHash = `SELECT ` + KeyColumns + `, ` + AccountColumns + `
FROM api_keys k JOIN accounts a ON a.id = k.account_id WHERE k.hash = $1`
	ListKeys = `SELECT ` + KeyColumns + `, ` + AccountColumns + `
FROM api_keys k JOIN accounts a ON a.id = k.account_id ORDER BY k.created_at, k.prefix, k.hash`
	// KeysByPrefix compares the leading $2 characters of the stored prefix
	// with $1, rather than LIKE, which is case-insensitive in SQLite and
	// would treat the "_" of "dm_live_" as a wildcard.
	KeysByPrefix = `SELECT ` + KeyColumns + ` FROM api_keys k
WHERE substr(k.prefix, 1, $2) = $1 OR k.hash = $3 ORDER BY k.created_at LIMIT 2`
	RevokeKey = `UPDATE api_keys SET revoked_at = $2 WHERE hash = $1 AND revoked_at IS NULL`
	// AccountKeys lists one account's keys; AccountKeyByPrefix finds one
	// of them by its whole display prefix (LIMIT 2 tells a clash apart).
	AccountKeys        = `SELECT ` + KeyColumns + ` FROM api_keys k WHERE k.account_id = $1 ORDER BY k.created_at, k.prefix, k.hash`
	AccountKeyByPrefix = `SELECT ` + KeyColumns + ` FROM api_keys k WHERE k.account_id = $1 AND k.prefix = $2 LIMIT 2`
	CountActiveKeys    = `SELECT COUNT(*) FROM api_keys WHERE account_id = $1 AND revoked_at IS NULL`
	KeyHash            = `SELECT ` + KeyColumns + ` FROM api_keys k WHERE k.hash = $1`
	SetPlan            = `UPDATE accounts SET plan = $2, ops_per_month = $3, max_file_bytes = $4,
	requests_per_minute = $5, jobs_in_flight = $6, priority = $7, result_ttl_seconds = $8, updated_at = $9
WHERE id = $1`
)

// Jobs.
const (
	JobColumns = `id, account_id, tool, status, params, inputs, priority, result_ttl_ms,
	COALESCE(idempotency_key, ''), request_hash, created_at, started_at, finished_at,
	result_key, COALESCE(result_filename, ''), COALESCE(result_content_type, ''),
	COALESCE(result_size, 0), COALESCE(result_expires_at, 0), result_deleted_at,
	meta, error_code, COALESCE(error_message, ''), COALESCE(error_fields, ''), inputs_deleted_at,
	COALESCE(export, ''), operations, preview, used_ms`

	Job          = `SELECT ` + JobColumns + ` FROM jobs WHERE id = $1`
	JobExists    = `SELECT COUNT(*) FROM jobs WHERE id = $1`
	JobByIdemKey = `SELECT ` + JobColumns + ` FROM jobs WHERE account_id = $1 AND idempotency_key = $2`
	// AdmissionCounts are what an admission checks, in one statement: an
	// account's jobs in flight, the operations they hold against its
	// quota, and the operations charged in period $2. (MAX of usage, not
	// SUM: PostgreSQL sums BIGINT into NUMERIC; (account_id, period) is
	// unique anyway.)
	AdmissionCounts = `SELECT COUNT(*), COALESCE(SUM(operations), 0),
	(SELECT COALESCE(MAX(operations), 0) FROM usage WHERE account_id = $1 AND period = $2)
FROM jobs WHERE account_id = $1 AND status IN ('queued', 'processing')`
	// InsertJob inserts a queued job and returns it as Job reads it.
	InsertJob = `INSERT INTO jobs (id, account_id, tool, status, params, inputs, priority, result_ttl_ms,
	idempotency_key, request_hash, created_at, meta, period, export, operations, preview)
VALUES ($1, $2, $3, 'queued', $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)
RETURNING ` + JobColumns

	// StartJob, RequeueJob and CancelJob return the job they changed, as
	// Job reads it: no row when they changed none.
	// TouchJob writes a job's row without changing it (a new row
	// version), so that its transaction has something to commit.
	TouchJob = `UPDATE jobs SET used_ms = used_ms WHERE id = $1`
	StartJob = `UPDATE jobs SET status = 'processing', started_at = COALESCE(started_at, $2)
WHERE id = $1 AND status IN ('queued', 'processing') RETURNING ` + JobColumns
	RequeueJob = `UPDATE jobs SET status = 'queued' WHERE id = $1 AND status = 'processing' RETURNING ` + JobColumns
	// RecordUsed never lowers used_ms: a late write of an attempt's
	// progress must not undo a later one's.
	RecordUsed = `UPDATE jobs SET used_ms = $2 WHERE id = $1 AND status = 'processing' AND used_ms < $2`
	FinishJob  = `UPDATE jobs SET status = $2, finished_at = $3, result_key = $4, result_filename = $5,
	result_content_type = $6, result_size = $7, result_expires_at = $8, meta = $9,
	error_code = $10, error_message = $11, error_fields = $12, params = $13
WHERE id = $1 AND status = 'processing'
RETURNING account_id, period, operations` // what a done job is charged
	ChargeUsage = `INSERT INTO usage (account_id, period, operations) VALUES ($1, $2, $3)
ON CONFLICT (account_id, period) DO UPDATE SET operations = usage.operations + $3`
	CancelJob = `UPDATE jobs SET status = 'canceled', finished_at = $2
WHERE id = $1 AND status IN ('queued', 'processing') RETURNING ` + JobColumns
	SetExport         = `UPDATE jobs SET export = $2 WHERE id = $1`
	MarkResultDeleted = `UPDATE jobs SET result_deleted_at = COALESCE(result_deleted_at, $2) WHERE id = $1`
	MarkInputsDeleted = `UPDATE jobs SET inputs_deleted_at = COALESCE(inputs_deleted_at, $2) WHERE id = $1`

	ExpiredResults = `SELECT ` + JobColumns + ` FROM jobs
WHERE status = 'done' AND result_key IS NOT NULL AND result_deleted_at IS NULL AND result_expires_at <= $1
ORDER BY result_expires_at, id LIMIT $2`
	StaleInputs = `SELECT ` + JobColumns + ` FROM jobs
WHERE inputs_deleted_at IS NULL AND status IN ('done', 'failed', 'canceled')
ORDER BY finished_at, id LIMIT $1`
	OldJobs = `SELECT ` + JobColumns + ` FROM jobs
WHERE created_at < $1 AND status IN ('done', 'failed', 'canceled')
ORDER BY created_at, id LIMIT $2`
	DeleteJob = `DELETE FROM jobs WHERE id = $1`

	Usage = `SELECT
	(SELECT COALESCE(MAX(operations), 0) FROM usage WHERE account_id = $1 AND period = $2),
	(SELECT COUNT(*) FROM jobs WHERE account_id = $1 AND status IN ('queued', 'processing'))`
	CountByStatus  = `SELECT status, COUNT(*) FROM jobs WHERE status IN ('queued', 'processing') GROUP BY status`
	UnfinishedJobs = `SELECT ` + JobColumns + ` FROM jobs
WHERE status IN ('queued', 'processing') AND created_at < $1
ORDER BY created_at, id LIMIT $2`
)

// Worker nodes.
const (
	NodeHeartbeat = `INSERT INTO nodes (id, started_at, heartbeat_at) VALUES ($1, $2, $2)
ON CONFLICT (id) DO UPDATE SET heartbeat_at = $2`
	// ClaimDeadNodes deletes and returns the nodes silent since $1: each
	// dead node is returned to exactly one caller, however many ask.
	ClaimDeadNodes = `DELETE FROM nodes WHERE heartbeat_at < $1 RETURNING id`
	ForgetNode     = `DELETE FROM nodes WHERE id = $1`
)

// Webhook endpoints and delivery attempts.
const (
	WebhookColumns = `id, account_id, url, events, secret, COALESCE(previous_secret, ''),
	previous_secret_expires_at, created_at, disabled_at, COALESCE(disabled_reason, ''), failing_since`

	CountWebhooks = `SELECT COUNT(*) FROM webhooks WHERE account_id = $1`
	InsertWebhook = `INSERT INTO webhooks (id, account_id, url, events, secret, created_at)
VALUES ($1, $2, $3, $4, $5, $6)`
	Webhook         = `SELECT ` + WebhookColumns + ` FROM webhooks WHERE id = $1`
	AccountWebhooks = `SELECT ` + WebhookColumns + ` FROM webhooks WHERE account_id = $1 ORDER BY created_at, id`
	// JobWebhooks are the enabled endpoints of job $1's account: those
	// its final event may go to.
	JobWebhooks = `SELECT ` + WebhookColumns + ` FROM webhooks
WHERE account_id = (SELECT account_id FROM jobs WHERE id = $1) AND disabled_at IS NULL ORDER BY created_at, id`
	DeleteWebhook         = `DELETE FROM webhooks WHERE id = $1`
	DeleteWebhookAttempts = `DELETE FROM webhook_attempts WHERE webhook_id = $1`
	RotateWebhookSecret   = `UPDATE webhooks SET previous_secret = secret, previous_secret_expires_at = $3, secret = $2
WHERE id = $1`
	InsertWebhookAttempt = `INSERT INTO webhook_attempts (webhook_id, message_id, attempt, event, job_id,
	attempted_at, status_code, error, duration_ms, next_retry_at)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
ON CONFLICT (message_id, attempt) DO NOTHING`
	WebhookSucceeded = `UPDATE webhooks SET failing_since = NULL WHERE id = $1`
	WebhookFailed    = `UPDATE webhooks SET failing_since = COALESCE(failing_since, $2) WHERE id = $1`
	DisableWebhook   = `UPDATE webhooks SET disabled_at = $2, disabled_reason = $3
WHERE id = $1 AND disabled_at IS NULL`
	EnableWebhook   = `UPDATE webhooks SET disabled_at = NULL, disabled_reason = NULL, failing_since = NULL WHERE id = $1`
	WebhookAttempts = `SELECT webhook_id, message_id, attempt, event, job_id, attempted_at, status_code,
	COALESCE(error, ''), duration_ms, next_retry_at
FROM webhook_attempts WHERE webhook_id = $1 ORDER BY attempted_at DESC, message_id DESC, attempt DESC LIMIT $2`
	DeleteJobWebhookAttempts = `DELETE FROM webhook_attempts WHERE job_id = $1`
)

// Accounts' operator actions, keys' names and last use.
const (
	AccountByEmail = `SELECT ` + AccountColumns + ` FROM accounts a WHERE a.email = $1`
	ListAccounts   = `SELECT ` + AccountColumns + `,
	(SELECT COUNT(*) FROM api_keys k WHERE k.account_id = a.id AND k.revoked_at IS NULL)
FROM accounts a ORDER BY a.created_at, a.id`
	// SetAccountStatus keeps the first suspended_at of an account
	// suspended twice, and clears it when the account is active.
	SetAccountStatus = `UPDATE accounts SET status = $2,
	suspended_at = CASE WHEN $2 = 'active' THEN NULL ELSE COALESCE(suspended_at, $3) END, updated_at = $4
WHERE id = $1`
	RenameKey = `UPDATE api_keys SET name = $2 WHERE hash = $1`
	// KeyLastUsed and TouchKey: TouchKey writes only past $4 (a minute
	// after the recorded use), so a busy key costs no write per request.
	KeyLastUsed = `SELECT COALESCE(last_used_at, 0) FROM api_keys WHERE hash = $1`
	TouchKey    = `UPDATE api_keys SET last_used_at = $2, last_used_ip = $3
WHERE hash = $1 AND (last_used_at IS NULL OR last_used_at <= $4)`

	// DeleteAccount's statements, in its order: the rows that point at
	// others go first.
	AccountJobs           = `SELECT ` + JobColumns + ` FROM jobs WHERE account_id = $1 ORDER BY created_at, id`
	DeleteAccountAttempts = `DELETE FROM webhook_attempts
WHERE job_id IN (SELECT id FROM jobs WHERE account_id = $1)
	OR webhook_id IN (SELECT id FROM webhooks WHERE account_id = $1)`
	DeleteAccountJobs     = `DELETE FROM jobs WHERE account_id = $1`
	DeleteAccountUsage    = `DELETE FROM usage WHERE account_id = $1`
	DeleteAccountWebhooks = `DELETE FROM webhooks WHERE account_id = $1`
	DeleteAccountKeys     = `DELETE FROM api_keys WHERE account_id = $1`
	DeleteAccountSessions = `DELETE FROM sessions WHERE account_id = $1`
	DeleteAccountTokens   = `DELETE FROM auth_tokens WHERE account_id = $1 OR email = $2`
	DeleteAccount         = `DELETE FROM accounts WHERE id = $1`
)

// Mailed links' tokens and browser sessions.
const (
	AuthTokenColumns = `hash, purpose, email, name, lang, COALESCE(account_id, ''), created_at, expires_at, used_at`
	InsertAuthToken  = `INSERT INTO auth_tokens (hash, purpose, email, name, lang, account_id, created_at, expires_at, used_at)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`
	// UseAuthToken marks the token used, once: of two concurrent calls,
	// the second finds used_at set (PostgreSQL re-checks the WHERE after
	// waiting for the first's row lock; SQLite has one writer).
	UseAuthToken = `UPDATE auth_tokens SET used_at = $2
WHERE hash = $1 AND used_at IS NULL AND expires_at > $2
RETURNING ` + AuthTokenColumns
	DeleteExpiredAuthTokens = `DELETE FROM auth_tokens WHERE expires_at < $1`

	SessionColumns = `s.hash, s.account_id, s.created_at, s.expires_at, s.ip, s.user_agent, s.revoked_at`
	InsertSession  = `INSERT INTO sessions (hash, account_id, created_at, expires_at, ip, user_agent, revoked_at)
VALUES ($1, $2, $3, $4, $5, $6, $7)`
	SessionByHash = `SELECT ` + SessionColumns + `, ` + AccountColumns + `
FROM sessions s JOIN accounts a ON a.id = s.account_id WHERE s.hash = $1`
	RevokeSession         = `UPDATE sessions SET revoked_at = $2 WHERE hash = $1 AND revoked_at IS NULL`
	DeleteExpiredSessions = `DELETE FROM sessions WHERE expires_at < $1`
)
