package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/docmill/docmill"
	"github.com/docmill/docmill/client"
)

// paramFlags collect repeated -p name=value tool parameters.
type paramFlags map[string]string

func (p paramFlags) String() string { return fmt.Sprint(map[string]string(p)) }

func (p paramFlags) Set(v string) error {
	name, value, ok := strings.Cut(v, "=")
	if !ok || name == "" {
		return fmt.Errorf("want name=value, got %q", v)
	}
	p[name] = value
	return nil
}

const processSynopsis = `process [-p name=value]... [-o PATH] [--force] [--async] [--json] [--cancel-on-interrupt] [flags] TOOL [FILE]...

Uploads the files to TOOL, waits for the job and saves its result next to
the (first) input, under the name the server gives it, or at -o. A tool
that takes no file (url-to-pdf -p url=https://...) is sent its params
only, and its result is saved in the current directory. A tool
that takes one file runs once per file, several jobs at once (as many as
the plan lets be in flight), each result next to its input or in the
directory -o. A 429 is waited out (Retry-After); a network error, a 408,
502, 503 or 504 and a 500 internal or worker_lost are retried with the
same Idempotency-Key (one job, charged once). Ctrl-C leaves a created
job running on the server and says how to follow it (docmill jobs wait
ID, docmill jobs download ID); with --cancel-on-interrupt it cancels the
job. An existing file is not overwritten without --force. Exit codes:
docs/cli.md.
stdout: "saved PATH (SIZE, job ID)" a result, or with --json the job
records as the API sends them; stderr: progress (bars on a terminal).`

// processFlags are the flags of docmill process.
type processFlags struct {
	client clientFlags
	params paramFlags
	out    string
	force  bool
	async  bool
	asJSON bool
	// cancelOnInterrupt: Ctrl-C cancels the job on the server, instead
	// of leaving it to run.
	cancelOnInterrupt bool
}

// process runs a tool on a server, as a client: it uploads the files,
// waits for the job and downloads the result; or, for a tool that takes
// one file, does so for each file, in parallel.
func process(ctx context.Context, env *environment, args []string) error {
	fs := newFlags("process", processSynopsis)
	f := &processFlags{params: paramFlags{}}
	f.client.register(fs)
	fs.Var(f.params, "p", "tool parameter name=value (repeatable; docmill tools lists them)")
	fs.StringVar(&f.out, "o", "", "where to save the result: a file, or a directory (several files: always a directory)")
	fs.StringVar(&f.out, "out", "", "same as -o")
	fs.BoolVar(&f.force, "force", false, "overwrite an existing output file")
	fs.BoolVar(&f.async, "async", false, "print the job and exit without waiting")
	fs.BoolVar(&f.asJSON, "json", false, "print the job record (one per job) as the API sends it; on failure a problem object")
	fs.BoolVar(&f.cancelOnInterrupt, "cancel-on-interrupt", false, "Ctrl-C cancels the job on the server (without it, the job goes on and can be followed)")
	if err := env.parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() < 1 {
		return usagef("usage: docmill %s", strings.SplitN(processSynopsis, "\n", 2)[0])
	}
	tool, inputs := fs.Arg(0), fs.Args()[1:]
	c, err := f.client.keyed()
	if err != nil {
		return err
	}
	r := &processRun{env: env, flags: f, tool: tool, c: c}
	batch := false
	if len(inputs) > 1 {
		t, err := r.c.Tool(ctx, tool)
		if err != nil {
			return err
		}
		batch = t.MaxFiles == 1
	}
	r.progress = newProgress(env.stderr, 1)
	if batch {
		r.progress = newProgress(env.stderr, len(inputs))
	}
	defer r.progress.finish()
	r.out = env.stdout
	if b, ok := r.progress.(*batchProgress); ok && isTerminal(env.stdout) {
		r.out = lineAbove{b.spinner} // not into the spinner's line
	}
	r.c.Retry.OnRetry = r.progress.retry
	if batch {
		return r.batch(ctx, inputs)
	}
	dir, file := "", f.out
	if st, err := os.Stat(f.out); f.out != "" && err == nil && st.IsDir() {
		dir, file = f.out, ""
	}
	_, err = r.one(ctx, inputs, dir, file)
	return err
}

