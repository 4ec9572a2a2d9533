package httpapi

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/docmill/docmill"
)

// maxIdempotencyKey bounds the Idempotency-Key header: a key is an
// identifier (a UUID is 36 bytes), a bound on the request, not a cost.
const maxIdempotencyKey = 255

// handleProcess runs a tool: it streams the upload to storage, validates the
// params, admits the job against the plan, and waits for it up to the sync
// budget (200 with the finished job, else 202 with Location).
//
// A Content-Length over what the plan allows the tool is refused first,
// from the headers (refuseEarly). A request whose Idempotency-Key the
// account already used is then answered by replay before anything else
// is checked: no rate limit, quota or in-flight limit applies to it, and
// it is not charged. Only then is the request rate-limited (scopeProcess)
// and admitted.
func (s *Server) handleProcess(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	c := callerOf(ctx)
	noteTool(ctx, r.PathValue("tool"))
	tool, ok := s.cfg.Registry.Lookup(r.PathValue("tool"))
	if !ok {
		s.writeError(w, r, docmill.Errorf(docmill.CodeUnknownTool, "There is no tool %q; GET /v1/tools lists them.", r.PathValue("tool")))
		return
	}
	// A body over what the plan allows is refused before anything else,
	// a replay's too (it is read under the same limits).
	if err := s.refuseEarly(w, r, tool, s.fileLimit(c.plan)); err != nil {
		s.writeError(w, r, err)
		return
	}
	idemKey := strings.TrimSpace(r.Header.Get("Idempotency-Key"))
	if len(idemKey) > maxIdempotencyKey {
		s.writeError(w, r, docmill.Errorf(docmill.CodeInvalidRequest, "Idempotency-Key is longer than %d characters.", maxIdempotencyKey))
		return
	}
	wait, err := s.waitBudget(r, tool.Long)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	if idemKey != "" {
		prev, err := s.cfg.Store.JobByIdempotencyKey(ctx, c.account.ID, idemKey)
		if err == nil {
			s.replay(w, r, tool, prev, wait)
			return
		}
		if !errors.Is(err, docmill.ErrNotFound) {
			s.writeError(w, r, docmill.Internal(err))
			return
		}
	}
	s.limited(scopeProcess, func(w http.ResponseWriter, r *http.Request) {
		s.processNew(w, r, tool, idemKey, wait)
	})(w, r)
}

// processNew runs a request that is not a replay, once the rate limit let
// it through. CreateJob may still find the key used, by a concurrent
// request with the same key: its job then stands and is the answer. (Such
// a request, sent before the first one's job existed, is checked against
// the account's limits like a new one; sent again, it is a replay.)
func (s *Server) processNew(w http.ResponseWriter, r *http.Request, tool *docmill.Tool, idemKey string, wait time.Duration) {
	ctx := r.Context()
	c := callerOf(ctx)
	adm, periodEnd, err := s.admitEarly(r, c, tool)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	jobID := docmill.NewJobID()
	s.trace(jobID, StageAdmitted)
	in, err := s.readProcess(ctx, w, r, tool, jobID, c.plan, idemKey != "")
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	s.trace(jobID, StageInputStored)
	if in.form.long {
		wait, _ = s.waitBudget(r, true) // a pipeline with a long step; the header was read once already
	}
	params := in.form.params
	job := &docmill.Job{
		ID: jobID, AccountID: c.account.ID, Tool: tool.Slug, Status: docmill.StatusQueued, Operations: in.form.operations,
		Params: params, Inputs: in.up.files, Priority: c.plan.Priority, ResultTTL: c.plan.ResultTTL,
		// Created now, once its files are stored: the job's queued_ms
		// (started - created) is its time in the queue, not the upload's.
		IdempotencyKey: idemKey, CreatedAt: s.cfg.Now(), Export: in.export, Preview: in.preview,
	}
	// Only a request with an Idempotency-Key is ever matched against
	// another, so only its files were hashed.
	if idemKey != "" {
		job.RequestHash = requestHash(tool.Slug, params, withPreview(withExport(in.up.hashes, in.export), in.preview))
	}
	// A call that waits for its job answers before the job's end only
	// after Durable (answerJob): its insert need not wait for the disk.
	adm.Waited = wait > 0
	stored, err := s.cfg.Store.CreateJob(ctx, job, adm)
	if err != nil {
		// The upload is not lost silently: its files go, and the client is
		// told why (503 service_unavailable when the database is down).
		s.deleteInputs(in.up.files)
		s.writeError(w, r, s.admissionError(err, periodEnd))
		return
	}
	if stored.ID != job.ID { // a concurrent Idempotency-Key replay: the earlier job stands
		s.deleteInputs(in.up.files)
	}
	s.trace(jobID, StageJobCreated)
	// The earlier job of a concurrent replay may be another call's Waited
	// one.
	s.answerJob(w, r, stored, tool, wait, adm.Waited || stored.ID != job.ID)
	s.trace(jobID, StageAnswered)
}

