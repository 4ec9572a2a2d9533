package postgres

// The store's SQL is shared with store/sqlite (store/internal/sqltext);
// only this statement is PostgreSQL's own.

const (
	// qMigrationLock is PostgreSQL only: a transaction-scoped advisory lock,
	// per schema, so that nodes starting at once apply migrations one at a
	// time. (SQLite needs none: its migration transaction holds the write
	// lock of the whole file.)
	qMigrationLock = `SELECT pg_advisory_xact_lock(1685021036, hashtext(current_schema()))`
)
