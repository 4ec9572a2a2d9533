package postgres

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/docmill/docmill/store/internal/sqlstore"
)

// ErrNotMigrated is wrapped by Migrated's error when the schema lacks some
// of the store's migrations.
var ErrNotMigrated = errors.New("postgres: the database schema is not migrated")

// Migrate applies the store's pending migrations and then runs each of also
// (River's migrations, for instance), all while holding a session-level
// advisory lock on the connection's schema. Nodes that start at once thus
// migrate one after another; the later ones find nothing left to do. The
// lock is held on a connection of its own, released by closing it, so a
// crash never leaves it behind.
func (s *Store) Migrate(ctx context.Context, also ...func(context.Context) error) error {
	conn, err := pgx.ConnectConfig(ctx, s.pool.Config().ConnConfig.Copy())
	if err != nil {
		return fmt.Errorf("postgres: migrate: %w", err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	if _, err := conn.Exec(ctx, qMigrationLock); err != nil {
		return fmt.Errorf("postgres: migrate: lock: %w", err)
	}
	if err := sqlstore.Migrate(ctx, s.core); err != nil {
		return err
	}
	for _, f := range also {
		if err := f(ctx); err != nil {
			return err
		}
	}
	if _, err := conn.Exec(ctx, qMigrationUnlock); err != nil {
		return fmt.Errorf("postgres: migrate: unlock: %w", err)
	}
	return nil
}

// Migrated returns nil if every migration of the store is applied, and
// otherwise an error wrapping ErrNotMigrated that says what is missing.
// It changes nothing.
func (s *Store) Migrated(ctx context.Context) error {
	var exists bool
	if err := s.pool.QueryRow(ctx, qMigrationsTable).Scan(&exists); err != nil {
		return fmt.Errorf("postgres: migrations: %w", err)
	}
	if !exists {
		return fmt.Errorf("%w: no docmill tables in the schema", ErrNotMigrated)
	}
	pending, err := sqlstore.Pending(ctx, s.core)
	if err != nil {
		return err
	}
	if len(pending) > 0 {
		return fmt.Errorf("%w: migrations %v are pending", ErrNotMigrated, pending)
	}
	return nil
}
