package sqlstore

import (
	"context"
	"fmt"
	"time"

	"github.com/docmill/docmill"
	"github.com/docmill/docmill/store/internal/sqltext"
)

// CreateAccount stores a and its first key k in one transaction. a.ID must
// be set; an empty k.AccountID is set to a.ID, and zero CreatedAt times to
// now. An email another account already has is docmill.ErrEmailTaken.
func (s *Store) CreateAccount(ctx context.Context, a *docmill.Account, k *docmill.APIKey) error {
	if a.ID == "" {
		return s.errorf("create account: empty id")
	}
	if k.AccountID == "" {
		k.AccountID = a.ID
	}
	if k.AccountID != a.ID {
		return s.errorf("create account: key belongs to another account")
	}
	if a.CreatedAt.IsZero() {
		a.CreatedAt = time.Now()
	}
	if a.Status == "" {
		a.Status = docmill.AccountActive
	}
	l := limitColumns(a.Limits)
	err := s.db.InTx(ctx, func(tx Tx) error {
		if a.Email != "" {
			var n int64
			if err := tx.QueryRow(ctx, sqltext.EmailTaken, a.Email).Scan(&n); err != nil {
				return err
			}
			if n > 0 {
				return docmill.ErrEmailTaken
			}
		}
		_, err := tx.Exec(ctx, sqltext.InsertAccount, a.ID, a.Name, nullString(a.Email), a.Plan,
			l.ops, l.maxFile, l.rpm, l.inFlight, l.priority, l.ttl, millis(a.CreatedAt),
			string(a.Status), nullMillis(a.SuspendedAt))
		if err != nil && s.cfg.IsEmailTaken != nil && s.cfg.IsEmailTaken(err) {
			return docmill.ErrEmailTaken // a concurrent account took it after the check
		}
		if err != nil {
			return err
		}
		return insertKey(ctx, tx, k)
	})
	if err != nil {
		return s.errorf("create account: %w", err)
	}
	return nil
}

// lockAccount touches the account row (see sqltext.LockAccount): it serializes the
// writers of one account and fails with docmill.ErrNotFound if there is no
// such account.
func lockAccount(ctx context.Context, tx Tx, id string) error {
	n, err := tx.Exec(ctx, sqltext.LockAccount, id, millis(time.Now()))
	if err != nil {
		return err
	}
	if n == 0 {
		return fmt.Errorf("account %s: %w", id, docmill.ErrNotFound)
	}
	return nil
}

// Account returns the account with id; an unknown id is docmill.ErrNotFound.
func (s *Store) Account(ctx context.Context, id string) (*docmill.Account, error) {
	a, err := scanAccount(s.db.Read().QueryRow(ctx, sqltext.Account, id))
	if err != nil {
		return nil, s.errorf("account %s: %w", id, s.notFound(err))
	}
	return a, nil
}

// limitCols are the custom-limit columns of an account, all NULL for none.
type limitCols struct {
	ops, maxFile, rpm, inFlight, priority, ttl *int64
}

func limitColumns(p *docmill.Plan) limitCols {
	if p == nil {
		return limitCols{}
	}
	v := func(n int64) *int64 { return &n }
	return limitCols{
		ops:      v(p.OperationsPerMonth),
		maxFile:  v(p.MaxFileBytes),
		rpm:      v(int64(p.RequestsPerMinute)),
		inFlight: v(int64(p.JobsInFlight)),
		priority: v(int64(p.Priority)),
		ttl:      v(int64(p.ResultTTL / time.Second)),
	}
}

// accountDest returns the scan destinations of sqltext.AccountColumns and a function
// that fills a from them once scanned.
func accountDest(a *docmill.Account) ([]any, func()) {
	var l limitCols
	var created int64
	var status string
	var suspended *int64
	dest := []any{&a.ID, &a.Name, &a.Email, &a.Plan, &l.ops, &l.maxFile,
		&l.rpm, &l.inFlight, &l.priority, &l.ttl, &created, &status, &suspended}
	return dest, func() {
		a.CreatedAt = fromMillis(created)
		a.Status = docmill.AccountStatus(status)
		a.SuspendedAt = timePtr(suspended)
		a.Limits = nil
		if l.ops != nil {
			// The limits' name is the account's plan, as EffectivePlan has it.
			a.Limits = &docmill.Plan{
				Name:               a.Plan,
				OperationsPerMonth: *l.ops,
				MaxFileBytes:       deref(l.maxFile),
				RequestsPerMinute:  int(deref(l.rpm)),
				JobsInFlight:       int(deref(l.inFlight)),
				Priority:           int(deref(l.priority)),
				ResultTTL:          time.Duration(deref(l.ttl)) * time.Second,
			}
		}
	}
}

func scanAccount(r Row) (*docmill.Account, error) {
	var a docmill.Account
	dest, fill := accountDest(&a)
	if err := r.Scan(dest...); err != nil {
		return nil, err
	}
	fill()
	return &a, nil
}

// deref reads an optional number; NULL is 0.
func deref(n *int64) int64 {
	if n == nil {
		return 0
	}
	return *n
}