// The stages of a new process request that Config.Trace is told of, in
// order: admitted (authenticated, rate limited, prechecked) and given a
// job id, its upload read, sniffed and stored, its job created and
// queued (committed), its wait for the job over (woken), its answer
// written.
const (
	StageAdmitted    = "admitted"
	StageInputStored = "input_stored"
	StageJobCreated  = "job_created"
	StageWoken       = "woken"
	StageAnswered    = "answered"
)

// trace tells Config.Trace, if set, that job id reached stage.
func (s *Server) trace(id, stage string) {
	if s.cfg.Trace != nil {
		s.cfg.Trace(id, stage)
	}
}

// admitEarly refuses, before the body is read, a request that cannot be
// taken now: its tool's engine is missing, the account is already over
// its limits (CreateJob checks them again, atomically, with adm), or the
// local file store has no room for the upload (Content-Length, or -1
// when the body is chunked). periodEnd is when the month's quota resets.
func (s *Server) admitEarly(r *http.Request, c *caller, tool *docmill.Tool) (adm docmill.Admission, periodEnd time.Time, err error) {
	if !tool.IsAvailable() {
		return adm, periodEnd, docmill.Errorf(docmill.CodeEngineUnavailable, "The engine of %s is not available on this server.", tool.Slug)
	}
	period, periodEnd := docmill.Period(s.cfg.Now())
	adm = docmill.Admission{Period: period, MaxOperations: c.plan.OperationsPerMonth, MaxInFlight: c.plan.JobsInFlight}
	if err := s.precheck(r, c, adm, periodEnd); err != nil {
		return adm, periodEnd, err
	}
	if s.cfg.Space != nil {
		if err := s.cfg.Space.Admit(r.ContentLength); err != nil {
			return adm, periodEnd, err
		}
	}
	return adm, periodEnd, nil
}

// processInput is a process request read whole: its files stored (the
// fetched file_url inputs with them), its params parsed, its export and
// preview fields taken.
type processInput struct {
	up      *upload
	form    *processForm
	export  *docmill.Export
	preview bool
}

// readProcess reads a process request's form and files as the inputs of
// the job jobID, each file held to plan's limit (and hashed when
// hashFiles: the request has an Idempotency-Key). On an error no input is
// left stored.
func (s *Server) readProcess(ctx context.Context, w http.ResponseWriter, r *http.Request, tool *docmill.Tool, jobID string, plan docmill.Plan, hashFiles bool) (processInput, error) {
	up, err := s.readUpload(ctx, w, r, tool, jobID, s.fileLimit(plan), s.cfg.Blob, hashFiles)
	if err != nil {
		return processInput{}, err
	}
	in := processInput{up: up}
	// file_url inputs are fetched once the form is read, and only when
	// its export fields are valid; a pipeline's steps are checked against
	// every input, fetched ones included.
	in.export, err = s.takeExport(ctx, up.fields)
	if err == nil {
		in.preview, err = takePreview(up.fields)
	}
	if err == nil {
		err = s.fetchInputs(ctx, up, tool, jobID, s.fileLimit(plan), s.cfg.Blob)
	}
	if err == nil {
		in.form, err = s.parseForm(tool, up)
	}
	if err == nil {
		err = s.checkURLParams(ctx, tool, in.form.params)
	}
	if err != nil {
		s.deleteInputs(up.files)
		return processInput{}, err
	}
	return in, nil
}

// checkURLParams holds the addresses a tool will fetch (its TypeURL
// params, url-to-pdf's page) to the outbound rules before a job is made,
// so that a refused one is a 400 invalid_parameter naming the param, and
// no request is sent to it. The tool's fetches are checked again at dial
// time: what a name resolves to may change.
func (s *Server) checkURLParams(ctx context.Context, tool *docmill.Tool, params docmill.Params) error {
	for _, p := range tool.Params {
		v, ok := params[p.Name]
		if p.Type != docmill.TypeURL || !ok {
			continue
		}
		if s.cfg.URLs == nil {
			return docmill.ParamError(p.Name, "is not supported by this server")
		}
		if err := s.cfg.URLs.CheckURL(ctx, p.Name, v); err != nil {
			return err
		}
	}
	return nil
}

