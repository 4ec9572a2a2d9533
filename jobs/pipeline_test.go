package jobs_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/docmill/docmill"
	"github.com/docmill/docmill/jobs"
)

// stepTool is a tool for the pipeline's runner: it writes its input's
// bytes and its own slug to out-<slug>.txt in its work directory, after
// checking that its input is there (not elsewhere in the scratch), or
// fails with fail, or blocks until its context ends when block.
func stepTool(slug string, fail error, block bool) *docmill.Tool {
	return &docmill.Tool{
		Slug: slug, Accepts: []string{"text/plain"}, Outputs: []string{"text/plain"}, MinFiles: 1, MaxFiles: 1,
		Timeout: 50 * time.Millisecond,
		Run: func(ctx context.Context, in *docmill.RunInput) (*docmill.RunOutput, error) {
			if block {
				<-ctx.Done()
				return nil, ctx.Err()
			}
			if fail != nil {
				return nil, fail
			}
			f := in.Files[0]
			if filepath.Dir(f.Path) != in.WorkDir || !strings.HasPrefix(filepath.Base(f.Path), "input-0") {
				return nil, errors.New("input not in the work directory: " + f.Path)
			}
			b, err := os.ReadFile(f.Path)
			if err != nil {
				return nil, err
			}
			out := filepath.Join(in.WorkDir, "out-"+slug+".txt")
			if err := os.WriteFile(out, append(b, slug+" "...), 0o600); err != nil {
				return nil, err
			}
			name := strings.TrimSuffix(f.Filename, ".txt") + "-" + slug + ".txt"
			return &docmill.RunOutput{Path: out, Filename: name, ContentType: "text/plain; charset=utf-8", Meta: map[string]any{"slug": slug}}, nil
		},
	}
}

func runPipeline(t *testing.T, steps string, tools ...*docmill.Tool) (*docmill.RunOutput, error) {
	t.Helper()
	pipe := jobs.PipelineTool(docmill.NewRegistry(tools...), time.Minute)
	dir := t.TempDir()
	in := filepath.Join(dir, "input-0.txt")
	if err := os.WriteFile(in, []byte("start "), 0o600); err != nil {
		t.Fatal(err)
	}
	return pipe.Invoke(context.Background(), &docmill.RunInput{
		Files:   []docmill.LocalFile{{Path: in, Filename: strings.Repeat("long", 40) + ".txt", ContentType: "text/plain", Size: 6}},
		Params:  docmill.Params{docmill.StepsParam: steps},
		WorkDir: dir,
	})
}

func TestPipelineRun(t *testing.T) {
	t.Parallel()
	bad := docmill.InvalidDocument(nil, "The file is damaged.")
	tools := []*docmill.Tool{stepTool("a", nil, false), stepTool("b", nil, false), stepTool("bad", bad, false),
		stepTool("slow", nil, true), stepTool("crash", errors.New("engine crashed"), false)}
	// A step whose timeout is long but whose rates give its 6-byte input
	// 30 ms: cut at its work budget.
	budgeted := stepTool("budgeted", nil, true)
	budgeted.Timeout, budgeted.Rates = time.Minute, docmill.WorkRates{Base: 30 * time.Millisecond}
	tools = append(tools, budgeted)

	out, err := runPipeline(t, `[{"tool": "a"}, {"tool": "b"}, {"tool": "a"}]`, tools...)
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(out.Path); string(b) != "start a b a " {
		t.Errorf("result %q; want each step's output the next one's input", b)
	}
	steps, _ := out.Meta["steps"].([]map[string]any)
	if len(steps) != 3 || steps[1]["tool"] != "b" || steps[1]["meta"].(map[string]any)["slug"] != "b" {
		t.Errorf("meta %v", out.Meta)
	}
	// The name each step passes on is bounded; the last step's suffix stays.
	if len(out.Filename) > 140 || !strings.HasSuffix(out.Filename, "-a.txt") {
		t.Errorf("result name %q (%d bytes)", out.Filename, len(out.Filename))
	}

	tests := []struct {
		name, steps string
		code        docmill.Code
		prefix      string
		field       string
	}{
		{"a step refuses its input", `[{"tool": "a"}, {"tool": "bad"}, {"tool": "b"}]`, docmill.CodeInvalidDocument, "Step 2 (bad): The file is damaged.", "steps[1]"},
		{"a step past its timeout", `[{"tool": "slow"}]`, docmill.CodeProcessingTimeout, "Step 1 (slow): Processing took longer than this step's work budget of 50ms", "steps[0]"},
		{"a step past its work budget", `[{"tool": "budgeted"}]`, docmill.CodeProcessingTimeout, "Step 1 (budgeted): Processing took longer than this step's work budget of 30ms", "steps[0]"},
		{"an engine crash stays internal (retried)", `[{"tool": "a"}, {"tool": "crash"}]`, docmill.CodeInternal, "Step 2 (crash): An internal error", "steps[1]"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := runPipeline(t, tc.steps, tools...)
			e := docmill.AsError(err)
			if e.Code != tc.code || !strings.HasPrefix(e.Message, tc.prefix) || len(e.Fields) == 0 || e.Fields[0].Field != tc.field {
				t.Fatalf("error %v (%+v); want %s %q naming %s", err, e.Fields, tc.code, tc.prefix, tc.field)
			}
			if errors.Is(err, context.DeadlineExceeded) {
				t.Error("a step's timeout must not read as the job's own (the runner would rewrite its message)")
			}
		})
	}
}
