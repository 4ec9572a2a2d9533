package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"text/tabwriter"
	"time"

	"github.com/docmill/docmill"
)

// list prints every account with its status and number of active keys.
func (c *accountsCmd) list(ctx context.Context) error {
	rows, err := c.st.ListAccounts(ctx)
	if err != nil {
		return err
	}
	tw := tabwriter.NewWriter(c.env.stdout, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ACCOUNT\tEMAIL\tNAME\tPLAN\tSTATUS\tKEYS\tCREATED")
	for _, r := range rows {
		a := r.Account
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%d\t%s\n", a.ID, orDash(a.Email), a.Name, a.Plan, accountStatus(&a),
			r.ActiveKeys, stamp(&a.CreatedAt))
	}
	return tw.Flush()
}

// show prints the account, its keys and its use of this month.
func (c *accountsCmd) show(ctx context.Context) error {
	a, err := c.account(ctx, c.args[0])
	if err != nil {
		return err
	}
	keys, err := c.st.AccountKeys(ctx, a.ID)
	if err != nil {
		return err
	}
	period, _ := docmill.Period(time.Now())
	u, err := c.st.Usage(ctx, a.ID, period)
	if err != nil {
		return err
	}
	w := c.env.stdout
	fmt.Fprintf(w, "account:  %s\nname:     %s\nemail:    %s\nplan:     %s\n", a.ID, a.Name, orDash(a.Email), a.Plan)
	if l := a.Limits; l != nil {
		fmt.Fprintf(w, "limits:   %d operations a month, %d requests a minute, %d jobs in flight, results kept %s\n",
			l.OperationsPerMonth, l.RequestsPerMinute, l.JobsInFlight, l.ResultTTL)
	}
	fmt.Fprintf(w, "status:   %s\ncreated:  %s\n", accountStatus(a), stamp(&a.CreatedAt))
	fmt.Fprintf(w, "usage:    %d operations in %s, %d jobs in flight\n\n", u.Operations, u.Period, u.InFlight)
	return printKeys(w, keys)
}

// printKeys prints an account's keys, revoked ones too.
func printKeys(w io.Writer, keys []docmill.APIKey) error {
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "KEY\tNAME\tCREATED\tLAST USED\tFROM\tREVOKED")
	for _, k := range keys {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", k.Prefix, k.Name, stamp(&k.CreatedAt), stamp(k.LastUsedAt),
			orDash(k.LastUsedIP), stamp(k.RevokedAt))
	}
	return tw.Flush()
}

// accountStatus is an account's status, with since when it is suspended.
func accountStatus(a *docmill.Account) string {
	if a.Suspended() && a.SuspendedAt != nil {
		return "suspended since " + stamp(a.SuspendedAt)
	}
	if a.Status == "" {
		return string(docmill.AccountActive)
	}
	return string(a.Status)
}

// stamp formats an optional time in UTC; none is "-".
func stamp(t *time.Time) string {
	if t == nil {
		return "-"
	}
	return t.UTC().Format(time.RFC3339)
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// createAccount stores a new account and its first key, and prints the
// key, shown this once.
func createAccount(ctx context.Context, st docmill.Accounts, env *environment, plan, name, email string, limits *docmill.Plan) error {
	acct := &docmill.Account{Name: name, Email: email, Plan: plan, Limits: limits}
	key, _, err := docmill.CreateAccount(ctx, st, acct, name, time.Now())
	if err != nil {
		return fmt.Errorf("accounts create: %w", err)
	}
	fmt.Fprintf(env.stdout, "created account %s (%s) on the %s plan\n", acct.ID, name, plan)
	fmt.Fprintf(env.stdout, "API key (shown once, store it now):\n%s\n", key)
	return nil
}

// createDevKey gives a fresh installation one Pro key, so that `make run`
// leaves a new user with a key in hand. The key is shown only where a
// person reads it once: when stdout is a terminal. Elsewhere (a pipe, a
// file, the journal, a container's log, where a secret would stay
// readable) no key is made, and the log says how to make one.
func createDevKey(ctx context.Context, st docmill.Store, env *environment, log *slog.Logger) error {
	rows, err := st.ListKeys(ctx)
	if err != nil || len(rows) > 0 {
		return err
	}
	if !isConsole(env.stdout) {
		log.Warn("no API keys yet, and no key is printed into a log: make an account and its key with `docmill accounts create --plan pro --name NAME` (same --data-dir or --database-url as this server)")
		return nil
	}
	fmt.Fprintln(env.stdout, "docmill: no API keys yet; creating a development key.")
	if err := createAccount(ctx, st, env, docmill.PlanPro, "dev", "", nil); err != nil {
		return err
	}
	fmt.Fprintln(env.stdout, `docmill: more accounts: docmill accounts create --plan pro --name acme`)
	return nil
}

// console is a writer that says itself whether a person reads it (a
// test's stand-in for a terminal).
type console interface{ IsConsole() bool }

// isConsole reports whether w is a terminal, or a writer that says it
// stands for one.
func isConsole(w io.Writer) bool {
	if c, ok := w.(console); ok {
		return c.IsConsole()
	}
	return isTerminal(w)
}
