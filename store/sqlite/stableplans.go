package sqlite

import (
	"database/sql/driver"
	"encoding/binary"
	"fmt"
	"reflect"

	"modernc.org/libc"
	sqlite3 "modernc.org/sqlite/lib"
)

// stablePlans turns on SQLite's query planner stability guarantee
// (SQLITE_DBCONFIG_ENABLE_QPSG) on a connection of the driver, before
// any statement is prepared on it.
//
// Without it, a statement with a bound LIMIT (LIMIT ?, as River's fetch
// and job list have) is compiled for the value bound, and marked to be
// compiled again whenever that parameter is bound anew: each run parses
// the text again, and the statement cache (cachingConn) saves nothing.
// With it, plans never depend on bound values: nothing docmill or River
// runs asks for more (no LIKE on a bound pattern, no ANALYZE statistics;
// a partial index is still used when a query's own terms imply its
// WHERE).
//
// modernc.org/sqlite has no setting for this flag; the connection's
// handle is read from its driver.Conn (the field db). A driver whose
// conn has no such field leaves the flag off: statements are then
// compiled again as before, and TestStablePlans fails.
func stablePlans(conn driver.Conn) error {
	db, ok := sqliteHandle(conn)
	if !ok {
		return nil
	}
	if _, err := dbConfigFlag(db, sqlite3.SQLITE_DBCONFIG_ENABLE_QPSG, 1); err != nil {
		return fmt.Errorf("sqlite: enable the query planner stability guarantee: %w", err)
	}
	return nil
}

// sqliteHandle is the sqlite3* of a modernc.org/sqlite connection.
func sqliteHandle(conn driver.Conn) (uintptr, bool) {
	v := reflect.ValueOf(conn)
	if v.Kind() != reflect.Pointer || v.Elem().Kind() != reflect.Struct {
		return 0, false
	}
	f := v.Elem().FieldByName("db")
	if !f.IsValid() || f.Kind() != reflect.Uintptr || f.Uint() == 0 {
		return 0, false
	}
	return uintptr(f.Uint()), true
}

// dbConfigFlag calls sqlite3_db_config(db, op, onoff, &state) for a
// boolean op (onoff -1 only reads it) and returns the state after the
// call.
func dbConfigFlag(db uintptr, op, onoff int32) (bool, error) {
	tls := libc.NewTLS()
	defer tls.Close()
	// The state's int and the two-argument va_list (an 8-byte slot each).
	mem := libc.Xmalloc(tls, 24)
	if mem == 0 {
		return false, fmt.Errorf("sqlite3_db_config: out of memory")
	}
	defer libc.Xfree(tls, mem)
	state, list := mem, mem+8
	if rc := sqlite3.Xsqlite3_db_config(tls, db, op, libc.VaList(list, onoff, state)); rc != sqlite3.SQLITE_OK {
		return false, fmt.Errorf("sqlite3_db_config(%d): result code %d", op, rc)
	}
	return int32(binary.NativeEndian.Uint32(libc.GoBytes(state, 4))) == 1, nil
}
