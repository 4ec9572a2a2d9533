package sqlstore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/docmill/docmill/store/internal/sqltext"
	"time"

	"github.com/docmill/docmill"
)

// CreateJob admits and inserts j as a queued job charged to adm.Period, and
// calls Config.Enqueue in the same transaction (and Config.Enqueued once it
// has committed). An empty j.ID gets a fresh
// id and a zero j.CreatedAt the current time; j itself is not modified. The
// returned job is read back from the transaction, so it equals what Job
// returns later. An unknown account is docmill.ErrNotFound.
//
// The transaction first locks the account row (sqltext.LockAccount), so the
// idempotency, in-flight and quota checks and the insert of one account are
// serialized: in SQLite the transaction begins IMMEDIATE (the write lock of
// the whole file), atomic with respect to every other writer, in this
// process or another; in PostgreSQL, under READ COMMITTED, each check, run
// after the row lock is granted, sees every earlier admission committed.
func (s *Store) CreateJob(ctx context.Context, j *docmill.Job, adm docmill.Admission) (*docmill.Job, error) {
	c, err := encodeJob(j)
	if err != nil {
		return nil, s.errorf("create job: %w", err)
	}
	id := j.ID
	if id == "" {
		id = docmill.NewJobID()
	}
	created := j.CreatedAt
	if created.IsZero() {
		created = time.Now()
	}
	var out *docmill.Job
	enqueued := false
	err = s.db.InTx(ctx, func(tx Tx) error {
		if err := lockAccount(ctx, tx, j.AccountID); err != nil {
			return err
		}
		if j.IdempotencyKey != "" {
			prev, err := scanJob(tx.QueryRow(ctx, sqltext.JobByIdemKey, j.AccountID, j.IdempotencyKey))
			switch {
			case err == nil && prev.RequestHash == j.RequestHash:
				out = prev // a replay: the earlier job stands, nothing is enqueued
				return nil
			case err == nil:
				return docmill.ErrIdempotencyConflict
			case !s.cfg.IsNoRows(err):
				return err
			}
		}
		if err := admit(ctx, tx, j.AccountID, adm, int64(j.Charge())); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, sqltext.InsertJob, id, j.AccountID, j.Tool, c.params, c.inputs,
			j.Priority, j.ResultTTL.Milliseconds(), nullString(j.IdempotencyKey), j.RequestHash,
			millis(created), c.meta, adm.Period, c.export, j.Charge(), boolInt(j.Preview))
		if err != nil {
			return err
		}
		if out, err = scanJob(tx.QueryRow(ctx, sqltext.Job, id)); err != nil {
			return err
		}
		if s.cfg.Enqueue != nil {
			if err := s.cfg.Enqueue(ctx, tx, out); err != nil {
				return fmt.Errorf("enqueue: %w", err)
			}
			enqueued = true
		}
		return nil
	})
	if err != nil {
		return nil, s.errorf("create job: %w", err)
	}
	if enqueued && s.cfg.Enqueued != nil {
		s.cfg.Enqueued(out)
	}
	return out, nil
}

// admit checks adm against the account's jobs in flight and usage for a
// job of ops operations. Jobs in flight hold their operations against the
// quota: each may still end done and be charged them.
func admit(ctx context.Context, tx Tx, accountID string, adm docmill.Admission, ops int64) error {
	var inFlight, held, used int64
	if err := tx.QueryRow(ctx, sqltext.CountInFlight, accountID).Scan(&inFlight, &held); err != nil {
		return err
	}
	if adm.MaxInFlight > 0 && inFlight >= int64(adm.MaxInFlight) {
		return docmill.ErrTooManyInFlight
	}
	if adm.MaxOperations <= 0 {
		return nil
	}
	if err := tx.QueryRow(ctx, sqltext.UsedOperations, accountID, adm.Period).Scan(&used); err != nil {
		return err
	}
	if used+held+ops > adm.MaxOperations {
		return docmill.ErrQuotaExceeded
	}
	return nil
}

// Job returns the job with id; an unknown id is docmill.ErrNotFound.
func (s *Store) Job(ctx context.Context, id string) (*docmill.Job, error) {
	j, err := scanJob(s.db.Read().QueryRow(ctx, sqltext.Job, id))
	if err != nil {
		return nil, s.errorf("job %s: %w", id, s.notFound(err))
	}
	return j, nil
}

// JobByIdempotencyKey returns the job that accountID created with the
// Idempotency-Key key, as it stands now; none (an empty key included) is
// docmill.ErrNotFound. It reads outside any transaction: CreateJob still
// settles a concurrent first use of the key under the account's lock.
func (s *Store) JobByIdempotencyKey(ctx context.Context, accountID, key string) (*docmill.Job, error) {
	if key == "" {
		return nil, docmill.ErrNotFound
	}
	j, err := scanJob(s.db.Read().QueryRow(ctx, sqltext.JobByIdemKey, accountID, key))
	if err != nil {
		return nil, s.errorf("job by idempotency key: %w", s.notFound(err))
	}
	return j, nil
}

// StartJob moves a queued or processing job to processing. started_at keeps
// the first start: a retried job started when its first attempt did.
func (s *Store) StartJob(ctx context.Context, id string, now time.Time) (*docmill.Job, error) {
	return s.updateJob(ctx, "start job", id, sqltext.StartJob, false, millis(now))
}

// RequeueJob moves a processing job back to queued; started_at keeps the
// first start.
func (s *Store) RequeueJob(ctx context.Context, id string) (*docmill.Job, error) {
	return s.updateJob(ctx, "requeue job", id, sqltext.RequeueJob, false)
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
	return s.updateJob(ctx, "cancel job", id, sqltext.CancelJob, true, millis(now))
}

