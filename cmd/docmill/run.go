package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
)

const usage = `docmill: document processing service

Usage:
  docmill serve [flags]                      run the API and the workers
  docmill keys create --plan P --name N      create an account and its API key
  docmill keys list                          list keys
  docmill keys revoke <prefix>               revoke a key
  docmill keys set-plan <prefix> <plan>      move a key's account to a plan
  docmill migrate                            apply database migrations and exit
  docmill process --key K [-p n=v] TOOL FILE...   run a tool on a server and save the result
  docmill tools [--url U]                    list a server's tools
  docmill jobs list [--status S] [--tool T] [--all]   list your jobs on a server, newest first
  docmill jobs get|wait|cancel ID            show, wait for (long poll) or cancel a job

Every flag can also be set by an environment variable: --data-dir is
DOCMILL_DATA_DIR, --base-url is DOCMILL_BASE_URL, and so on.
Run "docmill <command> -h" for the flags of a command.
`

// run is the whole program; main only supplies the process's environment,
// so that tests can start the server in-process.
func run(ctx context.Context, args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return errors.New("no command given")
	}
	env := &environment{getenv: getenv, stdin: stdin, stdout: stdout, stderr: stderr}
	switch args[0] {
	case "serve":
		return serve(ctx, env, args[1:])
	case "keys":
		return keys(ctx, env, args[1:])
	case "migrate":
		return migrate(ctx, env, args[1:])
	case "process":
		return process(ctx, env, args[1:])
	case "tools":
		return tools(ctx, env, args[1:])
	case "jobs":
		return jobsCmd(ctx, env, args[1:])
	case "engine":
		return engine(ctx, env, args[1:])
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
		return nil
	}
	fmt.Fprint(stderr, usage)
	return fmt.Errorf("unknown command %q", args[0])
}

// environment is what run was given: the process's env and streams.
type environment struct {
	getenv         func(string) string
	stdin          io.Reader
	stdout, stderr io.Writer
}

// parse parses args into fs, then fills every flag not given on the command
// line from its DOCMILL_* environment variable (--data-dir: DOCMILL_DATA_DIR).
func (e *environment) parse(fs *flag.FlagSet, args []string) error {
	fs.SetOutput(e.stderr)
	if err := fs.Parse(args); err != nil {
		return err
	}
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	var err error
	fs.VisitAll(func(f *flag.Flag) {
		if given[f.Name] || err != nil {
			return
		}
		name := "DOCMILL_" + strings.ToUpper(strings.ReplaceAll(f.Name, "-", "_"))
		if v := e.getenv(name); v != "" {
			if serr := fs.Set(f.Name, v); serr != nil {
				err = fmt.Errorf("%s: %w", name, serr)
			}
		}
	})
	return err
}
