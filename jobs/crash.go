package jobs

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/docmill/docmill"
)

// runCrashRule runs the tool under the crash rule, the one place that
// decides what an engine crash means (docs/api.md, "The crash rule"):
//
//   - A run in which an engine crashed (died by a signal it raised on
//     itself: docmill.EngineFailure.Crashed) is run once more, in the
//     same attempt, in an emptied dir and on fresh engine processes
//     (RunInput.FreshEngines: office converts in a cold soffice).
//   - If the same engine crashes the same way again, the input is the
//     cause: the job fails at once with unprocessable_document (422),
//     never retried and never charged. Two engine runs at most.
//   - Any other outcome of the second run stands: done, the input's own
//     4xx, or internal, which River retries.
//
// A kill from outside (SIGKILL: the OOM killer, an operator), a jail that
// failed to start, a missing engine and a full disk (a crash that left
// the scratch file system full, on either run) are not crashes: they are
// never run again here, and stay internal (retried by River),
// engine_unavailable or insufficient_storage (attempt).
func (q *Queue[TTx]) runCrashRule(ctx context.Context, j *docmill.Job, tool *docmill.Tool, dir string) (*docmill.RunOutput, error) {
	out, err := q.run(ctx, j, tool, dir, false)
	first := crashOf(err)
	if first == nil || ctx.Err() != nil || scratchFull(dir) {
		return out, err
	}
	q.metrics.countEngineFailure(err)
	q.cfg.Logger.Warn("engine crashed; running once more on fresh engines", "job_id", j.ID, "tool", j.Tool, "engine", first.Engine, "signal", first.Signal, "err", err)
	if err := emptyDir(dir); err != nil {
		return nil, err
	}
	out, err = q.run(ctx, j, tool, dir, true)
	if second := crashOf(err); first.SameCrash(second) && !scratchFull(dir) {
		return nil, crashedTwice(second, err)
	}
	return out, err
}

// crashOf is the engine crash that failed a run (an EngineFailure whose
// signal the engine raised itself), or nil.
func crashOf(err error) *docmill.EngineFailure {
	var f *docmill.EngineFailure
	if errors.As(err, &f) && f.Crashed() && docmill.ErrorCode(err) == docmill.CodeInternal {
		return f
	}
	return nil
}

// crashedTwice is the job's error when engine f crashed the same way on
// both runs; err is the second run's error, kept as the cause (the log,
// a pipeline's steps). A pipeline's field (steps[i]) is kept.
func crashedTwice(f *docmill.EngineFailure, err error) error {
	msg := fmt.Sprintf("The file could not be processed: the %s engine crashed on it twice in the same way (%s). Sending it again gives the same answer.", f.Engine, f.Signal)
	e := &docmill.Error{Code: docmill.CodeUnprocessableDocument, Message: msg, Err: err}
	if prev := docmill.AsError(err); len(prev.Fields) > 0 {
		e.Fields = []docmill.FieldError{{Field: prev.Fields[0].Field, Message: msg}}
	}
	return e
}

// emptyDir removes everything in dir, keeping dir.
func emptyDir(dir string) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if err := os.RemoveAll(filepath.Join(dir, e.Name())); err != nil {
			return err
		}
	}
	return nil
}
