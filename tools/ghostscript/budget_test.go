package ghostscript_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	docmill "github.com/docmill/docmill"
	"github.com/docmill/docmill/tools/toolstest"
)

// formBomb is a one-page PDF of a few KB whose page draws a form that
// draws the next form twice, depth deep: 2^depth draws of a square, which
// keep Ghostscript's PDF writer busy far past its budget (depth 30:
// 5.6 KB, still running after the tools' 30.8 s budget here).
func formBomb(depth int) []byte {
	objs := []string{"<< /Type /Catalog /Pages 2 0 R >>", "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Resources << /XObject << /X 5 0 R >> >> /Contents 4 0 R >>",
		"<< /Length 14 >>\nstream\n72 72 cm /X Do\nendstream"}
	for i := range depth {
		body, res := "/X Do /X Do", fmt.Sprintf("/Resources << /XObject << /X %d 0 R >> >>", 6+i)
		if i == depth-1 {
			body, res = "0 0 1 1 re f", ""
		}
		objs = append(objs, fmt.Sprintf("<< /Type /XObject /Subtype /Form /BBox [0 0 500 500] %s /Length %d >>\nstream\n%s\nendstream", res, len(body), body))
	}
	return toolstest.PDF(objs...)
}

// TestWorkBudgetCutsGhostscriptHang: a 5.6 KB PDF that would hold
// Ghostscript for the tools' 5-minute timeout gets a budget of seconds
// from the tools' rates (docmill.WorkBudget), and a run given a deadline,
// as the job runner gives it the budget (jobs.TestHandedBackJobKeepsItsBudget),
// ends with the deadline's error, which the job runner fails as
// processing_timeout with meta.budget_ms. The run's deadline is the
// budget capped at cutAfter: the cut is the same whatever the deadline's
// length, and each full budget held a core for about 30 s.
func TestWorkBudgetCutsGhostscriptHang(t *testing.T) {
	const cutAfter = 3 * time.Second
	bomb := filepath.Join(t.TempDir(), "bomb.pdf")
	if err := os.WriteFile(bomb, formBomb(30), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, slug := range []string{"compress-pdf", "pdf-to-pdfa"} {
		t.Run(slug, func(t *testing.T) {
			t.Parallel()
			tl := tool(t, slug)
			p, err := tl.ParseParams(nil)
			if err != nil {
				t.Fatal(err)
			}
			dir := t.TempDir()
			in := &docmill.RunInput{Params: p, WorkDir: dir, Files: []docmill.LocalFile{inputFile(t, dir, bomb)}}
			budget := docmill.WorkBudget(tl, docmill.WorkSize{Bytes: in.Files[0].Size})
			if budget >= time.Minute || budget >= tl.Timeout {
				t.Fatalf("budget %v for a %d-byte PDF: want seconds, not the %v timeout", budget, in.Files[0].Size, tl.Timeout)
			}
			ctx, cancel := context.WithTimeout(context.Background(), min(budget, cutAfter))
			defer cancel()
			done := make(chan error, 1)
			go func() { _, err := tl.Invoke(ctx, in); done <- err }()
			select {
			case err = <-done:
			case <-time.After(cutAfter + 2*time.Minute): // a guard only
				t.Fatalf("%s still running %v past its budget of %v", slug, 2*time.Minute, budget)
			}
			if !errors.Is(err, context.DeadlineExceeded) {
				t.Fatalf("%s on the form bomb: %v (code %s), want its budget's deadline", slug, err, docmill.ErrorCode(err))
			}
			t.Logf("%s: budget %v, cut at its deadline of %v", slug, budget, min(budget, cutAfter))
		})
	}
}
