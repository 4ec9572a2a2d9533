package jobs

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"time"

	"github.com/riverqueue/river"

	"github.com/docmill/docmill"
	"github.com/docmill/docmill/diskspace"
)

// The stages of a job's run that Config.Trace is told of, in order:
// handed to a worker, recorded as started, inputs in the scratch
// directory, tool run (the helper's round trip and the engine), result
// in the file store, job recorded finished, finish published to waiters.
const (
	StagePickup       = "pickup"
	StageStarted      = "started"
	StageInputs       = "inputs"
	StageTool         = "tool"
	StageResultStored = "result_stored"
	StageFinished     = "finished"
	StagePublished    = "published"
)

// trace tells Config.Trace, if set, that job id reached stage.
func (q *Queue[TTx]) trace(id, stage string) {
	if q.cfg.Trace != nil {
		q.cfg.Trace(id, stage)
	}
}

// ProcessArgs is the River job that runs one docmill job.
type ProcessArgs struct {
	JobID string `json:"job_id"`
	Tool  string `json:"tool"`
	// AccountID is the job's account, for the fair share in its lane
	// (lanes.go); empty in jobs queued before lanes existed.
	AccountID string `json:"account_id,omitempty"`
}

// Kind names the River job kind.
func (ProcessArgs) Kind() string { return "docmill.process" }

type processWorker[TTx any] struct {
	river.WorkerDefaults[ProcessArgs]
	q *Queue[TTx]
}

// Timeout is the tool's own limit for one attempt.
func (w *processWorker[TTx]) Timeout(rj *river.Job[ProcessArgs]) time.Duration {
	tool, _ := w.q.cfg.Registry.Lookup(rj.Args.Tool)
	return w.q.toolTimeout(tool)
}

// Work runs one attempt of a job. Failures caused by the input end the job
// as failed at once; so does a full disk (insufficient_storage, see
// attempt); other failures are returned so River retries them, and on the
// last attempt they end the job as failed with code internal. A job
// stopped by a shutdown is snoozed, not charged an attempt, and its record
// is queued again.
func (w *processWorker[TTx]) Work(ctx context.Context, rj *river.Job[ProcessArgs]) error {
	q := w.q
	q.trace(rj.Args.JobID, StagePickup)
	// The fair share in the lane, before the job counts as started.
	release, ok := q.takeShare(ctx, rj.Queue, rj.Args.AccountID, q.laneWorkers(rj.Queue))
	if !ok {
		return river.JobSnooze(shareSnooze)
	}
	defer release()
	j, err := q.cfg.Store.StartJob(ctx, rj.Args.JobID, q.cfg.Now())
	if errors.Is(err, docmill.ErrNotFound) {
		return nil // the record was deleted; nothing to do
	}
	if err != nil {
		return err
	}
	if j.Status.Finished() { // canceled while queued
		q.deleteInputs(ctx, j)
		return nil
	}
	q.trace(j.ID, StageStarted)
	if j.StartedAt != nil {
		q.metrics.queueWait.Observe(j.StartedAt.Sub(j.CreatedAt).Seconds())
		q.metrics.laneWait.WithLabelValues(rj.Queue).Observe(j.StartedAt.Sub(j.CreatedAt).Seconds())
	}
	q.cfg.Logger.Info("job started", "job_id", j.ID, "tool", j.Tool, "attempt", rj.Attempt)
	// The tool is resolved once per attempt and passed along; nil when
	// this node does not serve it (run fails the job as unknown_tool).
	tool, _ := q.cfg.Registry.Lookup(j.Tool)
	budgeted, spent := q.spend(ctx, j, tool) // budget.go: the job's deadline
	err = q.attempt(budgeted, j, tool)
	spent(err)
	switch {
	case err == nil:
		return nil
	case errors.Is(ctx.Err(), context.Canceled) && !q.canceled(j.ID):
		q.requeue(j.ID)
		// Shutdown: run it again later, behind the jobs waiting if it
		// used much of its budget (budget.go).
		q.demoteIfUsed(context.WithoutCancel(ctx), rj.ID, j.ID)
		return river.JobSnooze(time.Second)
	case docmill.IsNoSpace(err):
		// A full disk (scratch directory, file store, database) is not
		// fixed by retrying at once: fail as insufficient_storage, not
		// charged, and let the client retry once space is back.
		return q.fail(j, tool, err, 0)
	case rj.Attempt < rj.MaxAttempts:
		q.cfg.Logger.Warn("job attempt failed; retrying", "job_id", j.ID, "tool", j.Tool, "attempt", rj.Attempt, "err", err)
		return err
	}
	return q.fail(j, tool, err, 0)
}