// updateJob runs the conditional update q on job id and returns the job as
// it then stands, whether q changed it or not. finishes says that q moves
// the job to a final status (Config.JobFinished runs if it did).
func (s *Store) updateJob(ctx context.Context, op, id, q string, finishes bool, args ...any) (*docmill.Job, error) {
	var j *docmill.Job
	err := s.db.InTx(ctx, func(tx Tx) error {
		n, err := tx.Exec(ctx, q, append([]any{id}, args...)...)
		if err != nil {
			return err
		}
		if finishes && n > 0 {
			if err := s.jobFinished(ctx, tx, id); err != nil {
				return err
			}
			if err := s.deliver(ctx, tx, id); err != nil {
				return err
			}
		}
		j, err = scanJob(tx.QueryRow(ctx, sqltext.Job, id))
		return s.notFound(err)
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
		n, err := tx.Exec(ctx, sqltext.FinishJob, j.ID, string(j.Status), millis(finished),
			resultKey, nullIf(r.Filename, j.Result == nil), nullIf(r.ContentType, j.Result == nil),
			nullIf(r.Size, j.Result == nil), nullIf(millis(r.ExpiresAt), j.Result == nil),
			c.meta, errCode, errMsg, errFields, c.params)
		if err != nil {
			return err
		}
		if n == 0 {
			return jobExists(ctx, tx, j.ID) // nil: the job exists and is not processing
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
		var account, period string
		var ops int64
		if err := tx.QueryRow(ctx, sqltext.JobCharge, j.ID).Scan(&account, &period, &ops); err != nil {
			return err
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

// MarkResultDeleted records that job id's result file is gone; the first
// time recorded stands.
func (s *Store) MarkResultDeleted(ctx context.Context, id string, now time.Time) error {
	return s.mark(ctx, "mark result deleted", id, sqltext.MarkResultDeleted, now)
}

// MarkInputsDeleted records that job id's input files are gone; the first
// time recorded stands.
func (s *Store) MarkInputsDeleted(ctx context.Context, id string, now time.Time) error {
	return s.mark(ctx, "mark inputs deleted", id, sqltext.MarkInputsDeleted, now)
}

func (s *Store) mark(ctx context.Context, op, id, q string, now time.Time) error {
	err := s.db.InTx(ctx, func(tx Tx) error {
		n, err := tx.Exec(ctx, q, id, millis(now))
		if err != nil {
			return err
		}
		if n == 0 {
			return docmill.ErrNotFound
		}
		return nil
	})
	if err != nil {
		return s.errorf("%s %s: %w", op, id, err)
	}
	return nil
}

// ExpiredResults returns up to limit done jobs whose result expired at or
// before now and is not marked deleted, soonest expired first.
func (s *Store) ExpiredResults(ctx context.Context, now time.Time, limit int) ([]*docmill.Job, error) {
	return s.listJobs(ctx, "expired results", sqltext.ExpiredResults, limit, millis(now))
}

// StaleInputs returns up to limit finished jobs whose inputs are not marked
// deleted, earliest finished first.
func (s *Store) StaleInputs(ctx context.Context, limit int) ([]*docmill.Job, error) {
	return s.listJobs(ctx, "stale inputs", sqltext.StaleInputs, limit)
}

// DeleteJobsCreatedBefore deletes up to limit finished jobs created before t,
// oldest first, with their webhook attempts, and returns them as they were. Unfinished jobs are kept
// whatever their age.
func (s *Store) DeleteJobsCreatedBefore(ctx context.Context, t time.Time, limit int) ([]*docmill.Job, error) {
	if limit <= 0 {
		return nil, nil
	}
	var jobs []*docmill.Job
	err := s.db.InTx(ctx, func(tx Tx) error {
		var err error
		if jobs, err = queryJobs(ctx, tx, sqltext.OldJobs, millis(t), limit); err != nil {
			return err
		}
		for _, j := range jobs {
			if _, err := tx.Exec(ctx, sqltext.DeleteJob, j.ID); err != nil {
				return err
			}
			if _, err := tx.Exec(ctx, sqltext.DeleteJobWebhookAttempts, j.ID); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, s.errorf("delete old jobs: %w", err)
	}
	return jobs, nil
}

// Usage returns the operations accountID was charged in period and its jobs
// in flight now, read in one statement so that they are consistent.
func (s *Store) Usage(ctx context.Context, accountID, period string) (docmill.Usage, error) {
	u := docmill.Usage{Period: period}
	err := s.db.Read().QueryRow(ctx, sqltext.Usage, accountID, period).Scan(&u.Operations, &u.InFlight)
	if err != nil {
		return docmill.Usage{}, s.errorf("usage: %w", err)
	}
	return u, nil
}

// CountByStatus returns how many jobs are queued and processing; both keys
// are always present.
func (s *Store) CountByStatus(ctx context.Context) (map[docmill.Status]int64, error) {
	rows, err := s.db.Read().Query(ctx, sqltext.CountByStatus)
	if err != nil {
		return nil, s.errorf("count by status: %w", err)
	}
	defer rows.Close()
	counts := map[docmill.Status]int64{docmill.StatusQueued: 0, docmill.StatusProcessing: 0}
	for rows.Next() {
		var st string
		var n int64
		if err := rows.Scan(&st, &n); err != nil {
			return nil, s.errorf("count by status: %w", err)
		}
		counts[docmill.Status(st)] = n
	}
	if err := rows.Err(); err != nil {
		return nil, s.errorf("count by status: %w", err)
	}
	return counts, nil
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
