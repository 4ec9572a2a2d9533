package client

import (
	"context"
	"iter"
	"net/http"
	"net/url"
	"strconv"
	"time"
)

// MaxPollWait is the longest wait GetJob may ask the server for: the
// server's own bound on ?wait (docs/api.md), a fact of the API.
const MaxPollWait = 60 * time.Second

// ListOptions select a page of GET /v1/jobs; zero values are left out.
type ListOptions struct {
	// Status keeps the jobs in one status (queued, processing, done,
	// failed, canceled).
	Status string
	// Tool keeps the jobs of one tool slug.
	Tool string
	// Limit is the page size (server default 20, at most 100).
	Limit int
	// Cursor is the NextCursor of the previous page.
	Cursor string
}

// JobList is a page of the caller's jobs, newest first.
type JobList struct {
	Jobs []Job `json:"jobs"`
	// NextCursor continues the list; it is empty on the last page.
	NextCursor string `json:"next_cursor"`
}

// ListJobs returns one page of the caller's jobs.
func (c *Client) ListJobs(ctx context.Context, opts ListOptions) (*JobList, error) {
	q := url.Values{}
	for name, v := range map[string]string{"status": opts.Status, "tool": opts.Tool, "cursor": opts.Cursor} {
		if v != "" {
			q.Set(name, v)
		}
	}
	if opts.Limit > 0 {
		q.Set("limit", strconv.Itoa(opts.Limit))
	}
	path := "/v1/jobs"
	if len(q) > 0 {
		path += "?" + q.Encode()
	}
	var l JobList
	if _, err := c.call(ctx, http.MethodGet, path, &l); err != nil {
		return nil, err
	}
	return &l, nil
}

// AllJobs yields every job ListJobs pages through from opts (its Limit
// sizes the pages), following NextCursor; it stops at the first error,
// which it yields with a nil job.
func (c *Client) AllJobs(ctx context.Context, opts ListOptions) iter.Seq2[*Job, error] {
	return func(yield func(*Job, error) bool) {
		for {
			page, err := c.ListJobs(ctx, opts)
			if err != nil {
				yield(nil, err)
				return
			}
			for i := range page.Jobs {
				if !yield(&page.Jobs[i], nil) {
					return
				}
			}
			if page.NextCursor == "" {
				return
			}
			opts.Cursor = page.NextCursor
		}
	}
}

// GetJob polls a job. With wait > 0 (whole seconds, at most MaxPollWait)
// the server answers when the job finishes or after wait, whichever is
// first (a long poll: GET /v1/jobs/{id}?wait=N).
func (c *Client) GetJob(ctx context.Context, id string, wait time.Duration) (*Job, *Response, error) {
	path := "/v1/jobs/" + url.PathEscape(id)
	if wait > 0 {
		path += "?wait=" + strconv.Itoa(int(wait.Round(time.Second)/time.Second))
	}
	var j Job
	resp, err := c.call(ctx, http.MethodGet, path, &j)
	if err != nil {
		return nil, resp, err
	}
	return &j, resp, nil
}

// WaitJob long-polls a job until it is finished, MaxPollWait at a time,
// for at most timeout (0: no limit), and returns it as it then stands:
// the caller checks Finished. It is Await with only a timeout.
func (c *Client) WaitJob(ctx context.Context, id string, timeout time.Duration) (*Job, error) {
	return c.Await(ctx, id, WaitOptions{Timeout: timeout})
}

// WaitOptions shape Await.
type WaitOptions struct {
	// Timeout bounds the whole wait (0: no limit).
	Timeout time.Duration
	// PollWait is the longest a single long poll waits (0 or more than
	// MaxPollWait: MaxPollWait); a shorter one lets OnPoll see a queued
	// job start processing sooner, at the cost of more requests.
	PollWait time.Duration
	// OnPoll, when set, is called with the job after each poll.
	OnPoll func(*Job)
}

// Await long-polls a job until it is finished or opts.Timeout passes,
// and returns it as it then stands: the caller checks Finished. An
// unfinished answer that comes back early (a server shutting down, or one
// that does not long-poll) is followed by a pause of its Retry-After, so
// the loop never spins.
func (c *Client) Await(ctx context.Context, id string, opts WaitOptions) (*Job, error) {
	var deadline time.Time
	if opts.Timeout > 0 {
		deadline = time.Now().Add(opts.Timeout)
	}
	longest := MaxPollWait
	if opts.PollWait > 0 {
		longest = min(longest, opts.PollWait)
	}
	for {
		wait := longest
		if !deadline.IsZero() {
			// Whole seconds, rounded up: the server's unit.
			wait = min(wait, time.Until(deadline).Truncate(time.Second)+time.Second)
		}
		asked := time.Now()
		j, resp, err := c.GetJob(ctx, id, wait)
		if err != nil {
			return nil, err
		}
		if opts.OnPoll != nil {
			opts.OnPoll(j)
		}
		if j.Finished() || (!deadline.IsZero() && !time.Now().Before(deadline)) {
			return j, nil
		}
		if time.Since(asked) >= wait/2 {
			continue
		}
		pause := time.Second
		if s, err := strconv.Atoi(resp.Header.Get("Retry-After")); err == nil && s > 0 {
			pause = time.Duration(s) * time.Second
		}
		if !deadline.IsZero() {
			pause = min(pause, time.Until(deadline))
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(pause):
		}
	}
}

// Job polls a job once (GetJob without a wait).
func (c *Client) Job(ctx context.Context, id string) (*Job, error) {
	j, _, err := c.GetJob(ctx, id, 0)
	return j, err
}

// Wait polls a job without long polls until it is finished, following
// the server's Retry-After hint but at most every maxPoll: for a server
// behind a proxy that cuts a minute-long poll. WaitJob is the usual way.
func (c *Client) Wait(ctx context.Context, id string, maxPoll time.Duration) (*Job, error) {
	for {
		j, resp, err := c.GetJob(ctx, id, 0)
		if err != nil {
			return nil, err
		}
		if j.Finished() {
			return j, nil
		}
		wait := maxPoll
		if s, err := strconv.Atoi(resp.Header.Get("Retry-After")); err == nil && time.Duration(s)*time.Second < wait {
			wait = time.Duration(s) * time.Second
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(wait):
		}
	}
}

// CancelJob cancels a queued or processing job, or deletes a finished
// job's result now; it returns the job as it then stands.
func (c *Client) CancelJob(ctx context.Context, id string) (*Job, error) {
	var j Job
	if _, err := c.call(ctx, http.MethodDelete, "/v1/jobs/"+url.PathEscape(id), &j); err != nil {
		return nil, err
	}
	return &j, nil
}