// attempt runs the tool and records the outcome. It returns an error only
// for failures that are not the input's fault and may pass on a retry.
func (q *Queue[TTx]) attempt(ctx context.Context, j *docmill.Job, tool *docmill.Tool) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	q.track(j.ID, cancel)
	defer q.untrack(j.ID)
	go q.watchCancel(ctx, j.ID, cancel)

	dir, err := os.MkdirTemp(q.cfg.ScratchDir, jobDirPattern(j.ID))
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)

	started := time.Now()
	ctx, peak := docmill.WithEnginePeak(ctx)
	out, err := q.runCrashRule(ctx, j, tool, dir) // crash.go
	elapsed := time.Since(started)
	if err == nil && peak.KB() > 0 {
		out.Meta = withFigure(out.Meta, docmill.EnginePeakMeta, peak.KB())
	}
	if err != nil {
		if scratchFull(dir) {
			// The engine ran out of room (its own error says only that it
			// failed): the disk's fault, not the input's.
			err = docmill.InsufficientStorage(fmt.Errorf("scratch file system full after: %w", err))
		}
		// Space goes back before the failure is recorded: on a full disk
		// the record itself needs room.
		_ = os.RemoveAll(dir)
		q.metrics.countEngineFailure(err)
		if docmill.ErrorCode(err) != docmill.CodeInternal || errors.Is(err, context.DeadlineExceeded) || q.canceled(j.ID) {
			return q.fail(j, tool, err, elapsed)
		}
		return err
	}
	// Not counted in the job's duration; never fails it (preview.go).
	previewSize := q.makePreview(ctx, j, out, dir)
	if err := q.succeed(j, tool, out, elapsed, previewSize); err != nil {
		return err
	}
	if j.Export != nil { // export_url: sent once the job is done (export.go)
		ectx, stop := shutdownOnly(ctx)
		defer stop()
		q.export(ectx, j)
	}
	return nil
}

// withFigure returns meta (a new map when nil) with name set to v.
func withFigure(meta map[string]any, name string, v any) map[string]any {
	if meta == nil {
		meta = map[string]any{}
	}
	meta[name] = v
	return meta
}

// scratchFullBytes is the free space under which a scratch file system
// counts as full when a tool fails: engines write in blocks of up to a
// few hundred KB, so a write that found no room leaves less than this.
const scratchFullBytes = 1 << 20

// scratchFull reports whether the file system of dir is full, as it is
// when a tool failed for want of room.
func scratchFull(dir string) bool {
	u, err := diskspace.Stat(dir)
	return err == nil && u.Free < scratchFullBytes
}

// succeed uploads the output and records the job done.
// previewSize is the size of the result's preview, 0 for none.
func (q *Queue[TTx]) succeed(j *docmill.Job, tool *docmill.Tool, out *docmill.RunOutput, elapsed time.Duration, previewSize int64) error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()

	key := docmill.ResultKey(j.ID, out.Filename)
	size, err := q.storeResult(ctx, key, out)
	if err != nil {
		return err
	}
	q.trace(j.ID, StageResultStored)
	now := q.cfg.Now()
	j.Status = docmill.StatusDone
	j.FinishedAt = &now
	j.Result = &docmill.Result{Key: key, Filename: out.Filename, ContentType: out.ContentType, Size: size, ExpiresAt: now.Add(j.ResultTTL)}
	j.Meta = q.meta(j, out.Meta, elapsed)
	if previewSize > 0 {
		j.Meta["preview_size"] = previewSize
	}
	return q.finish(ctx, j, tool, elapsed)
}

// withoutSecrets returns j's params without those tool, j's tool, declares
// secret (passwords), which must not outlive the job in its record. A job
// whose tool this node does not serve (nil) keeps its params.
func withoutSecrets(j *docmill.Job, tool *docmill.Tool) docmill.Params {
	if tool == nil {
		return j.Params
	}
	return tool.WithoutSecrets(j.Params)
}

