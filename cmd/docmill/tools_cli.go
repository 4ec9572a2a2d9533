package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/docmill/docmill/client"
)

// tools prints a server's tool catalogue: each tool, the files it takes
// and its params with their types, defaults and choices or bounds.
func tools(ctx context.Context, env *environment, args []string) error {
	fs := newFlags("tools", "tools [--json] [flags] [TOOL...]  (the catalogue, or the named tools)")
	var cf clientFlags
	cf.register(fs)
	asJSON := fs.Bool("json", false, "print the catalogue entries as JSON")
	if err := env.parse(fs, args); err != nil {
		return err
	}
	c := client.New(cf.url, cf.key)
	c.Retry.MaxAttempts = max(0, cf.retries) + 1
	var list []client.Tool
	if fs.NArg() == 0 {
		all, err := c.Tools(ctx)
		if err != nil {
			return err
		}
		list = all
	}
	for _, slug := range fs.Args() {
		t, err := c.Tool(ctx, slug)
		if err != nil {
			return err
		}
		list = append(list, *t)
	}
	if *asJSON {
		return printJSON(env, list)
	}
	tw := tabwriter.NewWriter(env.stdout, 0, 4, 2, ' ', 0)
	for i, t := range list {
		if i > 0 {
			fmt.Fprintln(tw)
		}
		state := ""
		if !t.Available {
			state = "  (unavailable on this server)"
		}
		fmt.Fprintf(tw, "%s: %s (%s)%s\n", t.Slug, t.Title, fileCount(t), state)
		for _, p := range t.Params {
			fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\n", p.Name, p.Type, paramDefault(p), paramChoices(p))
		}
	}
	return tw.Flush()
}

// fileCount says how many files a tool takes.
func fileCount(t client.Tool) string {
	switch {
	case t.MaxFiles == 0: // url-to-pdf: its params say what to work on
		return "no file"
	case t.MinFiles == t.MaxFiles && t.MaxFiles == 1:
		return "1 file"
	case t.MinFiles == t.MaxFiles:
		return fmt.Sprintf("%d files", t.MaxFiles)
	}
	return fmt.Sprintf("%d-%d files", t.MinFiles, t.MaxFiles)
}

// paramDefault is "required", the default, or "-".
func paramDefault(p client.Param) string {
	switch {
	case p.Required:
		return "required"
	case p.Default != "":
		return "default " + p.Default
	}
	return "-"
}

// paramChoices lists an enum's values, or a number's (a string's length)
// bounds.
func paramChoices(p client.Param) string {
	num := func(f *float64) string { return strconv.FormatFloat(*f, 'f', -1, 64) }
	switch {
	case len(p.Enum) > 0:
		return strings.Join(p.Enum, "|")
	case p.Min != nil && p.Max != nil:
		return num(p.Min) + ".." + num(p.Max)
	case p.Min != nil:
		return ">= " + num(p.Min)
	case p.Max != nil:
		return "<= " + num(p.Max)
	}
	return ""
}

// printJSON prints v as the API does: indented by two spaces, HTML left
// unescaped, so a job record printed is the API's body.
func printJSON(env *environment, v any) error {
	enc := json.NewEncoder(env.stdout)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}