// processRun is one docmill process command.
type processRun struct {
	env      *environment
	flags    *processFlags
	tool     string
	c        *client.Client
	progress progress
	stdout   sync.Mutex // one job's lines at a time
	out      io.Writer  // stdout, for the lines of report
}

// one runs a job on inputs and saves its result as file, or in dir under
// the result's name, or next to the first input; it returns the job (nil
// when none was created).
func (r *processRun) one(ctx context.Context, inputs []string, dir, file string) (*client.Job, error) {
	if file != "" && !r.flags.force && !r.flags.async {
		if _, err := os.Stat(file); err == nil {
			return nil, fmt.Errorf("%s exists; --force overwrites it", file)
		}
	}
	label := r.tool // a tool that takes no file
	if len(inputs) > 0 {
		label = filepath.Base(inputs[0])
	}
	if len(inputs) > 1 {
		label += fmt.Sprintf(" and %d more", len(inputs)-1)
	}
	var files []client.File
	var size int64
	for _, name := range inputs {
		f, err := os.Open(name)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		if st, err := f.Stat(); err == nil {
			size += st.Size()
		}
		files = append(files, client.File{Name: filepath.Base(name), Body: f})
	}
	opts := client.ProcessOptions{Params: r.flags.params, Progress: r.progress.upload(label, size)}
	if r.flags.async {
		opts.Prefer = "respond-async"
	}
	j, _, err := r.c.Process(ctx, r.tool, files, opts)
	if err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("%s: %w during the upload", label, errInterrupted)
		}
		return nil, fmt.Errorf("%s: %w", label, err)
	}
	r.progress.job(label, j)
	if r.flags.async {
		return j, r.report(j, "")
	}
	if !j.Finished() {
		// Long polls of 5 s: the status line follows the job.
		done, err := r.c.Await(ctx, j.JobID, client.WaitOptions{PollWait: 5 * time.Second, OnPoll: func(j *client.Job) { r.progress.job(label, j) }})
		if err != nil {
			if ctx.Err() != nil && r.flags.cancelOnInterrupt {
				return j, r.cancel(label, j)
			}
			if ctx.Err() != nil {
				return j, fmt.Errorf("%s: %w; job %s goes on on the server: docmill jobs wait %s, then docmill jobs download %s",
					label, errInterrupted, j.JobID, j.JobID, j.JobID)
			}
			return j, fmt.Errorf("%s: waiting for job %s: %w", label, j.JobID, err)
		}
		j = done
	}
	if j.Status != docmill.StatusDone {
		if err := r.report(j, ""); err != nil {
			return j, err
		}
		return j, endedError(label, j)
	}
	path := file
	switch {
	case path != "":
	case dir != "":
		path = filepath.Join(dir, j.Result.Filename)
	case len(inputs) == 0:
		path = filepath.Base(j.Result.Filename)
	default:
		path = filepath.Join(filepath.Dir(inputs[0]), j.Result.Filename)
	}
	if err := r.save(ctx, label, j, path); err != nil {
		return j, err
	}
	return j, r.report(j, path)
}

// cancel asks the server to cancel the job whose wait was interrupted,
// and says so with the job's id.
func (r *processRun) cancel(label string, j *client.Job) error {
	ctx, stop := context.WithTimeout(context.Background(), 10*time.Second)
	defer stop()
	got, err := r.c.CancelJob(ctx, j.JobID)
	if err != nil {
		return fmt.Errorf("%s: %w; canceling job %s failed: %v (docmill jobs cancel %s)", label, errInterrupted, j.JobID, err, j.JobID)
	}
	return fmt.Errorf("%s: %w; job %s %s", label, errInterrupted, j.JobID, got.Status)
}