// storeResult puts the tool's output in the blob store: linked when the
// store is a local directory, else streamed.
func (q *Queue[TTx]) storeResult(ctx context.Context, key string, out *docmill.RunOutput) (int64, error) {
	fi, err := os.Stat(out.Path)
	if err != nil {
		return 0, err
	}
	if lb, ok := q.cfg.Blob.(docmill.LocalBlobStore); ok && lb.LinkFile(key, out.Path) {
		return fi.Size(), nil
	}
	f, err := os.Open(out.Path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	return q.cfg.Blob.Put(ctx, key, f, out.ContentType)
}

// fail records the job failed with err's code and public message; tool is
// j's tool, nil when this node does not serve it.
func (q *Queue[TTx]) fail(j *docmill.Job, tool *docmill.Tool, err error, elapsed time.Duration) error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	e := docmill.AsError(err)
	if errors.Is(err, context.DeadlineExceeded) {
		// The same input would take as long again: the input's cause,
		// not retried, not charged.
		e = docmill.Errorf(docmill.CodeProcessingTimeout, "Processing this file took longer than its work budget of %s, what this tool allows for a file of its size (meta.budget_ms).", q.budget(j, tool))
	}
	switch {
	case e.Code == docmill.CodeInternal && q.canceled(j.ID):
		// The user's cancel stopped the engine (the error says "context
		// canceled" or how the engine died of it): not a failure of the
		// service; finish keeps the job canceled.
		q.cfg.Logger.Info("job canceled by its owner while it ran", "job_id", j.ID, "tool", j.Tool)
	case e.Code == docmill.CodeInternal, e.Code == docmill.CodeWorkerLost:
		q.cfg.Logger.Error("job failed", "job_id", j.ID, "tool", j.Tool, "err", err)
	case e.Code == docmill.CodeInsufficientStorage:
		q.cfg.Logger.Warn("job failed: insufficient storage", "job_id", j.ID, "tool", j.Tool, "err", err)
	case e.Code == docmill.CodeGone:
		q.cfg.Logger.Warn("job failed: its input is lost", "job_id", j.ID, "tool", j.Tool, "err", err)
	default:
		// The input's fault: the cause, which may name paths, is for
		// operators only.
		q.cfg.Logger.Debug("job refused", "job_id", j.ID, "tool", j.Tool, "err", err)
	}
	now := q.cfg.Now()
	j.Status = docmill.StatusFailed
	j.FinishedAt = &now
	j.Error = &docmill.JobError{Code: e.Code, Message: e.Message, Fields: e.Fields}
	j.Meta = q.meta(j, failedSteps(err), elapsed) // a pipeline's steps that ran
	return q.finish(ctx, j, tool, elapsed)
}

func (q *Queue[TTx]) finish(ctx context.Context, j *docmill.Job, tool *docmill.Tool, elapsed time.Duration) error {
	j.Params = withoutSecrets(j, tool)
	ok, err := q.cfg.Store.FinishJob(ctx, j)
	if errors.Is(err, docmill.ErrNotFound) {
		// The record was deleted while the job ran (its account was):
		// nothing of the job may stay.
		_, _ = DeleteJobFiles(ctx, q.cfg.Blob, j)
		return nil
	}
	if err != nil {
		return err
	}
	q.trace(j.ID, StageFinished)
	if !ok && j.Result != nil { // canceled meanwhile: the result must not stay
		_ = deleteResult(ctx, q.cfg.Blob, j.ID, j.Result)
	}
	if ok && j.Export != nil && j.Status != docmill.StatusDone {
		q.noExport(ctx, j) // export.go
	}
	status, code := string(j.Status), ""
	if !ok {
		status = string(docmill.StatusCanceled)
	} else if j.Error != nil {
		code = string(j.Error.Code)
	}
	q.metrics.duration.WithLabelValues(j.Tool, status).Observe(elapsed.Seconds())
	q.metrics.finished.WithLabelValues(j.Tool, status, code).Inc()
	q.cfg.Logger.Info("job finished", "job_id", j.ID, "tool", j.Tool, "status", status, "code", code, "ms", elapsed.Milliseconds())
	q.notify.publish(j.ID)
	q.trace(j.ID, StagePublished)
	q.deleteInputs(ctx, j)
	q.deliveriesCommitted(j.ID)
	return nil
}

func (q *Queue[TTx]) meta(j *docmill.Job, toolMeta map[string]any, elapsed time.Duration) map[string]any {
	m := map[string]any{}
	for k, v := range toolMeta {
		m[k] = v
	}
	m["duration_ms"] = elapsed.Milliseconds()
	tool, _ := q.cfg.Registry.Lookup(j.Tool)
	m["budget_ms"] = q.budget(j, tool).Milliseconds()
	if j.StartedAt != nil {
		m["queued_ms"] = j.StartedAt.Sub(j.CreatedAt).Milliseconds()
	}
	return m
}