// replay answers a request whose Idempotency-Key names an existing job of
// the account. The key and the account come from the headers, but the
// request's fingerprint (requestHash: tool, params and the files' SHA-256)
// needs the body, so the upload is read as a new request's would be, with
// the same checks and size limits, and stored nowhere. If the fingerprint
// matches, the job is the answer, as it stands after the sync wait, with
// no limit checked and nothing charged: the job was admitted when it was
// created and is charged once, when done. A different request with the
// key is not a replay: it spends the rate limit like any new request and
// is refused with 409 idempotency_conflict.
func (s *Server) replay(w http.ResponseWriter, r *http.Request, tool *docmill.Tool, prev *docmill.Job, wait time.Duration) {
	hash, long, err := s.fingerprint(r.Context(), w, r, tool)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	if long {
		wait, _ = s.waitBudget(r, true)
	}
	if hash != prev.RequestHash {
		s.limited(scopeProcess, func(w http.ResponseWriter, r *http.Request) {
			s.writeError(w, r, docmill.ErrIdempotencyConflict)
		})(w, r)
		return
	}
	s.answerJob(w, r, prev, tool, wait, true) // prev may be a Waited call's, not yet ended
}

// fingerprint reads a process request's upload without storing it and
// returns its requestHash, and whether the request is long (a pipeline
// with a long step).
func (s *Server) fingerprint(ctx context.Context, w http.ResponseWriter, r *http.Request, tool *docmill.Tool) (string, bool, error) {
	up, err := s.readUpload(ctx, w, r, tool, "", s.fileLimit(callerOf(ctx).plan), discard{}, true)
	if err != nil {
		return "", false, err
	}
	export, err := s.takeExport(ctx, up.fields)
	if err != nil {
		return "", false, err
	}
	preview, err := takePreview(up.fields)
	if err != nil {
		return "", false, err
	}
	form, err := s.parseForm(tool, up)
	if err != nil {
		return "", false, err
	}
	return requestHash(tool.Slug, form.params, withPreview(withExport(up.hashes, export), preview)), form.long, nil
}

// answerJob waits up to wait for an unfinished job, then answers with it
// (writeJobResult). The job is accepted whatever happens to the wait: if
// the wait fails (the database went away meanwhile), the answer is the job
// as it stood, 202 with its Location, rather than an error that would make
// a client without an Idempotency-Key send it again. For the same reason
// a node that shuts down ends the wait early (Drain): the client learns
// its job's id, and polls it on another node or after the restart.
//
// lazy says that the job's insert may not be durable yet (a Waited
// CreateJob, see docmill.Admission): an answer for a job that has not
// ended then waits for Durable first, and is a 503 if the database cannot
// say, since a job answered for must never be lost. A job that ended is
// durable: its end's commit waited for the disk.
func (s *Server) answerJob(w http.ResponseWriter, r *http.Request, j *docmill.Job, tool *docmill.Tool, wait time.Duration, lazy bool) {
	if wait > 0 && !j.Status.Finished() {
		j = s.waitJob(r, j, wait)
		s.trace(j.ID, StageWoken)
	}
	if lazy && !j.Status.Finished() {
		if err := s.cfg.Store.Durable(r.Context(), j.ID); err != nil {
			s.writeError(w, r, docmill.Internal(err))
			return
		}
	}
	s.writeJobResult(w, r, j, tool)
}

// waitJob returns j once it is finished, wait has passed or the server
// drains, whichever comes first; on a failure, j as it stood.
func (s *Server) waitJob(r *http.Request, j *docmill.Job, wait time.Duration) *docmill.Job {
	ctx, stop := s.untilDrain(r.Context())
	defer stop()
	waited, err := s.cfg.Queue.Wait(ctx, j.ID, wait)
	switch {
	case r.Context().Err() != nil: // the client is gone
		return j
	case ctx.Err() != nil:
		// Drained: Wait's last look may be a moment old, or missing if
		// the drain interrupted it; the answer is the job as it is now.
		if now, err := s.cfg.Store.Job(r.Context(), j.ID); err == nil {
			return now
		}
		if waited != nil {
			return waited
		}
		return j
	case err != nil:
		s.log.Warn("wait for job", "request_id", requestID(r.Context()), "job_id", j.ID, "err", err)
		return j
	}
	return waited
}

