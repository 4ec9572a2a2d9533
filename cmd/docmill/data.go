package main

import (
	"context"
	"database/sql"
	"flag"
	"fmt"
	"path/filepath"

	"github.com/docmill/docmill/store/sqlite"
	"github.com/riverqueue/river/riverdriver/riversqlite"
	"github.com/riverqueue/river/rivermigrate"
)

// dataFlags locate the data, shared by every command that opens it.
type dataFlags struct {
	dataDir string
}

func (d *dataFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&d.dataDir, "data-dir", "./data", "directory of the SQLite database (docmill.db) and result files (blobs/)")
}

func (d *dataFlags) dbPath() string  { return filepath.Join(d.dataDir, "docmill.db") }
func (d *dataFlags) blobDir() string { return filepath.Join(d.dataDir, "blobs") }
func (d *dataFlags) scratch() string { return filepath.Join(d.dataDir, "tmp") }

// openStore opens the SQLite store (migrating it) and River's schema in it.
func (d *dataFlags) openStore(ctx context.Context) (*sqlite.Store, error) {
	st, err := sqlite.Open(ctx, d.dbPath(), nil)
	if err != nil {
		return nil, err
	}
	if err := migrateRiver(ctx, st.WriteDB()); err != nil {
		st.Close()
		return nil, err
	}
	return st, nil
}

func migrateRiver(ctx context.Context, db *sql.DB) error {
	m, err := rivermigrate.New(riversqlite.New(db), nil)
	if err != nil {
		return fmt.Errorf("river migrations: %w", err)
	}
	if _, err := m.Migrate(ctx, rivermigrate.DirectionUp, nil); err != nil {
		return fmt.Errorf("river migrations: %w", err)
	}
	return nil
}

func migrate(ctx context.Context, env *environment, args []string) error {
	fs := flag.NewFlagSet("migrate", flag.ContinueOnError)
	var d dataFlags
	d.register(fs)
	if err := env.parse(fs, args); err != nil {
		return err
	}
	st, err := d.openStore(ctx)
	if err != nil {
		return err
	}
	fmt.Fprintln(env.stdout, "migrated", d.dbPath())
	return st.Close()
}