// save downloads a done job's result into path, which it creates (or,
// with --force, overwrites).
func (r *processRun) save(ctx context.Context, label string, j *client.Job, path string) error {
	mode := os.O_WRONLY | os.O_CREATE | os.O_EXCL
	if r.flags.force {
		mode = os.O_WRONLY | os.O_CREATE | os.O_TRUNC
	}
	f, err := os.OpenFile(path, mode, 0o644)
	if errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("%s exists; --force overwrites it (job %s's result stays downloadable until %s: docmill jobs get %s)",
			path, j.JobID, j.Result.ExpiresAt.UTC().Format(time.RFC3339), j.JobID)
	}
	if err != nil {
		return err
	}
	w, done := r.progress.download(label, j.Result.Size, f)
	_, err = r.c.Download(ctx, j.Result.URL, w)
	done()
	if err == nil {
		err = f.Close()
	} else {
		f.Close()
	}
	if err != nil {
		os.Remove(path)
		if ctx.Err() != nil {
			return fmt.Errorf("%s: %w during the download; job %s is done (docmill jobs download %s)", label, errInterrupted, j.JobID, j.JobID)
		}
		return fmt.Errorf("%s: saving job %s's result: %w", label, j.JobID, err)
	}
	return nil
}

// report prints a job on stdout: its record with --json, else the saved
// path, or the job's id and status.
func (r *processRun) report(j *client.Job, path string) error {
	r.stdout.Lock()
	defer r.stdout.Unlock()
	switch {
	case r.flags.asJSON:
		return printJSON(r.env, j)
	case path != "":
		_, err := fmt.Fprintf(r.out, "saved %s (%s, job %s)\n", path, humanBytes(j.Result.Size), j.JobID)
		return err
	case !j.Finished():
		_, err := fmt.Fprintf(r.out, "job %s %s (docmill jobs wait %s)\n", j.JobID, j.Status, j.JobID)
		return err
	}
	return nil
}

// batch runs one job per input, as many at once as the plan lets be in
// flight (less those already in flight), each result in its input's
// directory or in the directory -o. Every failure is printed; the error
// counts them.
func (r *processRun) batch(ctx context.Context, inputs []string) error {
	acct, err := r.c.Account(ctx)
	if err != nil {
		return err
	}
	slots := max(1, min(acct.Limits.JobsInFlight-int(acct.Usage.JobsInFlight), len(inputs)))
	if r.flags.out != "" {
		if err := os.MkdirAll(r.flags.out, 0o755); err != nil {
			return err
		}
	}
	sem := make(chan struct{}, slots)
	errs := make([]error, len(inputs))
	var wg sync.WaitGroup
	for i, in := range inputs {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			if ctx.Err() != nil {
				errs[i] = fmt.Errorf("%s: not sent (%w)", filepath.Base(in), errInterrupted)
				return
			}
			_, errs[i] = r.one(ctx, []string{in}, r.flags.out, "")
		})
	}
	wg.Wait()
	failed := 0
	for _, err := range errs {
		if err != nil {
			failed++
			fmt.Fprintln(r.env.stderr, err)
		}
	}
	if failed > 0 {
		return &batchError{failed: failed, total: len(inputs), errs: errors.Join(errs...)}
	}
	return nil
}

// batchError is a batch some of whose files failed (each printed): its
// exit code is that of the first kind of failure among them (exitCodeOf).
type batchError struct {
	failed, total int
	errs          error
}

func (e *batchError) Error() string { return fmt.Sprintf("%d of %d files failed", e.failed, e.total) }
func (e *batchError) Unwrap() error { return e.errs }

// endedError says a job ended other than done, with its error.
func endedError(label string, j *client.Job) error {
	msg := fmt.Sprintf("job %s %s", j.JobID, j.Status)
	if j.Error != nil {
		msg += fmt.Sprintf(": %s: %s", j.Error.Code, j.Error.Message)
	}
	if label != "" {
		msg = label + ": " + msg
	}
	return &jobError{job: j, msg: msg}
}