// writeJobResult answers a process call with the job as it stands: 200
// when done, the job's own error when it failed, else 202 with polling
// hints.
func (s *Server) writeJobResult(w http.ResponseWriter, r *http.Request, j *docmill.Job, tool *docmill.Tool) {
	noteJob(r.Context(), j)
	switch j.Status {
	case docmill.StatusDone, docmill.StatusCanceled:
		writeJSON(w, http.StatusOK, s.records.Record(r.Context(), j))
	case docmill.StatusFailed:
		s.writeJobError(w, r, &docmill.Error{Code: j.Error.Code, Message: j.Error.Message, Fields: j.Error.Fields}, j.ID)
	default:
		w.Header().Set("Location", "/v1/jobs/"+j.ID)
		setPollHint(w.Header(), tool)
		writeJSON(w, http.StatusAccepted, s.records.Record(r.Context(), j))
	}
}

// waitBudget is how long the handler waits for the job: the sync budget,
// none for a long job (a long tool, a pipeline with a long step) or with
// Prefer: respond-async, or N seconds with Prefer: wait=N (capped).
func (s *Server) waitBudget(r *http.Request, long bool) (time.Duration, error) {
	budget := s.cfg.SyncBudget
	if long {
		budget = 0
	}
	for _, h := range r.Header.Values("Prefer") {
		for _, pref := range strings.Split(h, ",") {
			name, val, _ := strings.Cut(strings.TrimSpace(pref), "=")
			switch strings.ToLower(strings.TrimSpace(name)) {
			case "respond-async":
				return 0, nil
			case "wait":
				n, err := strconv.Atoi(strings.Trim(strings.TrimSpace(val), `"`))
				if err != nil || n < 0 {
					return 0, docmill.Errorf(docmill.CodeInvalidRequest, "Prefer: wait=N needs a whole number of seconds.")
				}
				budget = s.cfg.MaxWait
				if int64(n) < int64(s.cfg.MaxWait/time.Second) { // compared first: n seconds may overflow a Duration
					budget = time.Duration(n) * time.Second
				}
			}
		}
	}
	return budget, nil
}

func (s *Server) precheck(r *http.Request, c *caller, adm docmill.Admission, periodEnd time.Time) error {
	u, err := s.cfg.Store.Usage(r.Context(), c.account.ID, adm.Period)
	if err != nil {
		return docmill.Internal(err)
	}
	if adm.MaxInFlight > 0 && u.InFlight >= int64(adm.MaxInFlight) {
		return s.admissionError(docmill.ErrTooManyInFlight, periodEnd)
	}
	if adm.MaxOperations > 0 && u.Operations+u.InFlight >= adm.MaxOperations {
		return s.admissionError(docmill.ErrQuotaExceeded, periodEnd)
	}
	return nil
}

// admissionError adds the client's wait to the store's refusals.
func (s *Server) admissionError(err error, periodEnd time.Time) error {
	switch {
	case errors.Is(err, docmill.ErrQuotaExceeded):
		e := *docmill.ErrQuotaExceeded
		e.Message = "The monthly operations quota of your plan is used up; it resets at " + periodEnd.Format(time.RFC3339) + "."
		e.RetryAfter = max(1, ceilSeconds(periodEnd.Sub(s.cfg.Now())))
		return &e
	case errors.Is(err, docmill.ErrTooManyInFlight):
		e := *docmill.ErrTooManyInFlight
		e.RetryAfter = 1
		return &e
	case errors.Is(err, docmill.ErrIdempotencyConflict):
		return docmill.ErrIdempotencyConflict
	}
	return docmill.AsError(err)
}

// fileLimit is the per-file size limit and whose it is: the plan's, or
// the server's when that is lower or the plan sets none.
func (s *Server) fileLimit(p docmill.Plan) sizeLimit {
	if p.MaxFileBytes > 0 && p.MaxFileBytes <= s.cfg.MaxUploadBytes {
		return sizeLimit{bytes: p.MaxFileBytes, owner: "the " + docmill.Code(p.Name).Title() + " plan"}
	}
	return sizeLimit{bytes: s.cfg.MaxUploadBytes, owner: "this server"}
}

// requestHash identifies a request for Idempotency-Key matching: the tool,
// the validated params and the files' contents.
func requestHash(tool string, p docmill.Params, fileHashes []string) string {
	// Every item is length-prefixed, so no value can pass for two.
	h := sha256.New()
	item := func(s string) { fmt.Fprintf(h, "%d:%s", len(s), s) }
	item(tool)
	names := make([]string, 0, len(p))
	for k := range p {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		item(k)
		item(p[k])
	}
	for _, f := range fileHashes {
		item(f)
	}
	return hex.EncodeToString(h.Sum(nil))
}
