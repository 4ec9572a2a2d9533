package jobs

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/docmill/docmill"
	"github.com/docmill/docmill/tools/filecopy"
)

// PipelineTool declares the pipeline over the tools of reg
// (docmill.NewPipeline), run by the job runner: every step on this
// worker, each step's output the next step's input without a round trip
// through the file store. limit is the queue's Config.JobTimeout (zero:
// DefaultJobTimeout), which bounds a whole pipeline as it bounds any job.
func PipelineTool(reg *docmill.Registry, limit time.Duration) *docmill.Tool {
	limit = orDefault(limit, DefaultJobTimeout)
	return docmill.NewPipeline(reg, limit, func(ctx context.Context, in *docmill.RunInput) (*docmill.RunOutput, error) {
		return runPipeline(ctx, reg, limit, in)
	})
}

// runPipeline runs the steps of in.Params one after the other, each in
// its own directory under in.WorkDir (step-1, step-2, ...) holding its
// input as input-N (a hard link to the previous step's output), so that
// each tool sees what any tool run sees. The steps share the pipeline's
// timeout, the sum of theirs within limit, and each keeps its own.
//
// Its meta is {"steps": [{"tool", "duration_ms", "meta"}, ...]}. A step
// that fails fails the pipeline with its error's code, its message
// prefixed "Step N (tool): " and its fields named under steps[N-1]
// (stepError); the steps after it do not run.
func runPipeline(ctx context.Context, reg *docmill.Registry, limit time.Duration, in *docmill.RunInput) (*docmill.RunOutput, error) {
	types := make([]string, len(in.Files))
	for i, f := range in.Files {
		types[i] = f.ContentType
	}
	steps, err := docmill.ParseSteps(reg, in.Params.String(docmill.StepsParam), types)
	if err != nil {
		return nil, err // the edge checked them: a registry that changed since
	}
	ctx, cancel := context.WithTimeout(ctx, steps.Timeout(limit))
	defer cancel()
	// The pipeline's limit, the sum of its steps', cuts a step short
	// before the step's own only when limit capped the sum.
	var sum time.Duration
	for _, st := range steps {
		sum += docmill.StepTimeout(st.Tool, limit)
	}
	capped := sum > limit
	files := in.Files
	var done []map[string]any
	for i, st := range steps {
		out, ms, err := runStep(ctx, i, st, files, in, limit, capped)
		if err != nil {
			done = append(done, map[string]any{"tool": st.Tool.Slug, "duration_ms": ms, "failed": true})
			return nil, &stepsRun{err: err, steps: done}
		}
		done = append(done, map[string]any{"tool": st.Tool.Slug, "duration_ms": ms, "meta": orEmpty(out.Meta)})
		if i == len(steps)-1 {
			return &docmill.RunOutput{Path: out.Path, Filename: out.Filename, ContentType: out.ContentType,
				Meta: map[string]any{"steps": done}}, nil
		}
		fi, err := os.Stat(out.Path)
		if err != nil {
			return nil, fmt.Errorf("step %d (%s): result: %w", i+1, st.Tool.Slug, err)
		}
		ct, _, _ := strings.Cut(out.ContentType, ";") // "text/plain; charset=utf-8" is text/plain to the next step
		files = []docmill.LocalFile{{Path: out.Path, Filename: boundName(out.Filename), ContentType: strings.TrimSpace(ct), Size: fi.Size()}}
	}
	panic("unreachable: ParseSteps returns at least one step")
}

// stepsRun is the error of a pipeline that failed at a step: the step's
// error (stepError), and the meta of the steps that ran, the failed one
// last, which the job runner keeps in the failed job's meta.steps.
type stepsRun struct {
	err   error
	steps []map[string]any
}

func (e *stepsRun) Error() string { return e.err.Error() }
func (e *stepsRun) Unwrap() error { return e.err }

// failedSteps returns the meta of a failed pipeline's steps
// ({"steps": [...]}), or nil when err is not a pipeline's.
func failedSteps(err error) map[string]any {
	var sr *stepsRun
	if !errors.As(err, &sr) {
		return nil
	}
	return map[string]any{"steps": sr.steps}
}

