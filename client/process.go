package client

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"net/url"
	"sort"
)

// File is one file to upload. A Body that is also an io.Seeker (an
// *os.File, a *bytes.Reader) can be sent again, so a process call with
// such files is retried after a network error; others are sent once.
type File struct {
	Name string
	Body io.Reader
}

// ProcessOptions are the optional parts of a process call.
type ProcessOptions struct {
	// Params are the tool's form fields, by name.
	Params map[string]string
	// IdempotencyKey makes a repeated call return the first call's job.
	// Left empty on a client that retries, one is generated for the call
	// and sent with each of its attempts, so a retried call is one job.
	IdempotencyKey string
	// Prefer is sent as the Prefer header ("respond-async", "wait=30").
	Prefer string
	// Progress, when set, is called as the files' bytes are sent, with
	// the bytes sent so far in this attempt and their total (-1 when a
	// body's size is unknown: it is not an io.Seeker).
	Progress func(sent, total int64)
}

// Process uploads files to tool and returns the job: status done on 200,
// queued or processing on 202 (see WaitJob), failed when the tool failed.
// The body streams from the files' readers.
func (c *Client) Process(ctx context.Context, tool string, files []File, opts ProcessOptions) (*Job, *Response, error) {
	if opts.IdempotencyKey == "" && c.Retry.MaxAttempts > 1 {
		opts.IdempotencyKey = newIdempotencyKey()
	}
	u := &upload{files: files, progress: opts.Progress}
	if err := u.measure(); err != nil {
		return nil, nil, err
	}
	defer u.stop()
	var j Job
	resp, err := c.do(ctx, func(attempt int) (*http.Request, error) {
		body, contentType, err := u.start(attempt, opts.Params)
		if err != nil {
			return nil, err
		}
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.BaseURL+"/v1/"+url.PathEscape(tool)+"/process", body)
		if err != nil {
			return nil, err
		}
		req.Header.Set("Content-Type", contentType)
		if opts.IdempotencyKey != "" {
			req.Header.Set("Idempotency-Key", opts.IdempotencyKey)
		}
		if opts.Prefer != "" {
			req.Header.Set("Prefer", opts.Prefer)
		}
		return req, nil
	}, &j)
	if err != nil {
		return nil, resp, err
	}
	return &j, resp, nil
}

// newIdempotencyKey returns 128 random bits, in hex.
func newIdempotencyKey() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b) // never fails (crypto/rand)
	return "dmc_" + hex.EncodeToString(b)
}

// upload is the multipart body of a process call, written into a pipe by
// a goroutine of its own, once per attempt.
type upload struct {
	files    []File
	progress func(sent, total int64)
	// starts are the files' offsets at the first attempt (for rewinding);
	// nil when one is not an io.Seeker.
	starts []int64
	total  int64
	body   *io.PipeReader
	done   chan struct{}
}

// measure notes where each file starts and the bytes they hold in all.
func (u *upload) measure() error {
	u.starts = make([]int64, len(u.files))
	for i, f := range u.files {
		s, ok := f.Body.(io.Seeker)
		if !ok {
			u.starts, u.total = nil, -1
			return nil
		}
		start, err := s.Seek(0, io.SeekCurrent)
		if err != nil {
			return fmt.Errorf("%s: %w", f.Name, err)
		}
		end, err := s.Seek(0, io.SeekEnd)
		if err != nil {
			return fmt.Errorf("%s: %w", f.Name, err)
		}
		if _, err := s.Seek(start, io.SeekStart); err != nil {
			return fmt.Errorf("%s: %w", f.Name, err)
		}
		u.starts[i] = start
		u.total += end - start
	}
	return nil
}

// start begins writing the body of an attempt: after the first, the
// previous attempt's writer is stopped and the files rewound (errNoRewind
// when they cannot be).
func (u *upload) start(attempt int, params map[string]string) (io.Reader, string, error) {
	if attempt > 1 {
		if u.starts == nil {
			return nil, "", errNoRewind
		}
		u.stop()
		for i, f := range u.files {
			if _, err := f.Body.(io.Seeker).Seek(u.starts[i], io.SeekStart); err != nil {
				return nil, "", fmt.Errorf("%s: %w", f.Name, err)
			}
		}
	}
	pr, pw := io.Pipe()
	mw := multipart.NewWriter(pw)
	u.body, u.done = pr, make(chan struct{})
	go func(done chan struct{}) {
		defer close(done)
		pw.CloseWithError(u.write(mw, params))
	}(u.done)
	return pr, mw.FormDataContentType(), nil
}

// stop ends the current attempt's writer and waits for it to return, so
// that nothing reads the files after it.
func (u *upload) stop() {
	if u.body == nil {
		return
	}
	u.body.Close()
	<-u.done
	u.body = nil
}

func (u *upload) write(mw *multipart.Writer, params map[string]string) error {
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
	var sent int64
	for _, f := range u.files {
		h := textproto.MIMEHeader{}
		h.Set("Content-Disposition", fmt.Sprintf(`form-data; name="file"; filename=%q`, f.Name))
		h.Set("Content-Type", "application/octet-stream")
		w, err := mw.CreatePart(h)
		if err != nil {
			return err
		}
		var body io.Reader = f.Body
		if u.progress != nil {
			body = &progressReader{r: f.Body, sent: &sent, total: u.total, report: u.progress}
		}
		if _, err := io.Copy(w, body); err != nil {
			return err
		}
	}
	return mw.Close()
}

// progressReader reports the bytes read through it.
type progressReader struct {
	r      io.Reader
	sent   *int64
	total  int64
	report func(sent, total int64)
}

func (p *progressReader) Read(b []byte) (int, error) {
	n, err := p.r.Read(b)
	if n > 0 {
		*p.sent += int64(n)
		p.report(*p.sent, p.total)
	}
	return n, err
}
