package sandbox_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/docmill/docmill"
	"github.com/docmill/docmill/sandbox"
)

// TestClassify: each cause of an engine failure gets its one code.
func TestClassify(t *testing.T) {
	causes := sandbox.Causes{Engine: "The test engine", Refused: "The file is damaged.",
		Exit: func(x *sandbox.ExitError) *docmill.Error {
			if x.Code == 3 {
				return docmill.Errorf(docmill.CodeInvalidDocument, "The file is password-protected.")
			}
			return nil
		}}
	exit := func(code int, stderr string) error {
		return fmt.Errorf("run: %w", &sandbox.ExitError{Engine: "test", Code: code, Stderr: stderr})
	}
	cases := []struct {
		name string
		err  error
		code docmill.Code
	}{
		{"refused", exit(1, "Syntax Error: broken xref"), docmill.CodeInvalidDocument},
		{"own exit code", exit(3, ""), docmill.CodeInvalidDocument},
		{"CPU limit", exit(128+24, ""), docmill.CodeProcessingTimeout},
		{"file size limit", exit(128+25, ""), docmill.CodeInvalidDocument},
		{"crash", exit(128+11, ""), docmill.CodeInternal},
		{"abort", exit(128+6, "assertion failed"), docmill.CodeInternal},
		{"abort for memory", exit(128+6, "std::bad_alloc"), docmill.CodeInvalidDocument},
		{"killed", exit(128+9, ""), docmill.CodeInternal},
		{"jail failed", exit(1, "bwrap: Can't mount proc"), docmill.CodeInternal},
		{"library missing", exit(127, "error while loading shared libraries"), docmill.CodeInternal},
		{"output too large", sandbox.ErrOutputTooLarge, docmill.CodeInvalidDocument},
		{"missing engine", sandbox.ErrUnavailable, docmill.CodeEngineUnavailable},
		{"other", errors.New("disk full"), docmill.CodeInternal},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := docmill.ErrorCode(sandbox.Classify(c.err, causes)); got != c.code {
				t.Errorf("code %s, want %s", got, c.code)
			}
		})
	}
	// A death by signal is counted by engine: the cause says which.
	var f *docmill.EngineFailure
	if err := sandbox.Classify(exit(128+9, ""), causes); !errors.As(err, &f) || f.Engine != "test" || f.Signal != "killed" {
		t.Errorf("a kill: %v, want the EngineFailure of test, killed", err)
	}
	if err := sandbox.Classify(exit(1, ""), causes); errors.As(err, &f) {
		t.Errorf("a refusal counted as an engine failure: %v", err)
	}
	for _, err := range []error{context.Canceled, context.DeadlineExceeded} {
		if got := sandbox.Classify(err, causes); got != err {
			t.Errorf("%v became %v", err, got)
		}
	}
}

// TestCPULimitIsTheInputs: a run that uses up its CPU time ends as
// processing_timeout, through the real jail and prlimit.
func TestCPULimitIsTheInputs(t *testing.T) {
	e := jailed(t, sandbox.JailOptions{}, sandbox.Limits{CPUSeconds: 1})
	_, err := e.Run(context.Background(), sandbox.Cmd{Dir: t.TempDir(), Args: []string{"-c", "while :; do :; done"}})
	if got := docmill.ErrorCode(sandbox.Classify(err, sandbox.Causes{Refused: "x"})); got != docmill.CodeProcessingTimeout {
		t.Errorf("%v: code %s, want processing_timeout", err, got)
	}
}
