package toolstest

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	docmill "github.com/docmill/docmill"
)

// selfSuiteEnv tells the test binary, run again by TestConformanceChecks,
// which suite TestConformanceSelf runs: "current" (Known up to date) or
// "stale" (a Known entry that passes, a slow input the tool outruns).
const selfSuiteEnv = "DOCMILL_CONFORM_SELF"

// copyTool returns a tool of text files that copies its input. With
// waits, an input reading "slow" keeps it running until its context is
// canceled (an event, no clock); without, it copies whatever it gets.
func copyTool(slug string, waits bool) *docmill.Tool {
	return &docmill.Tool{
		Slug: slug, Title: slug, Engine: "test", Accepts: []string{"text/plain"}, Outputs: []string{"text/plain"},
		MinFiles: 1, MaxFiles: 1, Timeout: time.Minute,
		Run: func(ctx context.Context, in *docmill.RunInput) (*docmill.RunOutput, error) {
			b, err := os.ReadFile(in.Files[0].Path)
			if err != nil {
				return nil, err
			}
			if waits && string(b) == "slow" {
				<-ctx.Done()
				return nil, ctx.Err()
			}
			name := docmill.ResultName(in.Files[0].Filename, ".txt", "-copy.txt")
			out := filepath.Join(in.WorkDir, name)
			return &docmill.RunOutput{Path: out, Filename: name, ContentType: "text/plain"}, os.WriteFile(out, b, 0o600)
		},
	}
}

// TestConformanceSelf runs the suite over copy tools when run by
// TestConformanceChecks, and skips otherwise.
func TestConformanceSelf(t *testing.T) {
	which := os.Getenv(selfSuiteEnv)
	if which == "" {
		t.Skip("run by TestConformanceChecks")
	}
	known := map[string]string{"ignores-context/Cancel": "it never reads its context"}
	if which == "stale" {
		known = map[string]string{"quick-copy/Cancel": "listed though it passes"}
	}
	Conformance(t, Suite{
		Registry: docmill.NewRegistry(copyTool("quick-copy", false), copyTool("waits-copy", true), copyTool("ignores-context", false)),
		Sample: func(t *testing.T, _ *docmill.Tool, _ string) string {
			return WriteTemp(t, "note.txt", []byte("quick\n"))
		},
		Slow: func(t *testing.T, tool *docmill.Tool) (string, string) {
			if tool.Slug == "quick-copy" {
				return "", ""
			}
			return WriteTemp(t, "slow.txt", []byte("slow")), "text/plain"
		},
		Known: known,
	})
}

// TestConformanceChecks: the cancel check reports how many tools it
// canceled mid-run, fails a tool that outruns its slow input, and a Known
// failure is run again: still failing, it skips with its failure; passing,
// it fails the suite so that it is removed.
func TestConformanceChecks(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	run := func(which string) (string, error) {
		cmd := exec.Command(exe, "-test.run", "^TestConformanceSelf$", "-test.v", "-test.count=1")
		cmd.Env = append(os.Environ(), selfSuiteEnv+"="+which)
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	out, err := run("current")
	if err != nil {
		t.Fatalf("the current suite failed: %v\n%s", err, out)
	}
	for _, want := range []string{
		"cancel check: 1 tool(s) canceled mid-run, 2 finished before the cancellation",
		"known failure (it never reads its context), still failing: finished before its cancellation",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the current suite does not say %q:\n%s", want, out)
		}
	}
	out, err = run("stale")
	if err == nil {
		t.Fatalf("the stale suite passed:\n%s", out)
	}
	for _, want := range []string{
		"listed as a known failure (listed though it passes), but it passes now: remove it from Suite.Known",
		"ignores-context/Cancel", "even on the slow input",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the stale suite does not say %q:\n%s", want, out)
		}
	}
}
