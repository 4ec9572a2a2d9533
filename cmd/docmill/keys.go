package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"text/tabwriter"
	"time"

	"github.com/docmill/docmill"
)

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
		return nil, errors.New("custom limits: --ops, --rpm and --in-flight must be at least 1, --max-file-mb at least 0, --result-ttl at least 1m")
	}
	return &docmill.Plan{
		Name: docmill.PlanCustom, OperationsPerMonth: c.ops, MaxFileBytes: c.maxFileMB << 20,
		RequestsPerMinute: c.rpm, JobsInFlight: c.inFlight, Priority: 1, ResultTTL: c.resultTTL,
	}, nil
}

func checkPlan(plan string) error {
	if _, ok := docmill.DefaultPlans()[plan]; !ok {
		return fmt.Errorf("unknown plan %q (plans: %v)", plan, docmill.PlanNames(docmill.DefaultPlans()))
	}
	return nil
}

const keysUsage = `usage:
  docmill keys create --plan free|pro|team|custom --name NAME [--email E] [custom limits]
  docmill keys list
  docmill keys revoke <prefix>
  docmill keys set-plan <prefix> <plan> [custom limits]`

// keys manages accounts and API keys directly in the database; it works
// while a server runs on the same data.
func keys(ctx context.Context, env *environment, args []string) error {
	if len(args) == 0 {
		return errors.New("keys: no subcommand\n" + keysUsage)
	}
	if isHelp(args[0]) {
		fmt.Fprintln(env.stdout, keysUsage)
		return errHelp
	}
	synopsis := map[string]string{
		"create":   "keys create --plan free|pro|team|custom --name NAME [--email E] [custom limits] [flags]",
		"list":     "keys list [flags]",
		"revoke":   "keys revoke [flags] <prefix>",
		"set-plan": "keys set-plan [flags] <prefix> <plan>",
	}[args[0]]
	fs := newFlags("keys "+args[0], synopsis)
	var d dataFlags
	d.register(fs)
	var custom customFlags
	var plan, name, email string
	switch args[0] {
	case "create":
		fs.StringVar(&plan, "plan", docmill.PlanFree, "plan of the new account")
		fs.StringVar(&name, "name", "", "name of the account (required)")
		fs.StringVar(&email, "email", "", "email of the account")
		custom.register(fs)
	case "set-plan":
		custom.register(fs)
	case "list", "revoke":
	default:
		return fmt.Errorf("keys: unknown subcommand %q\n%s", args[0], keysUsage)
	}
	if err := env.parse(fs, args[1:]); err != nil {
		return err
	}
	db, err := openDatabase(ctx, &d, false)
	if err != nil {
		return err
	}
	defer db.Close()
	st := db.Store()
	rest := fs.Args()
	switch args[0] {
	case "create":
		if name == "" {
			return errors.New("keys create: --name is required")
		}
		if err := checkPlan(plan); err != nil {
			return err
		}
		limits, err := custom.limits(plan)
		if err != nil {
			return err
		}
		return createKey(ctx, st, env, plan, name, email, limits)
	case "list":
		return listKeys(ctx, st, env)
	case "revoke":
		if len(rest) != 1 {
			return errors.New("usage: docmill keys revoke <prefix>")
		}
		k, err := st.RevokeKey(ctx, rest[0], time.Now())
		if err != nil {
			return fmt.Errorf("keys revoke: %w", err)
		}
		fmt.Fprintf(env.stdout, "revoked %s (%s)\n", k.Prefix, k.Name)
		return nil
	default: // set-plan
		if len(rest) != 2 {
			return errors.New("usage: docmill keys set-plan <prefix> <plan>")
		}
		if err := checkPlan(rest[1]); err != nil {
			return err
		}
		limits, err := custom.limits(rest[1])
		if err != nil {
			return err
		}
		a, err := st.SetPlan(ctx, rest[0], rest[1], limits)
		if err != nil {
			return fmt.Errorf("keys set-plan: %w", err)
		}
		fmt.Fprintf(env.stdout, "account %s (%s) is now on the %s plan\n", a.ID, a.Name, a.Plan)
		return nil
	}
}

func createKey(ctx context.Context, st docmill.Store, env *environment, plan, name, email string, limits *docmill.Plan) error {
	acct := &docmill.Account{Name: name, Email: email, Plan: plan, Limits: limits}
	key, _, err := docmill.CreateAccount(ctx, st, acct, name, time.Now())
	if err != nil {
		return fmt.Errorf("keys create: %w", err)
	}
	fmt.Fprintf(env.stdout, "created account %s (%s) on the %s plan\n", acct.ID, name, plan)
	fmt.Fprintf(env.stdout, "API key (shown once, store it now):\n%s\n", key)
	return nil
}

func listKeys(ctx context.Context, st docmill.Store, env *environment) error {
	rows, err := st.ListKeys(ctx)
	if err != nil {
		return err
	}
	tw := tabwriter.NewWriter(env.stdout, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "PREFIX\tNAME\tPLAN\tACCOUNT\tCREATED\tREVOKED")
	for _, r := range rows {
		revoked := "-"
		if r.Key.RevokedAt != nil {
			revoked = r.Key.RevokedAt.UTC().Format(time.RFC3339)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", r.Key.Prefix, r.Key.Name, r.Account.Plan, r.Account.ID,
			r.Key.CreatedAt.UTC().Format(time.RFC3339), revoked)
	}
	return tw.Flush()
}

// createDevKey gives a fresh installation one Pro key, printed once, so
// that `make run` leaves a new user with a key in hand.
func createDevKey(ctx context.Context, st docmill.Store, env *environment) error {
	rows, err := st.ListKeys(ctx)
	if err != nil || len(rows) > 0 {
		return err
	}
	fmt.Fprintln(env.stdout, "docmill: no API keys yet; creating a development key.")
	if err := createKey(ctx, st, env, docmill.PlanPro, "dev", "", nil); err != nil {
		return err
	}
	fmt.Fprintln(env.stdout, `docmill: more keys: docmill keys create --plan pro --name acme`)
	return nil
}
