package docmill

import (
	"context"
	"time"
)

// AccountStatus is whether an account may use the service.
type AccountStatus string

// Account statuses.
const (
	AccountActive    AccountStatus = "active"
	AccountSuspended AccountStatus = "suspended"
)

// AccountListing is one row of `docmill accounts list`.
type AccountListing struct {
	Account Account
	// ActiveKeys is how many unrevoked keys the account has.
	ActiveKeys int
}

// AccountDeletion is what DeleteAccount removed.
type AccountDeletion struct {
	Account Account
	// Jobs are the account's job records, removed: the caller deletes
	// their files (inputs and results) from the blob store.
	Jobs                                 []*Job
	Keys, Sessions, Webhooks, AuthTokens int
}

// ErrEmailTaken is returned by CreateAccount for an email already used.
var ErrEmailTaken = &Error{Code: CodeConflict, Message: "An account with this email already exists."}

// Accounts keeps accounts: their creation with a first key, lookups, and
// the operator's actions on them. An account's other keys are Keys'.
type Accounts interface {
	// CreateAccount stores a new account and its first key together.
	CreateAccount(ctx context.Context, a *Account, k *APIKey) error
	// Account returns an account by id.
	Account(ctx context.Context, id string) (*Account, error)
	// AccountByEmail returns the account whose Email is email (compared
	// as stored: callers pass CanonicalEmail's form); none is ErrNotFound.
	AccountByEmail(ctx context.Context, email string) (*Account, error)
	// ListAccounts returns every account, oldest first.
	ListAccounts(ctx context.Context) ([]AccountListing, error)
	// SetAccountStatus moves account id to status (SuspendedAt is set at
	// now when suspended, cleared when active) and returns it; unknown
	// is ErrNotFound.
	SetAccountStatus(ctx context.Context, id string, status AccountStatus, now time.Time) (*Account, error)
	// SetAccountPlan moves account id to plan with limits (custom plans)
	// or nil, and returns it; unknown is ErrNotFound.
	SetAccountPlan(ctx context.Context, id, plan string, limits *Plan) (*Account, error)
	// DeleteAccount removes account id and everything of it: jobs (with
	// their delivery records), usage, keys, sessions, mailed tokens (those
	// naming it and those sent to its email), webhook endpoints and their
	// attempts, in one transaction; unknown is ErrNotFound.
	DeleteAccount(ctx context.Context, id string) (*AccountDeletion, error)
}
