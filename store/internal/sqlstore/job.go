package sqlstore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/docmill/docmill"
	"github.com/docmill/docmill/store/internal/sqltext"
)

// Job returns the job with id; an unknown id is docmill.ErrNotFound.
func (s *Store) Job(ctx context.Context, id string) (*docmill.Job, error) {
	j, err := scanJob(s.db.Read().QueryRow(ctx, sqltext.Job, id))
	if err != nil {
		return nil, s.errorf("job %s: %w", id, s.notFound(err))
	}
	return j, nil
}

// StartJob moves a queued or processing job to processing. started_at keeps
// the first start: a retried job started when its first attempt did.
func (s *Store) StartJob(ctx context.Context, id string, now time.Time) (*docmill.Job, error) {
	return s.updateJob(ctx, "start job", id, sqltext.StartJob, jobUpdate{lazy: true}, millis(now))
}

// RequeueJob moves a processing job back to queued; started_at keeps the
// first start.
func (s *Store) RequeueJob(ctx context.Context, id string) (*docmill.Job, error) {
	return s.updateJob(ctx, "requeue job", id, sqltext.RequeueJob, jobUpdate{})
}

// RecordUsed records that processing job id has used used of its work
// budget, all its attempts together, unless it recorded more already; a
// job in another status is left unchanged. An unknown id is not an error.
func (s *Store) RecordUsed(ctx context.Context, id string, used time.Duration) error {
	err := s.db.InTx(ctx, func(tx Tx) error {
		_, err := tx.Exec(ctx, sqltext.RecordUsed, id, used.Milliseconds())
		return err
	})
	if err != nil {
		return s.errorf("record used %s: %w", id, err)
	}
	return nil
}

// CancelJob moves a queued or processing job to canceled, finished at now;
// a job in a final status is returned unchanged.
func (s *Store) CancelJob(ctx context.Context, id string, now time.Time) (*docmill.Job, error) {
	return s.updateJob(ctx, "cancel job", id, sqltext.CancelJob, jobUpdate{finishes: true}, millis(now))
}

// jobUpdate says what an update of updateJob is: one that finishes the
// job (its finish hooks run with it), one whose commit may be lost in a
// database crash (Config.LazyTx).
type jobUpdate struct{ finishes, lazy bool }

// updateJob runs the conditional update q on job id and returns the job as
// it then stands, whether q changed it or not. how.finishes says that q moves
// the job to a final status (Config.JobFinished runs if it did).
func (s *Store) updateJob(ctx context.Context, op, id, q string, how jobUpdate, args ...any) (*docmill.Job, error) {
	var j *docmill.Job
	err := s.inTx(ctx, how.lazy, func(tx Tx) error {
		var err error
		j, err = scanJob(tx.QueryRow(ctx, q, append([]any{id}, args...)...))
		if s.cfg.IsNoRows(err) { // q changed nothing: the job as it stands
			j, err = scanJob(tx.QueryRow(ctx, sqltext.Job, id))
			return s.notFound(err)
		}
		if err != nil || !how.finishes {
			return err
		}
		if err := s.jobFinished(ctx, tx, id); err != nil {
			return err
		}
		return s.deliver(ctx, tx, id)
	})
	if err != nil {
		return nil, s.errorf("%s %s: %w", op, id, err)
	}
	return j, nil
}

// FinishJob records j's final status, finish time (now if nil), result,
// meta and error, if the stored job is processing, and charges a done job
// to its period in the same transaction. It reports false, changing
// nothing, when the job is no longer processing.
func (s *Store) FinishJob(ctx context.Context, j *docmill.Job) (bool, error) {
	if !j.Status.Finished() {
		return false, s.errorf("finish job %s: status %q is not final", j.ID, j.Status)
	}
	c, err := encodeJob(j)
	if err != nil {
		return false, s.errorf("finish job %s: %w", j.ID, err)
	}
	finished := time.Now()
	if j.FinishedAt != nil {
		finished = *j.FinishedAt
	}
	var r docmill.Result
	var resultKey *string
	if j.Result != nil {
		r = *j.Result
		resultKey = &r.Key
	}
	var errCode, errMsg, errFields *string
	if j.Error != nil {
		code := string(j.Error.Code)
		errCode = &code
		errMsg = &j.Error.Message
		if len(j.Error.Fields) > 0 {
			b, err := json.Marshal(j.Error.Fields)
			if err != nil {
				return false, err
			}
			errFields = nullString(string(b))
		}
	}
	var finishedNow bool
	err = s.db.InTx(ctx, func(tx Tx) error {
		var account, period string
		var ops int64
		err := tx.QueryRow(ctx, sqltext.FinishJob, j.ID, string(j.Status), millis(finished),
			resultKey, nullIf(r.Filename, j.Result == nil), nullIf(r.ContentType, j.Result == nil),
			nullIf(r.Size, j.Result == nil), nullIf(millis(r.ExpiresAt), j.Result == nil),
			c.meta, errCode, errMsg, errFields, c.params).Scan(&account, &period, &ops)
		if s.cfg.IsNoRows(err) {
			return jobExists(ctx, tx, j.ID) // nil: the job exists and is not processing
		}
		if err != nil {
			return err
		}
		finishedNow = true
		if err := s.jobFinished(ctx, tx, j.ID); err != nil {
			return err
		}
		if err := s.deliver(ctx, tx, j.ID); err != nil {
			return err
		}
		if j.Status != docmill.StatusDone {
			return nil
		}
		_, err = tx.Exec(ctx, sqltext.ChargeUsage, account, period, ops)
		return err
	})
	if err != nil {
		return false, s.errorf("finish job %s: %w", j.ID, err)
	}
	return finishedNow, nil
}

