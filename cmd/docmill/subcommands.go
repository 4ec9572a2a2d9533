package main

import (
	"context"
	"fmt"
	"text/tabwriter"
)

// command is a subcommand of a group (keys, webhooks, jobs), run with the
// arguments after its name.
type command func(ctx context.Context, env *environment, args []string) error

// runCommand runs the command of group that args[0] names; with no
// argument, help or an unknown name it prints the group's usage.
func runCommand(ctx context.Context, env *environment, args []string, group, usage string, cmds map[string]command) error {
	if len(args) == 0 {
		return usagef("%s", usage)
	}
	if isHelp(args[0]) {
		fmt.Fprintln(env.stdout, usage)
		return errHelp
	}
	if run, ok := cmds[args[0]]; ok {
		return run(ctx, env, args[1:])
	}
	return usagef("unknown %s command %q\n%s", group, args[0], usage)
}

// printList prints rows as one JSON array (empty, never null) with
// asJSON; else as a table, header then a line a row, row giving its
// tab-separated cells.
func printList[T any](env *environment, asJSON bool, rows []T, header string, row func(T) string) error {
	if asJSON {
		if rows == nil {
			rows = []T{}
		}
		return printJSON(env, rows)
	}
	tw := tabwriter.NewWriter(env.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, header)
	for _, r := range rows {
		fmt.Fprintln(tw, row(r))
	}
	return tw.Flush()
}
