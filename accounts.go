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

// Accounts is the account side of a Store beyond creation (Store's
// CreateAccount and key methods): lookups by mailbox, operator actions,
// and keys' names and last use.
type Accounts interface {
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
	// RenameAccountKey names the key of account accountID whose display
	// prefix is exactly prefix; none (a key of another account included)
	// is ErrNotFound.
	RenameAccountKey(ctx context.Context, accountID, prefix, name string) (*APIKey, error)
	// TouchKey records that the key with hash was used at now from ip. A
	// store may skip the write when the recorded use is less than a
	// minute older, so that a busy key costs no write per request; an
	// earlier use than the recorded one changes nothing. An unknown key
	// is left alone, without error.
	TouchKey(ctx context.Context, hash, ip string, now time.Time) error
}
