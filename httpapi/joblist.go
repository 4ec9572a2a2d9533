package httpapi

import (
	"encoding/base64"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/docmill/docmill"
	"github.com/docmill/docmill/jobview"
)

// The job list (GET /v1/jobs) and long polls of one job (?wait=N).
const (
	// defaultListLimit is a page's size when the request names none.
	defaultListLimit = 20
	// maxListLimit is the largest page a request may ask for.
	maxListLimit = 100
	// maxPollWait is the longest ?wait a poll may ask for, in seconds:
	// longer than a typical proxy's idle timeout would not help a client.
	maxPollWait = 60
)

// jobListBody is the body of GET /v1/jobs: a page of job records, each as
// GET /v1/jobs/{id} renders it, and the cursor of the next page, absent on
// the last one.
type jobListBody struct {
	Jobs       []jobview.Record `json:"jobs"`
	NextCursor string           `json:"next_cursor,omitempty"`
}

// handleListJobs answers with a page of the caller's jobs, newest first:
// ?status= and ?tool= filter it, ?limit= sizes it (default 20, at most
// 100), ?cursor= (a next_cursor of an earlier page) continues after that
// page. Paging by position (docmill.JobPosition) neither repeats nor skips
// a job when others are created between pages.
func (s *Server) handleListJobs(w http.ResponseWriter, r *http.Request) {
	q, err := url.ParseQuery(r.URL.RawQuery)
	if err != nil {
		s.writeError(w, r, docmill.Errorf(docmill.CodeInvalidRequest, "The query string is malformed."))
		return
	}
	f, err := s.parseJobFilter(q)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	f.AccountID = callerOf(r.Context()).account.ID
	limit := f.Limit
	f.Limit++ // one more than asked tells whether a next page exists
	jobs, err := s.cfg.Store.ListJobs(r.Context(), f)
	if err != nil {
		s.writeError(w, r, docmill.Internal(err))
		return
	}
	body := jobListBody{Jobs: make([]jobview.Record, 0, min(len(jobs), limit))}
	if len(jobs) > limit {
		jobs = jobs[:limit]
		body.NextCursor = encodeCursor(docmill.PositionOf(jobs[limit-1]))
	}
	for _, j := range jobs {
		body.Jobs = append(body.Jobs, s.records.Record(r.Context(), j))
	}
	writeJSON(w, http.StatusOK, body)
}

// parseJobFilter reads the query of GET /v1/jobs. Unknown or repeated
// parameters are refused, as unknown form fields are, so that a typo
// does not silently list everything; an empty value is as if absent.
func (s *Server) parseJobFilter(q url.Values) (docmill.JobFilter, error) {
	f := docmill.JobFilter{Limit: defaultListLimit}
	for _, name := range slices.Sorted(maps.Keys(q)) { // sorted: the same query, the same answer
		vals := q[name]
		if len(vals) > 1 {
			return f, docmill.ParamError(name, "must be given once")
		}
		v := vals[0]
		if v == "" {
			continue
		}
		switch name {
		case "status":
			f.Status = docmill.Status(v)
			if !f.Status.Valid() {
				return f, docmill.ParamError(name, "must be one of %s", joinStatuses())
			}
		case "tool":
			if _, ok := s.cfg.Registry.Lookup(v); !ok {
				return f, docmill.ParamError(name, "is not a tool of this server (GET /v1/tools lists them)")
			}
			f.Tool = v
		case "limit":
			n, err := strconv.Atoi(v)
			if err != nil || n < 1 || n > maxListLimit {
				return f, docmill.ParamError(name, "must be an integer from 1 to %d", maxListLimit)
			}
			f.Limit = n
		case "cursor":
			p, ok := decodeCursor(v)
			if !ok {
				return f, docmill.ParamError(name, "is not a next_cursor this server gave")
			}
			f.After = &p
		default:
			return f, docmill.ParamError(name, "is not a parameter of this endpoint (status, tool, limit, cursor)")
		}
	}
	return f, nil
}

func joinStatuses() string { return strings.Join(joinStatusList(), ", ") }

