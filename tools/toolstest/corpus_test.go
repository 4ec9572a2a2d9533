package toolstest

import (
	"fmt"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// corpusRecorder records what Corpus asks of its test, which it stops
// as a test is stopped: the goroutine of corpusCall ends.
type corpusRecorder struct {
	testing.TB
	skipped, failed string
}

func (r *corpusRecorder) Helper()          {}
func (r *corpusRecorder) Skip(args ...any) { r.skipped = fmt.Sprint(args...); runtime.Goexit() }
func (r *corpusRecorder) Fatalf(format string, args ...any) {
	r.failed = fmt.Sprintf(format, args...)
	runtime.Goexit()
}

// corpusCall calls Corpus(parts) for a recorder of t, in a goroutine
// of its own, and returns the path and the recorder.
func corpusCall(t *testing.T, parts ...string) (string, *corpusRecorder) {
	r := &corpusRecorder{TB: t}
	var path string
	done := make(chan struct{})
	go func() {
		defer close(done)
		path = Corpus(r, parts...)
	}()
	<-done
	return path, r
}

// TestCorpusOnlyFromEnv: the corpus is read only from the directory
// DOCMILL_CORPUS names; unset, Corpus skips with one line, CI or not;
// set to a missing directory, it fails; relative, it is below the
// module's root.
func TestCorpusOnlyFromEnv(t *testing.T) {
	t.Setenv("CI", "true")
	t.Setenv(CorpusEnv, "")
	_, r := corpusCall(t, "pdf", "a.pdf")
	if !strings.Contains(r.skipped, CorpusEnv+" is not set") || strings.Contains(r.skipped, "\n") || r.failed != "" {
		t.Errorf("unset: skipped %q, failed %q", r.skipped, r.failed)
	}
	if _, ok := CorpusIfPresent("pdf"); ok {
		t.Error("CorpusIfPresent found a corpus with the variable unset")
	}

	t.Setenv(CorpusEnv, filepath.Join(t.TempDir(), "missing"))
	_, r = corpusCall(t, "pdf", "a.pdf")
	if r.failed == "" || r.skipped != "" {
		t.Errorf("missing directory: skipped %q, failed %q", r.skipped, r.failed)
	}

	t.Setenv(CorpusEnv, "tools") // relative: below the module's root
	got, r := corpusCall(t, "toolstest")
	if want, _ := filepath.Abs("../toolstest"); got != want || r.failed != "" || r.skipped != "" {
		t.Errorf("relative: %q (skipped %q, failed %q), want %q", got, r.skipped, r.failed, want)
	}
}
