package httpapi

import (
	"errors"
	"net/http"
	"strconv"

	"github.com/docmill/docmill"
)

// ownJob loads the job named in the path if it belongs to the caller; any
// other account gets not_found, as for a job that does not exist.
func (s *Server) ownJob(r *http.Request) (*docmill.Job, error) {
	j, err := s.cfg.Store.Job(r.Context(), r.PathValue("job_id"))
	if errors.Is(err, docmill.ErrNotFound) || (err == nil && j.AccountID != callerOf(r.Context()).account.ID) {
		return nil, docmill.Errorf(docmill.CodeNotFound, "No job %q.", r.PathValue("job_id"))
	}
	if err != nil {
		return nil, docmill.Internal(err)
	}
	noteJob(r.Context(), j)
	return j, nil
}

// handleGetJob answers a poll with the job record; unfinished jobs carry a
// Retry-After polling hint. With ?wait=N (pollWait) an unfinished job's
// answer waits until it finishes, N seconds pass or the server drains,
// woken as a sync process call is (waitJob), holding no database
// connection meanwhile; a client that goes away ends the wait.
func (s *Server) handleGetJob(w http.ResponseWriter, r *http.Request) {
	wait, err := pollWait(r.URL.Query())
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	j, err := s.ownJob(r)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	if wait > 0 && !j.Status.Finished() {
		j = s.waitJob(r, j, wait)
	}
	if !j.Status.Finished() {
		t, _ := s.cfg.Registry.Lookup(j.Tool)
		setPollHint(w.Header(), t)
	}
	writeJSON(w, http.StatusOK, s.records.Record(r.Context(), j))
}

// setPollHint sets the Retry-After of an answer about an unfinished job:
// the seconds a client should wait before polling it again, 5 for a long
// tool (t.Long), 1 for any other (and for a tool this node does not serve,
// nil).
func setPollHint(h http.Header, t *docmill.Tool) {
	retry := 1
	if t != nil && t.Long {
		retry = 5
	}
	h.Set("Retry-After", strconv.Itoa(retry))
}

// handleDeleteJob cancels a queued or processing job, or deletes a finished
// job's result now; it answers with the job as it then stands.
func (s *Server) handleDeleteJob(w http.ResponseWriter, r *http.Request) {
	j, err := s.ownJob(r)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	j, err = s.cfg.Queue.Cancel(r.Context(), j)
	if err != nil {
		s.writeError(w, r, docmill.Internal(err))
		return
	}
	writeJSON(w, http.StatusOK, s.records.Record(r.Context(), j))
}