// run copies the inputs to a scratch directory and runs the tool there,
// on fresh engine processes when fresh (the crash rule, crash.go). A
// panic in a tool becomes an internal error, never a crash.
func (q *Queue[TTx]) run(ctx context.Context, j *docmill.Job, tool *docmill.Tool, dir string, fresh bool) (out *docmill.RunOutput, err error) {
	if tool == nil {
		return nil, docmill.Errorf(docmill.CodeUnknownTool, "Tool %q is not served by this node.", j.Tool)
	}
	if !tool.IsAvailable() {
		return nil, docmill.Errorf(docmill.CodeEngineUnavailable, "The engine of %s is not available.", j.Tool)
	}
	if err := ctx.Err(); err != nil {
		return nil, err // its budget was used up by earlier attempts
	}
	defer func() {
		if r := recover(); r != nil {
			out, err = nil, fmt.Errorf("tool %s panicked: %v\n%s", j.Tool, r, debug.Stack())
		}
	}()
	// Inputs and the tool's own files share one scratch directory: on a
	// slow disk every directory created is a cost worth avoiding.
	in := &docmill.RunInput{Params: j.Params, WorkDir: dir, Limits: q.cfg.Limits.WithDefaults(), FreshEngines: fresh}
	for i, f := range j.Inputs {
		path := filepath.Join(dir, fmt.Sprintf("input-%d%s", i, filepath.Ext(f.Filename)))
		if err := q.download(ctx, f.Key, path); err != nil {
			return nil, err
		}
		in.Files = append(in.Files, docmill.LocalFile{Path: path, Filename: f.Filename, ContentType: f.ContentType, Size: f.Size})
	}
	q.trace(j.ID, StageInputs)
	out, err = tool.Invoke(ctx, in)
	q.trace(j.ID, StageTool)
	if err != nil {
		return nil, err
	}
	if out == nil || out.Path == "" || out.Filename == "" {
		return nil, fmt.Errorf("tool %s returned no output", j.Tool)
	}
	return out, nil
}

// download puts an input at path: a hard link when the blob store is a
// local directory on the same disk (inputs are never modified, and the
// link outlives the input's deletion), else a copy.
func (q *Queue[TTx]) download(ctx context.Context, key, path string) error {
	if lb, ok := q.cfg.Blob.(docmill.LocalBlobStore); ok {
		if src, ok := lb.LocalPath(key); ok && os.Link(src, path) == nil {
			return nil
		}
	}
	r, err := q.cfg.Blob.NewRangeReader(ctx, key, 0, -1)
	if errors.Is(err, docmill.ErrNotFound) {
		return inputGone(key)
	}
	if err != nil {
		return fmt.Errorf("open input %s: %w", key, err)
	}
	defer r.Close()
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, r); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// inputGone is the error of a job whose input is not in the file store:
// it was lost, as after a restore from a backup made without the files
// (docmill restore). The job fails at once as gone, uncharged: retrying
// cannot bring the file back, and the client may send it again.
func inputGone(key string) error {
	e := docmill.Errorf(docmill.CodeGone, "The job's input file is no longer on the server (lost, as after a restore from a backup without the files); send the job again.")
	e.Err = fmt.Errorf("input %s not in the file store", key)
	return e
}

func (q *Queue[TTx]) deleteInputs(ctx context.Context, j *docmill.Job) {
	for _, f := range j.Inputs {
		if err := q.cfg.Blob.Delete(ctx, f.Key); err != nil {
			q.cfg.Logger.Warn("delete input", "job_id", j.ID, "err", err)
			return // the janitor retries
		}
	}
	if err := q.cfg.Store.MarkInputsDeleted(ctx, j.ID, q.cfg.Now()); err != nil {
		q.cfg.Logger.Warn("mark inputs deleted", "job_id", j.ID, "err", err)
	}
}

// requeue shows a job its worker hands back to the queue as queued again,
// not processing, until a worker takes it up. It is best effort: a job
// left processing is still run again and then charged once (FinishJob).
func (q *Queue[TTx]) requeue(id string) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if _, err := q.cfg.Store.RequeueJob(ctx, id); err != nil {
		q.cfg.Logger.Warn("requeue job", "job_id", id, "err", err)
	}
}

// canceled reports whether the client canceled the job.
func (q *Queue[TTx]) canceled(id string) bool {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	j, err := q.cfg.Store.Job(ctx, id)
	return err == nil && j.Status == docmill.StatusCanceled
}

func (q *Queue[TTx]) track(id string, cancel context.CancelFunc) {
	q.mu.Lock()
	q.running[id] = cancel
	q.mu.Unlock()
}

func (q *Queue[TTx]) untrack(id string) {
	q.mu.Lock()
	delete(q.running, id)
	q.mu.Unlock()
}

// watchCancel stops a running job canceled through another process, which
// cannot reach this process's cancel function: at once when notified of
// the job's finish (Config.Notifications), else within a second.
func (q *Queue[TTx]) watchCancel(ctx context.Context, id string, cancel context.CancelFunc) {
	wake, done := q.notify.subscribe(id)
	defer done()
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-wake:
		case <-t.C:
		}
		j, err := q.cfg.Store.Job(ctx, id)
		if err == nil && j.Status == docmill.StatusCanceled {
			cancel()
			return
		}
	}
}
