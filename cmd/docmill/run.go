package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"
)

const usage = `docmill: document processing service

Usage:
  docmill serve [flags]                      run the API and the workers
  docmill accounts list                      list accounts, their status and keys
  docmill accounts show ACCOUNT              show an account, its keys and this month's use
  docmill accounts create --plan P --name N  create an account and its first API key
  docmill accounts suspend|resume ACCOUNT    refuse an account's keys (403), or accept them again
  docmill accounts delete ACCOUNT            delete an account with its jobs, files, keys, webhooks
  docmill accounts set-plan ACCOUNT PLAN     move an account to a plan
  docmill accounts revoke-key PREFIX         revoke a key
  docmill migrate                            apply database migrations and exit
  docmill backup --to PATH [--with-files]    copy the embedded database (and files) while the server runs
  docmill restore --from PATH [--force]      make an embedded data directory from a backup
  docmill process [-p n=v] TOOL FILE...     run a tool on a server and save the result
  docmill tools                              list a server's tools, their params and defaults
  docmill jobs list [--status S] [--tool T] [--all]   list your jobs on a server, newest first
  docmill jobs get|wait|cancel ID            show, wait for (long poll) or cancel a job
  docmill webhooks create|list|delete|rotate-secret|deliveries   manage your webhook endpoints
  docmill keys list|create|rename|revoke     manage your account's API keys on a server
  docmill jobs download [-o FILE] ID         wait for a job and save its result
  docmill version [--json]                   print the version, revision and build time

ACCOUNT is an account id (acct_...), its email or a key prefix (dm_live_...);
the accounts commands work on the database (--data-dir or --database-url).

Every flag can also be set by an environment variable: --data-dir is
DOCMILL_DATA_DIR, --url is DOCMILL_URL, --key is DOCMILL_KEY, and so on.
Flags may come before or after the other arguments ("--" ends them).
Run "docmill <command> -h" for the flags of a command.
Exit codes: 0 done, 1 job failed (or other failure), 64 usage, 65 request
refused (4xx), 66 no such file or database, 69 server failure (5xx),
75 network failure, 130 interrupted; see docs/cli.md.
`

// run is the whole program; main only supplies the process's environment,
// so that tests can start the server in-process.
func run(ctx context.Context, args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return usagef("no command given")
	}
	env := &environment{getenv: getenv, stdin: stdin, stdout: stdout, stderr: stderr}
	err := dispatch(ctx, env, args)
	if errors.Is(err, errHelp) {
		return nil
	}
	return err
}

// commands are docmill's commands by name; engine is started by the
// server, and docs (docs/tools.md) is for developers: neither is in the
// usage.
var commands = map[string]command{
	"serve": serve, "accounts": accounts, "keys": keysCmd, "migrate": migrate,
	"backup": backupCmd, "restore": restoreCmd, "process": process, "tools": tools,
	"jobs": jobsCmd, "webhooks": webhooksCmd, "version": versionCmd,
	"engine": engine, "docs": docsCmd,
}

// dispatch runs the command args name.
func dispatch(ctx context.Context, env *environment, args []string) error {
	if run, ok := commands[args[0]]; ok {
		return run(ctx, env, args[1:])
	}
	switch args[0] {
	case "help", "-h", "--help":
		fmt.Fprint(env.stdout, usage)
		return nil
	}
	fmt.Fprint(env.stderr, usage)
	return usagef("unknown command %q", args[0])
}

// environment is what run was given: the process's env and streams.
type environment struct {
	getenv         func(string) string
	stdin          io.Reader
	stdout, stderr io.Writer
}

// errHelp is returned by a command whose help was asked for (-h, --help)
// and printed; run then ends without an error.
var errHelp = errors.New("help requested")

// isHelp reports whether arg asks for help.
func isHelp(arg string) bool {
	return arg == "-h" || arg == "--help" || arg == "-help" || arg == "help"
}

// newFlags returns the flag set of a command; synopsis is its usage line
// after "docmill ", printed with the flags on -h.
func newFlags(name, synopsis string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: docmill %s\n", synopsis)
		n := 0
		fs.VisitAll(func(*flag.Flag) { n++ })
		if n > 0 {
			fmt.Fprintln(fs.Output(), "\nflags (each also from its DOCMILL_* variable):")
			fs.PrintDefaults()
		}
	}
	return fs
}

// parse parses args into fs, flags before or after the positional
// arguments (interspersed), then fills every flag not given on the command
// line from its DOCMILL_* environment variable (--data-dir: DOCMILL_DATA_DIR).
// -h or --help prints the usage on stdout and returns errHelp.
// A repeatable flag takes comma-separated values from its variable
// (DOCMILL_TOOL_TIMEOUT="ocr-pdf=20m,compress-pdf=1m"). A bad value is
// refused with the variable, the value and what the flag wants.
func (e *environment) parse(fs *flag.FlagSet, args []string) error {
	fs.SetOutput(io.Discard)
	if err := fs.Parse(interspersed(fs, args)); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fs.SetOutput(e.stdout)
			fs.Usage()
			return errHelp
		}
		return &usageError{fmt.Errorf("%w (docmill %s -h shows the flags)", err, fs.Name())}
	}
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	var err error
	fs.VisitAll(func(f *flag.Flag) {
		if given[f.Name] || err != nil {
			return
		}
		name := "DOCMILL_" + strings.ToUpper(strings.ReplaceAll(f.Name, "-", "_"))
		v := e.getenv(name)
		if v == "" {
			return
		}
		values := []string{v}
		if _, ok := f.Value.(repeatable); ok {
			values = strings.Split(v, ",")
		}
		for _, one := range values {
			if serr := fs.Set(f.Name, strings.TrimSpace(one)); serr != nil {
				err = &usageError{envError(name, v, f, serr)}
				return
			}
		}
	})
	return err
}

// envError says why the value v of the variable name does not suit f.
func envError(name, v string, f *flag.Flag, err error) error {
	if g, ok := f.Value.(flag.Getter); ok {
		want := ""
		switch g.Get().(type) {
		case int, int64, uint, uint64:
			want = "a whole number"
		case float64:
			want = "a number"
		case bool:
			want = "true or false"
		case time.Duration:
			want = "a duration such as 90s, 5m or 1h30m"
		}
		if want != "" {
			return fmt.Errorf("%s=%q: --%s wants %s", name, v, f.Name, want)
		}
	}
	return fmt.Errorf("%s=%q: --%s: %w", name, v, f.Name, err)
}

// repeatable is a flag that may be given several times, each value set
// by the function; its environment variable holds them comma-separated.
type repeatable func(string) error

func (r repeatable) String() string     { return "" }
func (r repeatable) Set(v string) error { return r(v) }

// interspersed moves the flags of args before its positional arguments,
// so that a flag after them is still a flag ("process TOOL FILE -p x=y");
// "--" ends the flags, and "-" alone is an argument.
func interspersed(fs *flag.FlagSet, args []string) []string {
	var flags, pos []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			pos = append(pos, args[i+1:]...)
			break
		}
		if len(a) < 2 || a[0] != '-' {
			pos = append(pos, a)
			continue
		}
		flags = append(flags, a)
		name := strings.TrimLeft(a, "-")
		if strings.Contains(name, "=") {
			continue
		}
		f := fs.Lookup(name)
		if f == nil {
			continue // Parse reports it
		}
		if b, ok := f.Value.(interface{ IsBoolFlag() bool }); ok && b.IsBoolFlag() {
			continue
		}
		if i+1 < len(args) {
			flags = append(flags, args[i+1])
			i++
		}
	}
	return append(append(flags, "--"), pos...)
}
