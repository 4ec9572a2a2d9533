package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivermigrate"

	"github.com/docmill/docmill"
	"github.com/docmill/docmill/jobs"
	"github.com/docmill/docmill/store/postgres"
)

// postgresDB is the distributed database: PostgreSQL with riverpgxv5 on
// the store's pool.
type postgresDB struct {
	st    *postgres.Store
	where string
}

// pingTimeout bounds the first contact with PostgreSQL at start-up: a
// node that cannot reach its database exits with a clear error, and its
// supervisor restarts it, rather than serve nothing.
const pingTimeout = 10 * time.Second

// openPostgres opens the store at --database-url and checks that it
// answers. With migrate, it applies the store's and River's migrations
// under the store's advisory lock (nodes starting at once take turns);
// without, it refuses a schema that lacks any of them.
func openPostgres(ctx context.Context, d *dataFlags, migrate bool) (*postgresDB, error) {
	st, err := postgres.Open(ctx, d.databaseURL, nil)
	if err != nil {
		return nil, err
	}
	db := &postgresDB{st: st, where: "database " + redactURL(d.databaseURL) + ", files in " + d.dataDir}
	pctx, cancel := context.WithTimeout(ctx, pingTimeout)
	defer cancel()
	if err := st.Ping(pctx); err != nil {
		st.Close()
		return nil, err
	}
	if migrate {
		err = st.Migrate(ctx, db.migrateRiver)
	} else {
		err = db.migrated(ctx)
	}
	if err != nil {
		st.Close()
		return nil, err
	}
	return db, nil
}

func (p *postgresDB) migrator() (*rivermigrate.Migrator[pgx.Tx], error) {
	// River logs each migration it applies, and each one missing when it
	// validates; the caller reports both itself.
	m, err := rivermigrate.New(riverpgxv5.New(p.st.Pool()), &rivermigrate.Config{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		return nil, fmt.Errorf("river migrations: %w", err)
	}
	return m, nil
}

func (p *postgresDB) migrateRiver(ctx context.Context) error {
	m, err := p.migrator()
	if err != nil {
		return err
	}
	if _, err := m.Migrate(ctx, rivermigrate.DirectionUp, nil); err != nil {
		return fmt.Errorf("river migrations: %w", err)
	}
	return nil
}

// migrated returns an error naming what is missing (and how to fix it)
// unless both the store's and River's migrations are all applied.
func (p *postgresDB) migrated(ctx context.Context) error {
	var missing []string
	if err := p.st.Migrated(ctx); errors.Is(err, postgres.ErrNotMigrated) {
		missing = append(missing, "store: "+strings.TrimPrefix(err.Error(), postgres.ErrNotMigrated.Error()+": "))
	} else if err != nil {
		return err
	}
	m, err := p.migrator()
	if err != nil {
		return err
	}
	res, err := m.Validate(ctx)
	if err != nil {
		return fmt.Errorf("river migrations: %w", err)
	}
	if !res.OK {
		missing = append(missing, "river: "+strings.Join(res.Messages, "; "))
	}
	if len(missing) == 0 {
		return nil
	}
	return fmt.Errorf("the database is not migrated (%s): %w", strings.Join(missing, "; "), errNotMigrated)
}

func (p *postgresDB) Store() docmill.Store { return p.st }
func (p *postgresDB) describe() string     { return p.where }
func (p *postgresDB) Close()               { p.st.Close() }

func (p *postgresDB) forgetAccount(ctx context.Context, accountID string) (int, error) {
	return jobs.ForgetAccount(ctx, riverpgxv5.New(p.st.Pool()), accountID)
}

// queue builds the queue on riverpgxv5. River's pgx driver is notified of
// new jobs (LISTEN/NOTIFY), so workers need not poll fast: PollInterval is
// left to River's default, and --poll-interval does not apply. Waits are
// woken by the store's job-finished notifications.
func (p *postgresDB) queue(cfg jobs.Config) (nodeQueue, error) {
	cfg.PollInterval = 0
	cfg.Notifications = p.st
	q, err := jobs.New(riverpgxv5.New(p.st.Pool()), cfg)
	if err != nil {
		return nil, err
	}
	p.st.SetEnqueue(q.InsertTx)
	p.st.SetDeliver(q.DeliverTx) // a finished job's webhook deliveries commit with its finish
	return q, nil
}

// redactURL is u without its password, for logs and messages.
func redactURL(u string) string {
	parsed, err := url.Parse(u)
	if err != nil {
		return "(unparsable URL)"
	}
	return parsed.Redacted()
}
