package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"

	"github.com/docmill/docmill/client"
)

// clientFlags locate a docmill server and the caller's key.
type clientFlags struct {
	url string
	key string
}

func (c *clientFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&c.url, "url", "http://localhost:8080", "address of the docmill server")
	fs.StringVar(&c.key, "key", "", "API key (dm_live_...)")
}

// paramFlags collect repeated -p name=value tool parameters.
type paramFlags map[string]string

func (p paramFlags) String() string { return fmt.Sprint(map[string]string(p)) }

func (p paramFlags) Set(v string) error {
	name, value, ok := strings.Cut(v, "=")
	if !ok || name == "" {
		return fmt.Errorf("want name=value, got %q", v)
	}
	p[name] = value
	return nil
}

// process runs a tool on a server, as a client: it uploads the files,
// waits for the job and downloads the result.
func process(ctx context.Context, env *environment, args []string) error {
	fs := flag.NewFlagSet("process", flag.ContinueOnError)
	var cf clientFlags
	cf.register(fs)
	params := paramFlags{}
	fs.Var(params, "p", "tool parameter name=value (repeatable)")
	out := fs.String("out", "", "where to save the result (default: its name, in the current directory)")
	async := fs.Bool("async", false, "print the job and exit without waiting")
	if err := env.parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() < 2 {
		return errors.New("usage: docmill process [flags] <tool> <file> [<file>...]")
	}
	var files []client.File
	for _, name := range fs.Args()[1:] {
		f, err := os.Open(name)
		if err != nil {
			return err
		}
		defer f.Close()
		files = append(files, client.File{Name: filepath.Base(name), Body: f})
	}
	c := client.New(cf.url, cf.key)
	opts := client.ProcessOptions{Params: params}
	if *async {
		opts.Prefer = "respond-async"
	}
	j, _, err := c.Process(ctx, fs.Arg(0), files, opts)
	if err != nil {
		return err
	}
	if !*async && !j.Finished() {
		if j, err = c.WaitJob(ctx, j.JobID, 0); err != nil { // long polls: the result as soon as it is ready
			return err
		}
	}
	if err := printJSON(env, j); err != nil || *async || j.Status != "done" {
		return err
	}
	path := *out
	if path == "" {
		path = j.Result.Filename
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := c.Download(ctx, j.Result.URL, f); err != nil {
		f.Close()
		os.Remove(path)
		return err
	}
	fmt.Fprintf(env.stderr, "saved %s (%d bytes)\n", path, j.Result.Size)
	return f.Close()
}

// tools prints a server's tool catalogue.
func tools(ctx context.Context, env *environment, args []string) error {
	fs := flag.NewFlagSet("tools", flag.ContinueOnError)
	var cf clientFlags
	cf.register(fs)
	if err := env.parse(fs, args); err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimRight(cf.url, "/")+"/v1/tools", nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	var cat struct {
		Tools []struct {
			Slug, Title string
			Available   bool
			Params      []struct{ Name string }
		}
	}
	if err := json.NewDecoder(resp.Body).Decode(&cat); err != nil {
		return fmt.Errorf("tools: %w", err)
	}
	for _, t := range cat.Tools {
		var names []string
		for _, p := range t.Params {
			names = append(names, p.Name)
		}
		state := ""
		if !t.Available {
			state = " (unavailable)"
		}
		fmt.Fprintf(env.stdout, "%-16s %s%s  [%s]\n", t.Slug, t.Title, state, strings.Join(names, ", "))
	}
	return nil
}

func printJSON(env *environment, v any) error {
	enc := json.NewEncoder(env.stdout)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}
