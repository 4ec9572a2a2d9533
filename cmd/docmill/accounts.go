package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"strings"
	"time"

	"github.com/docmill/docmill"
)

const accountsUsage = `usage:
  docmill accounts list
  docmill accounts show <account>
  docmill accounts create --plan free|pro|team|custom --name NAME [--email E] [custom limits]
  docmill accounts suspend <account>
  docmill accounts resume <account>
  docmill accounts delete <account>
  docmill accounts set-plan <account> <plan> [custom limits]
  docmill accounts revoke-key <key prefix>
<account> is an account id (acct_...), its email, or the prefix of one of
its keys (dm_live_...). Each works on the database directly (--data-dir,
--database-url), while a server runs on it too.`

// accountsCmd is one run of an accounts command: the store, and the
// blob store for delete.
type accountsCmd struct {
	env  *environment
	data dataFlags
	db   database
	st   docmill.Store
	args []string
}

// accountsCommands are the accounts commands: each one's usage line and
// how many arguments it takes.
var accountsCommands = map[string]struct {
	synopsis string
	args     int
}{
	"list":       {"accounts list [flags]", 0},
	"show":       {"accounts show [flags] <account>", 1},
	"create":     {"accounts create --plan free|pro|team|custom --name NAME [--email E] [custom limits] [flags]", 0},
	"suspend":    {"accounts suspend [flags] <account>", 1},
	"resume":     {"accounts resume [flags] <account>", 1},
	"delete":     {"accounts delete [flags] <account>  (its jobs, files, keys, sessions and webhooks too)", 1},
	"set-plan":   {"accounts set-plan [flags] <account> <plan>", 2},
	"revoke-key": {"accounts revoke-key [flags] <key prefix>", 1},
}

// accounts manages accounts and their keys directly in the database, as
// an operator; it works while a server runs on the same data.
func accounts(ctx context.Context, env *environment, args []string) error {
	if len(args) == 0 {
		return usagef("accounts: no subcommand\n%s", accountsUsage)
	}
	if isHelp(args[0]) {
		fmt.Fprintln(env.stdout, accountsUsage)
		return errHelp
	}
	cmd, ok := accountsCommands[args[0]]
	if !ok {
		return usagef("accounts: unknown subcommand %q\n%s", args[0], accountsUsage)
	}
	fs := newFlags("accounts "+args[0], cmd.synopsis)
	c := &accountsCmd{env: env}
	c.data.register(fs)
	var custom customFlags
	var plan, name, email string
	switch args[0] {
	case "create":
		fs.StringVar(&plan, "plan", docmill.PlanFree, "plan of the new account")
		fs.StringVar(&name, "name", "", "name of the account (required)")
		fs.StringVar(&email, "email", "", "email of the account (stored in canonical form: lower case, without +tag)")
		custom.register(fs)
	case "set-plan":
		custom.register(fs)
	}
	if err := env.parse(fs, args[1:]); err != nil {
		return err
	}
	c.args = fs.Args()
	if len(c.args) != cmd.args {
		return usagef("usage: docmill %s", cmd.synopsis)
	}
	if err := c.data.requireSQLite(env, args[0] == "create"); err != nil {
		return err
	}
	db, err := openDatabase(ctx, &c.data, false)
	if err != nil {
		return err
	}
	defer db.Close()
	c.db, c.st = db, db.Store()
	switch args[0] {
	case "create":
		return c.create(ctx, plan, name, email, &custom)
	case "set-plan":
		return c.setPlan(ctx, &custom)
	}
	run := map[string]func(context.Context) error{
		"list": c.list, "show": c.show, "suspend": c.suspend, "resume": c.resume,
		"delete": c.delete, "revoke-key": c.revokeKey,
	}[args[0]]
	return run(ctx)
}

// account finds the account ref designates: an account id, an email (as
// stored, else in canonical form), or the display prefix of one of its
// keys (any non-empty start of it, or the whole key).
func (c *accountsCmd) account(ctx context.Context, ref string) (*docmill.Account, error) {
	switch {
	case strings.HasPrefix(ref, "acct_"):
		return c.st.Account(ctx, ref)
	case strings.Contains(ref, "@"):
		a, err := c.st.AccountByEmail(ctx, ref)
		if canonical, ok := docmill.CanonicalEmail(ref); errors.Is(err, docmill.ErrNotFound) && ok && canonical != ref {
			a, err = c.st.AccountByEmail(ctx, canonical)
		}
		return a, err
	case strings.HasPrefix(ref, docmill.KeyPrefix):
		return c.accountOfKey(ctx, ref)
	}
	return nil, fmt.Errorf("%q: want an account id (acct_...), an email or a key prefix (dm_live_...)", ref)
}

