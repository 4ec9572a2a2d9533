// Package client is a Go client of the docmill HTTP API. The CLI and the
// end-to-end tests use it; uploads stream from the caller's readers, so a
// large file is never held in memory.
package client

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Client talks to one docmill server with one API key.
type Client struct {
	BaseURL string
	Key     string
	HTTP    *http.Client
}

// New returns a client of the server at baseURL.
func New(baseURL, key string) *Client {
	return &Client{BaseURL: strings.TrimRight(baseURL, "/"), Key: key, HTTP: &http.Client{}}
}

// Job is the job record.
type Job struct {
	JobID      string         `json:"job_id"`
	Status     string         `json:"status"`
	Tool       string         `json:"tool"`
	CreatedAt  time.Time      `json:"created_at"`
	FinishedAt *time.Time     `json:"finished_at"`
	Result     *Result        `json:"result"`
	Meta       map[string]any `json:"meta"`
	Error      *JobError      `json:"error"`
}

// Result describes a done job's file.
type Result struct {
	URL         string    `json:"url"`
	Size        int64     `json:"size"`
	Filename    string    `json:"filename"`
	ContentType string    `json:"content_type"`
	ExpiresAt   time.Time `json:"expires_at"`
	Expired     bool      `json:"expired"`
	// The export to export_url: its destination (without the query),
	// status (pending, done, failed) and the reason of a failure.
	ExportedTo   string `json:"exported_to,omitempty"`
	ExportStatus string `json:"export_status,omitempty"`
	ExportError  string `json:"export_error,omitempty"`
}

// JobError is a failed job's reason.
type JobError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// Finished reports whether the job reached a final status.
func (j *Job) Finished() bool {
	return j.Status == "done" || j.Status == "failed" || j.Status == "canceled"
}

// Error is an error answer (problem+json) of the server.
type Error struct {
	StatusCode int
	Header     http.Header
	Type       string `json:"type"`
	Title      string `json:"title"`
	Detail     string `json:"detail"`
	Code       string `json:"code"`
	RequestID  string `json:"request_id"`
	JobID      string `json:"job_id"`
	Errors     []struct {
		Field   string `json:"field"`
		Message string `json:"message"`
	} `json:"errors"`
}

func (e *Error) Error() string {
	return fmt.Sprintf("docmill: %d %s: %s", e.StatusCode, e.Code, e.Detail)
}

// File is one file to upload.
type File struct {
	Name string
	Body io.Reader
}

// ProcessOptions are the optional parts of a process call.
type ProcessOptions struct {
	Params         map[string]string
	IdempotencyKey string
	// Prefer is sent as the Prefer header ("respond-async", "wait=30").
	Prefer string
}

// Response is the HTTP status and headers of a successful call.
type Response struct {
	StatusCode int
	Header     http.Header
}

// Process uploads files to tool. The body streams from the files' readers.
// It returns the job (status done on 200; queued or processing on 202).
func (c *Client) Process(ctx context.Context, tool string, files []File, opts ProcessOptions) (*Job, *Response, error) {
	pr, pw := io.Pipe()
	mw := multipart.NewWriter(pw)
	go func() {
		pw.CloseWithError(writeForm(mw, files, opts.Params))
	}()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.BaseURL+"/v1/"+tool+"/process", pr)
	if err != nil {
		pr.Close()
		return nil, nil, err
	}
	req.Header.Set("Content-Type", mw.FormDataContentType())
	if opts.IdempotencyKey != "" {
		req.Header.Set("Idempotency-Key", opts.IdempotencyKey)
	}
	if opts.Prefer != "" {
		req.Header.Set("Prefer", opts.Prefer)
	}
	var j Job
	resp, err := c.do(req, &j)
	pr.Close()
	if err != nil {
		return nil, resp, err
	}
	return &j, resp, nil
}

func writeForm(mw *multipart.Writer, files []File, params map[string]string) error {
	names := make([]string, 0, len(params))
	for k := range params {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		if err := mw.WriteField(k, params[k]); err != nil {
			return err
		}
	}
	for _, f := range files {
		h := textproto.MIMEHeader{}
		h.Set("Content-Disposition", fmt.Sprintf(`form-data; name="file"; filename=%q`, f.Name))
		h.Set("Content-Type", "application/octet-stream")
		w, err := mw.CreatePart(h)
		if err != nil {
			return err
		}
		if _, err := io.Copy(w, f.Body); err != nil {
			return err
		}
	}
	return mw.Close()
}

// Job polls a job once.
func (c *Client) Job(ctx context.Context, id string) (*Job, error) {
	var j Job
	_, err := c.call(ctx, http.MethodGet, "/v1/jobs/"+id, &j)
	return &j, err
}

// Cancel cancels a job, or deletes a finished job's result.
func (c *Client) Cancel(ctx context.Context, id string) (*Job, error) {
	var j Job
	_, err := c.call(ctx, http.MethodDelete, "/v1/jobs/"+id, &j)
	return &j, err
}

// Wait polls a job until it is finished, following the server's
// Retry-After hint (at most every maxPoll).
func (c *Client) Wait(ctx context.Context, id string, maxPoll time.Duration) (*Job, error) {
	for {
		var j Job
		resp, err := c.call(ctx, http.MethodGet, "/v1/jobs/"+id, &j)
		if err != nil {
			return nil, err
		}
		if j.Finished() {
			return &j, nil
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

// Account returns the caller's account document.
func (c *Client) Account(ctx context.Context) (map[string]any, error) {
	var a map[string]any
	_, err := c.call(ctx, http.MethodGet, "/v1/account", &a)
	return a, err
}

// Download fetches a result URL into w. The URL is signed, so no key is
// sent (it may point at a CDN).
func (c *Client) Download(ctx context.Context, url string, w io.Writer) (*Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	resp, r, err := c.send(req)
	if err != nil {
		return r, err
	}
	defer resp.Body.Close()
	_, err = io.Copy(w, resp.Body)
	return r, err
}

func (c *Client) call(ctx context.Context, method, path string, out any) (*Response, error) {
	req, err := http.NewRequestWithContext(ctx, method, c.BaseURL+path, nil)
	if err != nil {
		return nil, err
	}
	return c.do(req, out)
}

// do sends an API request with the key and decodes the JSON answer into out.
func (c *Client) do(req *http.Request, out any) (*Response, error) {
	if c.Key != "" {
		req.Header.Set("Authorization", "Bearer "+c.Key)
	}
	resp, r, err := c.send(req)
	if err != nil {
		return r, err
	}
	defer resp.Body.Close()
	if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
		return r, fmt.Errorf("docmill: decode %s: %w", req.URL.Path, err)
	}
	return r, nil
}

// send performs req; a status of 300 or more comes back as an *Error
// decoded from the problem body, with the body closed.
func (c *Client) send(req *http.Request) (*http.Response, *Response, error) {
	resp, err := c.HTTP.Do(req)
	if err != nil {
		return nil, nil, err
	}
	r := &Response{StatusCode: resp.StatusCode, Header: resp.Header}
	if resp.StatusCode >= 300 {
		defer resp.Body.Close()
		return nil, r, decodeError(resp)
	}
	return resp, r, nil
}

func decodeError(resp *http.Response) error {
	e := &Error{StatusCode: resp.StatusCode, Header: resp.Header}
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err := json.Unmarshal(body, e); err != nil {
		e.Detail = strings.TrimSpace(string(body))
	}
	return e
}
