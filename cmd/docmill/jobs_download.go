package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/docmill/docmill"
	"github.com/docmill/docmill/client"
)

// jobsDownload waits for a job to finish (long polls, as process does)
// and saves its result at -o, or in the current directory under the
// name the server gives it; the way to pick up a job that docmill
// process left running when it was interrupted.
func jobsDownload(ctx context.Context, env *environment, args []string) error {
	fs := newFlags("jobs download", "jobs download [-o FILE] [--force] [--json] [flags] ID")
	out := fs.String("o", "", "where to save the result (a file, or an existing directory); default: its name, here")
	force := fs.Bool("force", false, "overwrite an existing file")
	asJSON := fs.Bool("json", false, "print the job record instead of the saved line; on failure a problem object")
	c, id, err := oneJobArgs(env, fs, args)
	if err != nil {
		return err
	}
	j, err := c.WaitJob(ctx, id, 0)
	if err != nil {
		if ctx.Err() != nil {
			return fmt.Errorf("%w waiting for job %s (docmill jobs download %s goes on)", errInterrupted, id, id)
		}
		return err
	}
	if j.Status != docmill.StatusDone {
		return endedError("", j)
	}
	if j.Result == nil || j.Result.Expired {
		return &jobError{job: j, msg: fmt.Sprintf("job %s's result has expired or was deleted", j.JobID)}
	}
	path := *out
	if st, err := os.Stat(path); path == "" || (err == nil && st.IsDir()) {
		path = filepath.Join(path, filepath.Base(j.Result.Filename))
	}
	if err := saveResult(ctx, c, j, path, *force); err != nil {
		return err
	}
	if *asJSON {
		return printJSON(env, j)
	}
	_, err = fmt.Fprintf(env.stdout, "saved %s (%s, job %s)\n", path, humanBytes(j.Result.Size), j.JobID)
	return err
}

// saveResult downloads a done job's result into path, which it creates
// (or, with force, overwrites); a partial file is removed.
func saveResult(ctx context.Context, c *client.Client, j *client.Job, path string, force bool) error {
	mode := os.O_WRONLY | os.O_CREATE | os.O_EXCL
	if force {
		mode = os.O_WRONLY | os.O_CREATE | os.O_TRUNC
	}
	f, err := os.OpenFile(path, mode, 0o644)
	if errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("%s exists; --force overwrites it (job %s's result stays downloadable until %s)",
			path, j.JobID, j.Result.ExpiresAt.UTC().Format(time.RFC3339))
	}
	if err != nil {
		return err
	}
	_, err = c.Download(ctx, j.Result.URL, f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(path)
		if ctx.Err() != nil {
			return fmt.Errorf("%w during the download of job %s's result (docmill jobs download %s)", errInterrupted, j.JobID, j.JobID)
		}
		return fmt.Errorf("saving job %s's result: %w", j.JobID, err)
	}
	return nil
}
