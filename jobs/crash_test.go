package jobs_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/docmill/docmill"
	"github.com/docmill/docmill/internal/poll"
	"github.com/docmill/docmill/jobs"
	"github.com/docmill/docmill/sandbox"
	"github.com/docmill/docmill/tools/toolstest"
)

// crashingTool is a tool whose engine is a real process, sh in the jail,
// that dies by the signals signals gives for each run (a crash it raises
// on itself, or a kill), classified as every engine's failure is
// (sandbox.Classify); past the list's end it succeeds. runs records the
// FreshEngines of each run. The engine is the one fake here, at the
// process boundary: what crashes an engine is the engine's business, what
// a crash means is the job runner's.
type crashingTool struct {
	mu      sync.Mutex
	signals []string
	fresh   []bool
}

func (c *crashingTool) tool(t *testing.T, slug string) *docmill.Tool {
	j := sandbox.NewJail(sandbox.JailOptions{})
	if !j.Confined() {
		toolstest.NeedCapability(t, "build a jail", errors.New(j.Why()))
	}
	sh := sandbox.Find("sh", nil, sandbox.Options{Jail: j})
	return &docmill.Tool{
		Slug: slug, MinFiles: 1, MaxFiles: 1, Accepts: []string{"text/plain"},
		Run: func(ctx context.Context, in *docmill.RunInput) (*docmill.RunOutput, error) {
			c.mu.Lock()
			n := len(c.fresh)
			c.fresh = append(c.fresh, in.FreshEngines)
			script := "true"
			if n < len(c.signals) {
				script = "kill -" + c.signals[n] + " $$"
			}
			c.mu.Unlock()
			if _, err := sh.Run(ctx, sandbox.Cmd{Dir: in.WorkDir, Args: []string{"-c", script}}); err != nil {
				return nil, sandbox.Classify(err, sandbox.Causes{Engine: "The test engine", Refused: "Refused."})
			}
			out := filepath.Join(in.WorkDir, "out.txt")
			if err := os.WriteFile(out, []byte("done"), 0o600); err != nil {
				return nil, err
			}
			return &docmill.RunOutput{Path: out, Filename: "out.txt", ContentType: "text/plain"}, nil
		},
	}
}

func (c *crashingTool) runs() []bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]bool(nil), c.fresh...)
}

// TestCrashRule: an engine that crashes the same way on both runs of one
// attempt fails the job at once as unprocessable_document, after two
// runs, the second on fresh engines, uncharged; a crash that does not
// come back is done; an engine killed from outside (SIGKILL) is never
// rerun within an attempt and stays internal, retried by River.
func TestCrashRule(t *testing.T) {
	t.Parallel()
	st, bucket := openData(t)
	clk := &clock{t: time.Now()}
	newQueue(t, st, bucket, clk) // River's tables
	acct := newAccount(t, st, clk)
	cases := []struct {
		name    string
		signals []string
		status  docmill.Status
		code    docmill.Code
		runs    []bool // FreshEngines of each run
		charged int64
	}{
		{"segfault twice", []string{"SEGV", "SEGV"}, docmill.StatusFailed, docmill.CodeUnprocessableDocument, []bool{false, true}, 0},
		{"abort twice", []string{"ABRT", "ABRT"}, docmill.StatusFailed, docmill.CodeUnprocessableDocument, []bool{false, true}, 0},
		{"crash once", []string{"SEGV"}, docmill.StatusDone, "", []bool{false, true}, 1},
		{"killed", []string{"KILL", "KILL", "KILL"}, docmill.StatusFailed, docmill.CodeInternal, []bool{false, false, false}, 0},
	}
	var charged int64
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := &crashingTool{signals: tc.signals}
			q := startWorkers(t, st, bucket, jobs.Config{Registry: docmill.NewRegistry(c.tool(t, "crash"))})
			defer q.Stop(context.Background())
			j := finishedJob(t, st, bucket, acct, "crash", nil)
			if j.Status != tc.status || (tc.code != "") != (j.Error != nil) || j.Error != nil && j.Error.Code != tc.code {
				t.Fatalf("job %s %+v, want %s %s", j.Status, j.Error, tc.status, tc.code)
			}
			if got := fmtBools(c.runs()); got != fmtBools(tc.runs) {
				t.Errorf("runs %q, want %q", got, fmtBools(tc.runs))
			}
			if tc.code == docmill.CodeUnprocessableDocument && !strings.Contains(j.Error.Message, "sh engine crashed on it twice") {
				t.Errorf("message %q", j.Error.Message)
			}
			charged += tc.charged
			u, err := st.Usage(t.Context(), acct.ID, "2026-11")
			if err != nil {
				t.Fatal(err)
			}
			if u.Operations != charged {
				t.Errorf("usage %+v, want %d operations charged in all", u, charged)
			}
		})
	}
}

func fmtBools(b []bool) string {
	s := make([]string, len(b))
	for i, v := range b {
		s[i] = map[bool]string{true: "fresh", false: "warm"}[v]
	}
	return strings.Join(s, " ")
}

// finishedJob creates a job of tool on a text input for acct, charged to
// 2026-11, with the export e (nil: none), and waits (20 s at most) for it
// to finish and for its export to end.
func finishedJob(t *testing.T, st docmill.Store, bucket docmill.BlobStore, acct *docmill.Account, tool string, e *docmill.Export) *docmill.Job {
	t.Helper()
	id := docmill.NewJobID()
	key := docmill.InputKey(id, 0)
	if _, err := bucket.Put(t.Context(), key, strings.NewReader("input"), "text/plain"); err != nil {
		t.Fatal(err)
	}
	j := &docmill.Job{ID: id, AccountID: acct.ID, Tool: tool, CreatedAt: time.Now(), ResultTTL: time.Hour,
		Inputs: []docmill.InputFile{{Key: key, Filename: "in.txt", ContentType: "text/plain", Size: 5}}, Export: e}
	if _, err := st.CreateJob(t.Context(), j, docmill.Admission{Period: "2026-11"}); err != nil {
		t.Fatal(err)
	}
	poll.Until(t, 20*time.Second, func() (bool, string) {
		var err error
		if j, err = st.Job(t.Context(), id); err != nil {
			t.Fatal(err)
		}
		if j.Export != nil && j.Export.Status == docmill.ExportPending {
			return false, fmt.Sprintf("export still %s, job %s %+v", j.Export.Status, j.Status, j.Error)
		}
		return j.Status.Finished(), "job still " + string(j.Status)
	})
	return j
}