// A cursor is the position of a page's last job, "<created_at in unix
// ms>.<job id>" in unpadded base64url: opaque to clients, safe in a URL,
// and stateless, so any node of a deployment continues any page. It names
// no account: the list is always the caller's, so another account's cursor
// only sets a place in the caller's own list.
func encodeCursor(p docmill.JobPosition) string {
	return base64.RawURLEncoding.EncodeToString([]byte(strconv.FormatInt(p.CreatedAt.UnixMilli(), 10) + "." + p.ID))
}

// decodeCursor is the inverse of encodeCursor; ok is false for anything
// encodeCursor cannot have made.
func decodeCursor(c string) (p docmill.JobPosition, ok bool) {
	if len(c) > 200 {
		return p, false
	}
	b, err := base64.RawURLEncoding.DecodeString(c)
	if err != nil {
		return p, false
	}
	ms, id, found := strings.Cut(string(b), ".")
	n, err := strconv.ParseInt(ms, 10, 64)
	if !found || err != nil || n < 0 || !strings.HasPrefix(id, "job_") || len(id) > 64 {
		return p, false
	}
	return docmill.JobPosition{CreatedAt: time.UnixMilli(n).UTC(), ID: id}, true
}

// pollWait reads the ?wait=N of a poll: 0 (answer at once) when absent or
// empty, else whole seconds from 0 to maxPollWait.
func pollWait(q url.Values) (time.Duration, error) {
	vals := q["wait"]
	if len(vals) == 0 || (len(vals) == 1 && vals[0] == "") {
		return 0, nil
	}
	n, err := strconv.Atoi(vals[0])
	if len(vals) > 1 || err != nil || n < 0 || n > maxPollWait {
		return 0, docmill.ParamError("wait", "must be a whole number of seconds from 0 to %d", maxPollWait)
	}
	return time.Duration(n) * time.Second, nil
}

// addJobListOpenAPI describes GET /v1/jobs and the ?wait of a poll in the
// OpenAPI document's paths and schemas.
func addJobListOpenAPI(paths, schemas obj) {
	str := obj{"type": "string"}
	list := op("listJobs", tagJobs, "The caller's jobs, newest first, a page at a time", "200",
		"A page of job records, each as GET /v1/jobs/{job_id} renders it, and next_cursor unless it is the last page.",
		jsonResponse(ref("JobList"), obj{"jobs": []obj{exampleJob("rotate-pdf", "report-rotated.pdf")}, "next_cursor": "MTc5NTQzMjgwMDAwMC5qb2JfNGtx"}))
	list["description"] = "Pages are cut by position, not offset: following next_cursor neither repeats nor skips a job, " +
		"even while jobs are created. Unknown parameters, an unknown status or tool, a limit out of range and a cursor " +
		"this server did not give are 400 invalid_parameter naming the field. Rate-limited as a poll."
	list["parameters"] = []obj{
		{"name": "status", "in": "query", "schema": obj{"type": "string", "enum": joinStatusList()}, "description": "only jobs in this status"},
		{"name": "tool", "in": "query", "schema": str, "description": "only jobs of this tool (a slug of GET /v1/tools)"},
		{"name": "limit", "in": "query", "schema": obj{"type": "integer", "minimum": 1, "maximum": maxListLimit, "default": defaultListLimit}},
		{"name": "cursor", "in": "query", "schema": str, "description": "the next_cursor of the previous page (opaque)"},
	}
	paths["/v1/jobs"] = obj{"get": rateLimited(withErrors(list, 400))}
	schemas["JobList"] = obj{"type": "object", "required": []string{"jobs"}, "properties": obj{
		"jobs":        obj{"type": "array", "items": ref("Job")},
		"next_cursor": obj{"type": "string", "description": "the cursor of the next page; absent on the last page"},
	}}
	if one, ok := paths["/v1/jobs/{job_id}"].(obj); ok {
		if get, ok := one["get"].(obj); ok {
			get["parameters"] = []obj{{"name": "wait", "in": "query",
				"schema": obj{"type": "integer", "minimum": 0, "maximum": maxPollWait, "default": 0},
				"description": "long poll: answer when the job finishes, or after this many seconds with the job as it stands " +
					"(also at once when the server begins shutting down)"}}
		}
	}
}

// joinStatusList lists the statuses' names.
func joinStatusList() []string {
	names := make([]string, len(docmill.Statuses))
	for i, st := range docmill.Statuses {
		names[i] = string(st)
	}
	return names
}