// accountOfKey finds the account of the keys whose display prefix starts
// with prefix, or of the key that prefix is in whole.
func (c *accountsCmd) accountOfKey(ctx context.Context, prefix string) (*docmill.Account, error) {
	keys, err := c.st.ListKeys(ctx)
	if err != nil {
		return nil, err
	}
	hash := docmill.HashKey(prefix)
	var found *docmill.Account
	for _, k := range keys {
		if strings.HasPrefix(k.Key.Prefix, prefix) || k.Key.Hash == hash {
			if found != nil && found.ID != k.Account.ID {
				return nil, fmt.Errorf("the prefix %q matches keys of several accounts; give more of it", prefix)
			}
			found = &k.Account
		}
	}
	if found == nil {
		return nil, fmt.Errorf("no key has the prefix %q: %w", prefix, docmill.ErrNotFound)
	}
	return found, nil
}

func (c *accountsCmd) create(ctx context.Context, plan, name, email string, custom *customFlags) error {
	if name == "" {
		return usagef("accounts create: --name is required")
	}
	if email != "" {
		canonical, ok := docmill.CanonicalEmail(email)
		if !ok {
			return usagef("accounts create: --email %q is not one plain address", email)
		}
		email = canonical
	}
	if err := checkPlan(plan); err != nil {
		return err
	}
	limits, err := custom.limits(plan)
	if err != nil {
		return err
	}
	return createAccount(ctx, c.st, c.env, plan, name, email, limits)
}

func (c *accountsCmd) setPlan(ctx context.Context, custom *customFlags) error {
	plan := c.args[1]
	if err := checkPlan(plan); err != nil {
		return err
	}
	limits, err := custom.limits(plan)
	if err != nil {
		return err
	}
	a, err := c.account(ctx, c.args[0])
	if err != nil {
		return fmt.Errorf("accounts set-plan: %w", err)
	}
	if a, err = c.st.SetAccountPlan(ctx, a.ID, plan, limits); err != nil {
		return fmt.Errorf("accounts set-plan: %w", err)
	}
	fmt.Fprintf(c.env.stdout, "account %s (%s) is now on the %s plan\n", a.ID, a.Name, a.Plan)
	return nil
}

func (c *accountsCmd) suspend(ctx context.Context) error {
	return c.setStatus(ctx, docmill.AccountSuspended)
}

func (c *accountsCmd) resume(ctx context.Context) error {
	return c.setStatus(ctx, docmill.AccountActive)
}

// setStatus suspends or resumes the account: a suspended account's keys
// and sessions are refused with 403 account_suspended at once.
func (c *accountsCmd) setStatus(ctx context.Context, status docmill.AccountStatus) error {
	a, err := c.account(ctx, c.args[0])
	if err != nil {
		return err
	}
	if a, err = c.st.SetAccountStatus(ctx, a.ID, status, time.Now()); err != nil {
		return err
	}
	fmt.Fprintf(c.env.stdout, "account %s (%s) is %s\n", a.ID, a.Name, a.Status)
	return nil
}

func (c *accountsCmd) revokeKey(ctx context.Context) error {
	k, err := c.st.RevokeKey(ctx, c.args[0], time.Now())
	if err != nil {
		return fmt.Errorf("accounts revoke-key: %w", err)
	}
	fmt.Fprintf(c.env.stdout, "revoked %s (%s) of account %s\n", k.Prefix, k.Name, k.AccountID)
	return nil
}

// customFlags are the limits of a custom-plan account.
type customFlags struct {
	ops       int64
	maxFileMB int64
	rpm       int
	inFlight  int
	resultTTL time.Duration
}

func (c *customFlags) register(fs *flag.FlagSet) {
	def := docmill.DefaultPlans()[docmill.PlanCustom]
	fs.Int64Var(&c.ops, "ops", def.OperationsPerMonth, "custom plan: operations per month")
	fs.Int64Var(&c.maxFileMB, "max-file-mb", 0, "custom plan: max file size in MB (0: only the server's cap)")
	fs.IntVar(&c.rpm, "rpm", def.RequestsPerMinute, "custom plan: requests per minute")
	fs.IntVar(&c.inFlight, "in-flight", def.JobsInFlight, "custom plan: jobs in flight")
	fs.DurationVar(&c.resultTTL, "result-ttl", def.ResultTTL, "custom plan: how long results stay downloadable")
}

// limits returns the account's own limits for plan (nil unless custom).
func (c *customFlags) limits(plan string) (*docmill.Plan, error) {
	if plan != docmill.PlanCustom {
		return nil, nil
	}
	if c.ops < 1 || c.rpm < 1 || c.inFlight < 1 || c.maxFileMB < 0 || c.resultTTL < time.Minute {
		return nil, usagef("custom limits: --ops, --rpm and --in-flight must be at least 1, --max-file-mb at least 0, --result-ttl at least 1m")
	}
	return &docmill.Plan{
		Name: docmill.PlanCustom, OperationsPerMonth: c.ops, MaxFileBytes: c.maxFileMB << 20,
		RequestsPerMinute: c.rpm, JobsInFlight: c.inFlight, Priority: 1, ResultTTL: c.resultTTL,
	}, nil
}

func checkPlan(plan string) error {
	if _, ok := docmill.DefaultPlans()[plan]; !ok {
		return usagef("unknown plan %q (plans: %v)", plan, docmill.PlanNames(docmill.DefaultPlans()))
	}
	return nil
}