// jobFinished runs Config.JobFinished, if any, for job id in tx.
func (s *Store) jobFinished(ctx context.Context, tx Tx, id string) error {
	if s.cfg.JobFinished == "" {
		return nil
	}
	_, err := tx.Exec(ctx, s.cfg.JobFinished, id)
	return err
}

// jobExists returns docmill.ErrNotFound if there is no job id.
func jobExists(ctx context.Context, tx Tx, id string) error {
	var n int64
	if err := tx.QueryRow(ctx, sqltext.JobExists, id).Scan(&n); err != nil {
		return err
	}
	if n == 0 {
		return docmill.ErrNotFound
	}
	return nil
}

// nullIf returns NULL when null holds, else v.
func nullIf(v any, null bool) any {
	if null {
		return nil
	}
	return v
}

// SetExport records e as job id's export.
func (s *Store) SetExport(ctx context.Context, id string, e *docmill.Export) error {
	b, err := json.Marshal(e)
	if err != nil {
		return s.errorf("set export %s: %w", id, err)
	}
	err = s.db.InTx(ctx, func(tx Tx) error {
		n, err := tx.Exec(ctx, sqltext.SetExport, id, string(b))
		if err != nil {
			return err
		}
		if n == 0 {
			return docmill.ErrNotFound
		}
		return nil
	})
	if err != nil {
		return s.errorf("set export %s: %w", id, s.notFound(err))
	}
	return nil
}

func queryJobs(ctx context.Context, q Tx, query string, args ...any) ([]*docmill.Job, error) {
	return queryAll(ctx, q, scanJob, query, args...)
}

// listJobs runs query, a listing of up to limit jobs (its last argument,
// after args), on the read pool; what names the listing in errors. A
// limit of 0 or less lists nothing.
func (s *Store) listJobs(ctx context.Context, what, query string, limit int, args ...any) ([]*docmill.Job, error) {
	if limit <= 0 {
		return nil, nil
	}
	jobs, err := queryJobs(ctx, s.db.Read(), query, append(args, limit)...)
	if err != nil {
		return nil, s.errorf("%s: %w", what, err)
	}
	return jobs, nil
}

// jobJSON are the JSON columns of a job. nil and empty maps and slices
// encode differently ("null" and "{}"), so both round-trip exactly.
type jobJSON struct {
	params, inputs, meta string
	// export is NULL for a job without one.
	export *string
}

func encodeJob(j *docmill.Job) (jobJSON, error) {
	var c jobJSON
	for _, f := range []struct {
		dst *string
		v   any
	}{{&c.params, j.Params}, {&c.inputs, j.Inputs}, {&c.meta, j.Meta}} {
		b, err := json.Marshal(f.v)
		if err != nil {
			return jobJSON{}, err
		}
		*f.dst = string(b)
	}
	if j.Export != nil {
		b, err := json.Marshal(j.Export)
		if err != nil {
			return jobJSON{}, err
		}
		c.export = nullString(string(b))
	}
	return c, nil
}

// scanJob reads one row of sqltext.JobColumns.
func scanJob(r Row) (*docmill.Job, error) {
	var j docmill.Job
	var status, params, inputs, meta, filename, contentType, errMsg, errFields, export string
	var ttl, created, size, expires, preview, used int64
	var started, finished, resultDeleted, inputsDeleted *int64
	var resultKey, errCode *string
	err := r.Scan(&j.ID, &j.AccountID, &j.Tool, &status, &params, &inputs, &j.Priority, &ttl,
		&j.IdempotencyKey, &j.RequestHash, &created, &started, &finished,
		&resultKey, &filename, &contentType, &size, &expires, &resultDeleted,
		&meta, &errCode, &errMsg, &errFields, &inputsDeleted, &export, &j.Operations, &preview, &used)
	if err != nil {
		return nil, err
	}
	j.Status = docmill.Status(status)
	j.Preview = preview != 0
	j.Used = time.Duration(used) * time.Millisecond
	j.ResultTTL = time.Duration(ttl) * time.Millisecond
	j.CreatedAt = fromMillis(created)
	j.StartedAt = timePtr(started)
	j.FinishedAt = timePtr(finished)
	j.InputsDeletedAt = timePtr(inputsDeleted)
	if resultKey != nil {
		j.Result = &docmill.Result{
			Key: *resultKey, Filename: filename, ContentType: contentType, Size: size,
			ExpiresAt: fromMillis(expires), DeletedAt: timePtr(resultDeleted),
		}
	}
	if errCode != nil {
		j.Error = &docmill.JobError{Code: docmill.Code(*errCode), Message: errMsg}
		if errFields != "" {
			if err := json.Unmarshal([]byte(errFields), &j.Error.Fields); err != nil {
				return nil, fmt.Errorf("job %s: %w", j.ID, err)
			}
		}
	}
	if export != "" {
		if err := json.Unmarshal([]byte(export), &j.Export); err != nil {
			return nil, fmt.Errorf("job %s: export: %w", j.ID, err)
		}
	}
	if err := errors.Join(json.Unmarshal([]byte(params), &j.Params),
		json.Unmarshal([]byte(inputs), &j.Inputs), json.Unmarshal([]byte(meta), &j.Meta)); err != nil {
		return nil, fmt.Errorf("job %s: %w", j.ID, err)
	}
	return &j, nil
}

// boolInt is a flag as its INTEGER column holds it.
func boolInt(b bool) int64 {
	if b {
		return 1
	}
	return 0
}
