package sqlite

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"reflect"

	msqlite "modernc.org/sqlite"
)

// maxCachedStmts bounds each connection's statement cache; queries past it
// (River builds some IN lists of varying length) run uncached. It bounds
// the store's own memory whatever the jobs, so it is not a job limit.
const maxCachedStmts = 256

// openDB opens a pool whose connections keep their prepared statements.
// modernc.org/sqlite parses every statement text on every call, and parsing
// is most of the cost of a small query: two thirds of an idle server's CPU
// went to re-parsing River's fetch query on each poll.
func openDB(dsn string) *sql.DB {
	return sql.OpenDB(&cachingConnector{dsn: dsn, drv: &msqlite.Driver{}})
}

type cachingConnector struct {
	dsn string
	drv driver.Driver
}

func (c *cachingConnector) Connect(context.Context) (driver.Conn, error) {
	conn, err := c.drv.Open(c.dsn)
	if err != nil {
		return nil, err
	}
	if err := stablePlans(conn); err != nil {
		conn.Close()
		return nil, err
	}
	return &cachingConn{Conn: conn, stmts: map[string]*cachedStmt{}}, nil
}

func (c *cachingConnector) Driver() driver.Driver { return c.drv }

// cachingConn runs queries through statements prepared once per query text.
// database/sql uses a connection from one goroutine at a time, but a query's
// rows may still be open when the same text runs again (within a
// transaction), so a statement in use is never reused: the call falls back
// to the uncached path.
type cachingConn struct {
	driver.Conn
	stmts map[string]*cachedStmt
}

type cachedStmt struct {
	stmt driver.Stmt
	busy bool
}

// take returns the cached statement for query, preparing it on first use,
// or nil when it is in use or the cache is full.
func (c *cachingConn) take(ctx context.Context, query string) (*cachedStmt, error) {
	if cs, ok := c.stmts[query]; ok {
		if cs.busy {
			return nil, nil
		}
		cs.busy = true
		return cs, nil
	}
	if len(c.stmts) >= maxCachedStmts {
		return nil, nil
	}
	st, err := c.Conn.(driver.ConnPrepareContext).PrepareContext(ctx, query)
	if err != nil {
		return nil, err
	}
	cs := &cachedStmt{stmt: st, busy: true}
	c.stmts[query] = cs
	return cs, nil
}

func (c *cachingConn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	cs, err := c.take(ctx, query)
	if err != nil {
		return nil, err
	}
	if cs == nil {
		return c.Conn.(driver.QueryerContext).QueryContext(ctx, query, args)
	}
	rows, err := cs.stmt.(driver.StmtQueryContext).QueryContext(ctx, args)
	if err != nil {
		cs.busy = false
		return nil, err
	}
	return &cachedRows{Rows: rows, release: cs}, nil
}

func (c *cachingConn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	cs, err := c.take(ctx, query)
	if err != nil {
		return nil, err
	}
	if cs == nil {
		return c.Conn.(driver.ExecerContext).ExecContext(ctx, query, args)
	}
	defer func() { cs.busy = false }()
	return cs.stmt.(driver.StmtExecContext).ExecContext(ctx, args)
}

func (c *cachingConn) PrepareContext(ctx context.Context, query string) (driver.Stmt, error) {
	return c.Conn.(driver.ConnPrepareContext).PrepareContext(ctx, query)
}

func (c *cachingConn) BeginTx(ctx context.Context, opts driver.TxOptions) (driver.Tx, error) {
	return c.Conn.(driver.ConnBeginTx).BeginTx(ctx, opts)
}

func (c *cachingConn) Ping(ctx context.Context) error { return c.Conn.(driver.Pinger).Ping(ctx) }

func (c *cachingConn) ResetSession(ctx context.Context) error {
	return c.Conn.(driver.SessionResetter).ResetSession(ctx)
}

func (c *cachingConn) IsValid() bool { return c.Conn.(driver.Validator).IsValid() }

func (c *cachingConn) Close() error {
	for q, cs := range c.stmts {
		_ = cs.stmt.Close()
		delete(c.stmts, q)
	}
	return c.Conn.Close()
}

// cachedRows frees its statement for reuse when closed, and passes on the
// column-type interfaces of the driver's rows.
type cachedRows struct {
	driver.Rows
	release *cachedStmt
}

func (r *cachedRows) Close() error {
	err := r.Rows.Close()
	r.release.busy = false
	return err
}

func (r *cachedRows) ColumnTypeDatabaseTypeName(i int) string {
	return r.Rows.(driver.RowsColumnTypeDatabaseTypeName).ColumnTypeDatabaseTypeName(i)
}

func (r *cachedRows) ColumnTypeScanType(i int) reflect.Type {
	return r.Rows.(driver.RowsColumnTypeScanType).ColumnTypeScanType(i)
}

func (r *cachedRows) ColumnTypeNullable(i int) (bool, bool) {
	return r.Rows.(driver.RowsColumnTypeNullable).ColumnTypeNullable(i)
}

func (r *cachedRows) ColumnTypeLength(i int) (int64, bool) {
	return r.Rows.(driver.RowsColumnTypeLength).ColumnTypeLength(i)
}

func (r *cachedRows) ColumnTypePrecisionScale(i int) (int64, int64, bool) {
	return r.Rows.(driver.RowsColumnTypePrecisionScale).ColumnTypePrecisionScale(i)
}
