package main

import (
	"context"
	"fmt"
	"runtime"
	"runtime/debug"
)

// Set at link time by the Makefile:
//
//	-ldflags "-X main.version=v1.2.3 -X main.revision=abc123 -X main.buildTime=2026-11-27T22:00:00Z"
//
// Empty ones are taken from the VCS stamp Go records when it builds in a
// checkout with -buildvcs on (buildIdentity).
var version, revision, buildTime string

// build says which build of docmill runs: docmill version, /healthz and
// the docmill_build_info metric show it.
type build struct {
	Version   string `json:"version"`
	Revision  string `json:"revision"`
	BuildTime string `json:"build_time"`
	Go        string `json:"go"`
}

// buildIdentity is this binary's build: what the linker was given, else
// the module version and VCS stamp, else "devel" and "unknown".
func buildIdentity() build {
	b := build{Version: version, Revision: revision, BuildTime: buildTime, Go: runtime.Version()}
	if bi, ok := debug.ReadBuildInfo(); ok {
		if v := bi.Main.Version; b.Version == "" && v != "" && v != "(devel)" {
			b.Version = v
		}
		modified := false
		for _, s := range bi.Settings {
			switch {
			case s.Key == "vcs.revision" && b.Revision == "":
				b.Revision = s.Value
			case s.Key == "vcs.time" && b.BuildTime == "":
				b.BuildTime = s.Value // the commit's time, the closest the stamp has
			case s.Key == "vcs.modified":
				modified = s.Value == "true"
			}
		}
		if modified && revision == "" && b.Revision != "" {
			b.Revision += "-dirty"
		}
	}
	if b.Version == "" {
		b.Version = "devel"
	}
	if b.Revision == "" {
		b.Revision = "unknown"
	}
	if b.BuildTime == "" {
		b.BuildTime = "unknown"
	}
	return b
}

// versionCmd prints the build: one line, or with --json its fields.
func versionCmd(_ context.Context, env *environment, args []string) error {
	fs := newFlags("version", "version [--json]")
	asJSON := fs.Bool("json", false, "print version, revision, build_time and go as JSON")
	if err := env.parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usagef("version takes no arguments")
	}
	b := buildIdentity()
	if *asJSON {
		return printJSON(env, b)
	}
	_, err := fmt.Fprintf(env.stdout, "docmill %s (revision %s, built %s, %s)\n", b.Version, b.Revision, b.BuildTime, b.Go)
	return err
}
