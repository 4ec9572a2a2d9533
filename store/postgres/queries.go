package postgres

// The store's SQL is shared with store/sqlite (store/internal/sqltext);
// only these statements are PostgreSQL's own.

// ChannelJobDone is the NOTIFY channel on which the store announces each
// job that reaches a final status; the payload is the job's id. Channels
// are per database, not per schema: deployments sharing a database hear
// each other's jobs, which is harmless (ids are unique; nobody waits for
// a foreign one) and cheap.
const ChannelJobDone = "docmill_job_done"

const (
	// qMigrationLock is a session-level advisory lock, per schema, held
	// around all migrations (the store's and River's), so that nodes
	// starting at once apply them one at a time. Closing the connection
	// releases it.
	qMigrationLock   = `SELECT pg_advisory_lock(1685021036, hashtext(COALESCE(current_schema(), '')))`
	qMigrationUnlock = `SELECT pg_advisory_unlock(1685021036, hashtext(COALESCE(current_schema(), '')))`

	// qMigrationsTable reports whether the store's schema_migrations table
	// exists in the connection's schema (search_path).
	qMigrationsTable = `SELECT to_regclass('schema_migrations') IS NOT NULL`

	// qNotifyJobDone runs in the transaction that finishes a job, so the
	// notification goes out at its commit and never for a rollback.
	qNotifyJobDone = `SELECT pg_notify('` + ChannelJobDone + `', $1)`

	qListenJobDone = `LISTEN ` + ChannelJobDone
)