// runStep runs step i on files in its own directory under in.WorkDir,
// within its own timeout, and returns its output and how long it took;
// capped says that the pipeline's deadline may come before the step's.
func runStep(ctx context.Context, i int, st docmill.Step, files []docmill.LocalFile, in *docmill.RunInput, limit time.Duration, capped bool) (*docmill.RunOutput, int64, error) {
	dir := filepath.Join(in.WorkDir, fmt.Sprintf("step-%d", i+1))
	if err := os.Mkdir(dir, 0o700); err != nil {
		return nil, 0, err
	}
	stepIn := &docmill.RunInput{Params: st.Params, WorkDir: dir, Limits: in.Limits, FreshEngines: in.FreshEngines}
	for k, f := range files {
		path := filepath.Join(dir, fmt.Sprintf("input-%d%s", k, filepath.Ext(f.Filename)))
		if err := filecopy.Link(f.Path, path); err != nil { // steps share one scratch file system: a hard link
			return nil, 0, err
		}
		f.Path = path
		stepIn.Files = append(stepIn.Files, f)
	}
	// The step's work budget, for the size of its own input.
	size := docmill.WorkSize{}
	for _, f := range files {
		size.Bytes += f.Size
	}
	timeout := min(docmill.StepTimeout(st.Tool, limit), docmill.WorkBudget(st.Tool, size))
	started := time.Now()
	// Whose limit a timeout is: the step's own, unless the pipeline's
	// (capped) comes first.
	pipelineEnd, bounded := ctx.Deadline()
	own := !capped || !bounded || !pipelineEnd.Before(started.Add(timeout))
	stepCtx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	out, err := st.Tool.Invoke(stepCtx, stepIn)
	ms := time.Since(started).Milliseconds()
	if err == nil && (out == nil || out.Path == "" || out.Filename == "") {
		err = fmt.Errorf("tool %s returned no output", st.Tool.Slug)
	}
	if err != nil {
		return nil, ms, stepError(ctx, stepCtx, i, st.Tool, timeout, own, err)
	}
	return out, ms, nil
}

// stepError is the pipeline's error for step i's err: its code, its
// message prefixed "Step i+1 (tool): ", and the field steps[i] (with the
// step's own fields under it, steps[i].params.pages). A step past its
// deadline (its own timeout when own, else the pipeline's) is
// processing_timeout; a pipeline canceled or shut down passes err on as
// it is, for the job runner's handling of either.
func stepError(ctx, stepCtx context.Context, i int, tool *docmill.Tool, timeout time.Duration, own bool, err error) error {
	if errors.Is(ctx.Err(), context.Canceled) {
		return err
	}
	prefix := fmt.Sprintf("Step %d (%s): ", i+1, tool.Slug)
	field := fmt.Sprintf("steps[%d]", i)
	if stepCtx.Err() == context.DeadlineExceeded {
		msg := fmt.Sprintf("processing took longer than this step's work budget of %s, what its tool allows for a file of its size", timeout)
		if !own {
			msg = "processing took longer than the pipeline's limit (the sum of its steps' limits)"
		}
		return &docmill.Error{Code: docmill.CodeProcessingTimeout, Message: prefix + strings.ToUpper(msg[:1]) + msg[1:] + ".",
			Fields: []docmill.FieldError{{Field: field, Message: msg}}}
	}
	e := docmill.AsError(err)
	fields := []docmill.FieldError{{Field: field, Message: e.Message}}
	for _, f := range e.Fields {
		fields = append(fields, docmill.FieldError{Field: field + ".params." + f.Field, Message: f.Message})
	}
	return &docmill.Error{Code: e.Code, Message: prefix + e.Message, Fields: fields, RetryAfter: e.RetryAfter, Err: errOrSelf(e, err)}
}

// errOrSelf is the cause a step's wrapped error keeps: the step's own
// error, so that errors.Is and errors.As (an engine's failure, a full
// disk) see through the wrapping; e itself when err was not an *Error.
func errOrSelf(e *docmill.Error, err error) error {
	if e.Err != nil {
		return e.Err
	}
	return err
}

// maxStepName bounds, in bytes, the name a step's output is passed on
// with: each tool adds its suffix ("report-watermarked-numbered.pdf"),
// and ten steps must not make a result name too long for a file system
// (255 bytes) or a download header.
const maxStepName = 120

// boundName returns name cut to maxStepName bytes, at a character
// boundary, keeping a short extension.
func boundName(name string) string {
	if len(name) <= maxStepName {
		return name
	}
	ext := filepath.Ext(name)
	if len(ext) > 16 {
		ext = ""
	}
	cut := maxStepName - len(ext)
	for cut > 0 && !utf8.RuneStart(name[cut]) {
		cut--
	}
	return name[:cut] + ext
}

func orEmpty(m map[string]any) map[string]any {
	if m == nil {
		return map[string]any{}
	}
	return m
}