// AccountByEmail returns the account whose stored email is email; none
// (an empty email included) is docmill.ErrNotFound.
func (s *Store) AccountByEmail(ctx context.Context, email string) (*docmill.Account, error) {
	if email == "" {
		return nil, s.errorf("account by email: %w", docmill.ErrNotFound)
	}
	a, err := scanAccount(s.db.Read().QueryRow(ctx, sqltext.AccountByEmail, email))
	if err != nil {
		return nil, s.errorf("account by email: %w", s.notFound(err))
	}
	return a, nil
}

// ListAccounts returns every account with its number of active keys,
// oldest first.
func (s *Store) ListAccounts(ctx context.Context) ([]docmill.AccountListing, error) {
	out, err := queryAll(ctx, s.db.Read(), func(r Row) (docmill.AccountListing, error) {
		var l docmill.AccountListing
		dest, fill := accountDest(&l.Account)
		if err := r.Scan(append(dest, &l.ActiveKeys)...); err != nil {
			return l, err
		}
		fill()
		return l, nil
	}, sqltext.ListAccounts)
	if err != nil {
		return nil, s.errorf("list accounts: %w", err)
	}
	return out, nil
}

// SetAccountStatus moves account id to status. Suspending a suspended
// account keeps its first SuspendedAt. A status other than active and
// suspended is an invalid_request error.
func (s *Store) SetAccountStatus(ctx context.Context, id string, status docmill.AccountStatus, now time.Time) (*docmill.Account, error) {
	if status != docmill.AccountActive && status != docmill.AccountSuspended {
		return nil, docmill.Errorf(docmill.CodeInvalidRequest, "Unknown account status %q.", status)
	}
	return s.updateAccount(ctx, "set account status", id, sqltext.SetAccountStatus,
		id, string(status), millis(now), millis(time.Now()))
}

// SetAccountPlan moves account id to plan, with limits as its own limits,
// or none when limits is nil.
func (s *Store) SetAccountPlan(ctx context.Context, id, plan string, limits *docmill.Plan) (*docmill.Account, error) {
	l := limitColumns(limits)
	return s.updateAccount(ctx, "set plan", id, sqltext.SetPlan,
		id, plan, l.ops, l.maxFile, l.rpm, l.inFlight, l.priority, l.ttl, millis(time.Now()))
}

// updateAccount runs the update query with args on account id and returns
// the account as it then is, in one transaction; an unknown id is
// docmill.ErrNotFound. what names the operation in errors.
func (s *Store) updateAccount(ctx context.Context, what, id, query string, args ...any) (*docmill.Account, error) {
	return updateRow(ctx, s, what, id, query, args, func(tx Tx) (*docmill.Account, error) {
		return scanAccount(tx.QueryRow(ctx, sqltext.Account, id))
	})
}

// updateRow runs the update query with args on the row id and returns
// the row as read then reads it, in one transaction; an update that
// changes no row is docmill.ErrNotFound. what names the operation in
// errors.
func updateRow[T any](ctx context.Context, s *Store, what, id, query string, args []any, read func(Tx) (*T, error)) (*T, error) {
	var row *T
	err := s.db.InTx(ctx, func(tx Tx) error {
		n, err := tx.Exec(ctx, query, args...)
		if err != nil {
			return err
		}
		if n == 0 {
			return docmill.ErrNotFound
		}
		row, err = read(tx)
		return err
	})
	if err != nil {
		return nil, s.errorf("%s %s: %w", what, id, err)
	}
	return row, nil
}

// DeleteAccount removes account id and every row of it, in one
// transaction: its jobs and their webhook attempts, its usage, webhook
// endpoints and their attempts, keys, sessions, and the mailed tokens
// that name it or its email. The account row is locked first, as in
// CreateJob, so that no job of it is admitted meanwhile. It returns the
// jobs as they were, so that their files can be removed.
func (s *Store) DeleteAccount(ctx context.Context, id string) (*docmill.AccountDeletion, error) {
	var d docmill.AccountDeletion
	err := s.db.InTx(ctx, func(tx Tx) error {
		if err := lockAccount(ctx, tx, id); err != nil {
			return err
		}
		a, err := scanAccount(tx.QueryRow(ctx, sqltext.Account, id))
		if err != nil {
			return err
		}
		d.Account = *a
		if d.Jobs, err = queryJobs(ctx, tx, sqltext.AccountJobs, id); err != nil {
			return err
		}
		counts := []struct {
			query string
			n     *int
		}{
			{sqltext.DeleteAccountAttempts, nil},
			{sqltext.DeleteAccountJobs, nil},
			{sqltext.DeleteAccountUsage, nil},
			{sqltext.DeleteAccountWebhooks, &d.Webhooks},
			{sqltext.DeleteAccountKeys, &d.Keys},
			{sqltext.DeleteAccountSessions, &d.Sessions},
		}
		for _, c := range counts {
			n, err := tx.Exec(ctx, c.query, id)
			if err != nil {
				return err
			}
			if c.n != nil {
				*c.n = int(n)
			}
		}
		// An account without email has none of the sign-up tokens.
		n, err := tx.Exec(ctx, sqltext.DeleteAccountTokens, id, nullString(a.Email))
		if err != nil {
			return err
		}
		d.AuthTokens = int(n)
		_, err = tx.Exec(ctx, sqltext.DeleteAccount, id)
		return err
	})
	if err != nil {
		return nil, s.errorf("delete account %s: %w", id, err)
	}
	return &d, nil
}
