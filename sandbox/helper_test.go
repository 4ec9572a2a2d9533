package sandbox_test

import (
	"context"
	"errors"
	"fmt"
	"github.com/docmill/docmill/tools/toolstest"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/docmill/docmill"
	"github.com/docmill/docmill/sandbox"
)

// TestMain lets this test binary serve as a helper (`<binary> engine
// test`), with helperTools, as docmill's binary does with the PDF tools.
func TestMain(m *testing.M) {
	if len(os.Args) > 2 && os.Args[1] == "engine" {
		if err := sandbox.ServeHelper(context.Background(), os.Stdin, os.Stdout, docmill.NewRegistry(helperTools()...), helperSteps()...); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// helperSteps are served beside helperTools: "shout" runs copy's Run as a
// step of one file.
func helperSteps() []*docmill.EngineStep {
	copyTool, _ := docmill.NewRegistry(helperTools()...).Lookup("copy")
	return []*docmill.EngineStep{{Name: "shout", MinFiles: 1, MaxFiles: 1, Run: copyTool.Run}}
}

// TestHelperStep: a step runs in the helper by its name, as a tool does,
// and its declared file count holds.
func TestHelperStep(t *testing.T) {
	h := newHelpers(t)
	shout := h.Step(helperSteps()[0])
	in := input(t, "step")
	out, err := shout(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(out.Path); err != nil || string(b) != "STEP" || filepath.Dir(out.Path) != in.WorkDir {
		t.Errorf("output %s: %q, %v", out.Path, b, err)
	}
	in.Files = append(in.Files, in.Files[0])
	if _, err := shout(context.Background(), in); err == nil || !strings.Contains(err.Error(), "given 2 files") {
		t.Errorf("two files to a step of one: %v", err)
	}
}

// helperTools misbehave on demand, as a hostile document can make a
// parser misbehave.
func helperTools() []*docmill.Tool {
	tool := func(slug string, run docmill.RunFunc) *docmill.Tool {
		return &docmill.Tool{Slug: slug, MinFiles: 1, MaxFiles: 1, Run: run}
	}
	return []*docmill.Tool{
		// copy writes its input, upper-cased, to the output.
		tool("copy", func(_ context.Context, in *docmill.RunInput) (*docmill.RunOutput, error) {
			b, err := os.ReadFile(in.Files[0].Path)
			if err != nil {
				return nil, err
			}
			out := filepath.Join(in.WorkDir, "out.txt")
			if err := os.WriteFile(out, []byte(strings.ToUpper(string(b))), 0o600); err != nil {
				return nil, err
			}
			return &docmill.RunOutput{Path: out, Filename: "out.txt", ContentType: "text/plain", Meta: map[string]any{"pages": 3, "pid": os.Getpid()}}, nil
		}),
		// peek reports whether it can see the path in params "path".
		tool("peek", func(_ context.Context, in *docmill.RunInput) (*docmill.RunOutput, error) {
			_, err := os.Stat(in.Params.String("path"))
			out := filepath.Join(in.WorkDir, "peek.txt")
			if err := os.WriteFile(out, nil, 0o600); err != nil {
				return nil, err
			}
			return &docmill.RunOutput{Path: out, Filename: "peek.txt", Meta: map[string]any{"visible": err == nil}}, nil
		}),
		tool("refuse", func(context.Context, *docmill.RunInput) (*docmill.RunOutput, error) {
			return nil, docmill.ParamError("angle", "must be 90, 180 or 270")
		}),
		tool("panic", func(context.Context, *docmill.RunInput) (*docmill.RunOutput, error) {
			panic("a parser's bad day")
		}),
		tool("exit", func(context.Context, *docmill.RunInput) (*docmill.RunOutput, error) {
			os.Exit(3)
			return nil, nil
		}),
		// killed dies as the kernel's OOM killer or an operator kills it.
		tool("killed", func(context.Context, *docmill.RunInput) (*docmill.RunOutput, error) {
			_ = syscall.Kill(os.Getpid(), syscall.SIGKILL)
			select {} // never reached: a SIGKILL to itself ends the process before kill returns
		}),
		// hog holds ever more memory, as a decompression bomb does.
		tool("hog", func(context.Context, *docmill.RunInput) (*docmill.RunOutput, error) {
			held := map[int][]byte{}
			for n := 0; ; n++ {
				b := make([]byte, 16<<20)
				for i := range b {
					b[i] = byte(i)
				}
				held[n] = b
			}
		}),
		tool("hang", func(ctx context.Context, _ *docmill.RunInput) (*docmill.RunOutput, error) {
			select {} // the hang a timeout must end: it heeds no context
		}),
	}
}

// newHelpers is a pool of one helper of this test binary, with a 256 MB
// memory cap.
func newHelpers(t *testing.T) *sandbox.Helpers {
	t.Helper()
	jail := sandbox.NewJail(sandbox.JailOptions{Memory: 256 << 20})
	if !jail.Confined() {
		toolstest.NeedCapability(t, "build a jail", errors.New(jail.Why()))
	}
	h, err := sandbox.NewHelpers(sandbox.SelfEngine("test-helper", sandbox.Options{Jail: jail}), []string{"engine", "test"}, sandbox.HelperOptions{Size: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(h.Close)
	return h
}

// input makes a job directory holding one input file.
func input(t *testing.T, content string) *docmill.RunInput {
	t.Helper()
	dir := t.TempDir()
	p := filepath.Join(dir, "input-0.txt")
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return &docmill.RunInput{WorkDir: dir, Files: []docmill.LocalFile{{Path: p, Filename: "a.txt", ContentType: "text/plain"}}, Params: docmill.Params{}}
}

// TestHelperRuns: a job runs in the helper and its output comes back into
// the job's directory; the warm helper serves the next job too.
func TestHelperRuns(t *testing.T) {
	h := newHelpers(t)
	var pids []any
	for i := range 3 {
		in := input(t, fmt.Sprintf("hello %d", i))
		out, err := h.Run(context.Background(), "copy", in)
		if err != nil {
			t.Fatal(err)
		}
		if filepath.Dir(out.Path) != in.WorkDir {
			t.Errorf("output at %s, want in %s", out.Path, in.WorkDir)
		}
		b, err := os.ReadFile(out.Path)
		if err != nil || string(b) != fmt.Sprintf("HELLO %d", i) {
			t.Errorf("output %q, %v", b, err)
		}
		if fmt.Sprint(out.Meta["pages"]) != "3" {
			t.Errorf("meta %v", out.Meta)
		}
		pids = append(pids, out.Meta["pid"])
	}
	if pids[0] != pids[2] || h.Starts() != 1 {
		t.Errorf("pids %v, starts %d: want one warm helper", pids, h.Starts())
	}
}

// TestHelperSeesOnlyItsJob: the helper cannot see the server's other
// files: another job's directory, /root, /home.
func TestHelperSeesOnlyItsJob(t *testing.T) {
	h := newHelpers(t)
	other := input(t, "someone else's document")
	for _, p := range []string{other.Files[0].Path, other.WorkDir, "/root", "/home", "/etc/hostname", "/usr/share/doc"} {
		in := input(t, "x")
		in.Params["path"] = p
		out, err := h.Run(context.Background(), "peek", in)
		if err != nil {
			t.Fatal(err)
		}
		if out.Meta["visible"] != false {
			t.Errorf("the helper can see %s", p)
		}
	}
}

// TestHelperFailures: each way a tool can fail gives the job a clean
// error of the right code, and the helper is whole, or replaced, for the
// next job.
func TestHelperFailures(t *testing.T) {
	h := newHelpers(t)
	cases := []struct {
		tool    string
		timeout time.Duration
		code    docmill.Code
		ctxErr  bool
		message string
	}{
		{tool: "refuse", code: docmill.CodeInvalidParameter, message: "must be 90"},
		{tool: "panic", code: docmill.CodeInvalidDocument, message: "could not be processed"},
		{tool: "exit", code: docmill.CodeInvalidDocument, message: "could not be processed"},
		{tool: "hog", code: docmill.CodeInvalidDocument, message: "processing limit"},
		{tool: "killed", code: docmill.CodeInternal, message: "internal error"},
		{tool: "hang", timeout: 500 * time.Millisecond, ctxErr: true},
	}
	for _, c := range cases {
		t.Run(c.tool, func(t *testing.T) {
			ctx := context.Background()
			if c.timeout > 0 {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, c.timeout)
				defer cancel()
			}
			start := time.Now()
			_, err := h.Run(ctx, c.tool, input(t, "x"))
			switch {
			case c.ctxErr && !errors.Is(err, context.DeadlineExceeded):
				t.Fatalf("err = %v, want the deadline", err)
			case !c.ctxErr && docmill.ErrorCode(err) != c.code:
				t.Fatalf("err = %v, want %s", err, c.code)
			case !c.ctxErr && !strings.Contains(docmill.AsError(err).Message, c.message):
				t.Errorf("message %q, want %q in it; cause: %v", docmill.AsError(err).Message, c.message, err)
			}
			if d := time.Since(start); d > 30*time.Second {
				t.Errorf("took %s", d)
			}
			out, err := h.Run(context.Background(), "copy", input(t, "after"))
			if err != nil {
				t.Fatalf("next job: %v", err)
			}
			if b, _ := os.ReadFile(out.Path); string(b) != "AFTER" {
				t.Errorf("next job's output %q", b)
			}
		})
	}
}
