package main

import (
	"context"
	"flag"
	"fmt"
	"time"

	"github.com/docmill/docmill/client"
)

const jobsUsage = `usage:
  docmill jobs list [--status S] [--tool T] [--limit N] [--cursor C] [--all] [--json]
  docmill jobs get [--wait N] ID
  docmill jobs wait [--timeout D] ID
  docmill jobs cancel ID
  docmill jobs download [-o FILE] [--force] ID
each with --url and --key (DOCMILL_URL, DOCMILL_KEY); get, wait and cancel
print the job record as JSON (--json is accepted and changes nothing)`

// jobsCmd finds the caller's jobs again on a server, as a client:
// list them, show one, wait for one to finish, cancel one, download
// one's result.
func jobsCmd(ctx context.Context, env *environment, args []string) error {
	return runCommand(ctx, env, args, "jobs", jobsUsage, map[string]command{
		"list": jobsList, "get": jobsGet, "wait": jobsWait, "cancel": jobsCancel,
		"download": jobsDownload, // jobs_download.go
	})
}

// oneJobArgs parses the flags of a command about one job, the client's
// among them, and returns the client and the job's id. A --json is
// accepted by each (get, wait and cancel print JSON anyway), so that a
// script may pass it to every command.
func oneJobArgs(env *environment, fs *flag.FlagSet, args []string) (*client.Client, string, error) {
	if fs.Lookup("json") == nil {
		fs.Bool("json", true, "print the job record as JSON (always; on failure a problem object)")
	}
	return clientArg(env, fs, args, "job id", jobsUsage)
}

// jobsList prints the caller's jobs, newest first: a page (--limit) and,
// when there are more, the --cursor of the next on stderr; or every job
// (--all).
func jobsList(ctx context.Context, env *environment, args []string) error {
	fs := newFlags("jobs list", "jobs list [--status S] [--tool T] [--limit N] [--cursor C] [--all] [--json] [flags]")
	var opts client.ListOptions
	fs.StringVar(&opts.Status, "status", "", "only jobs in this status (queued, processing, done, failed, canceled)")
	fs.StringVar(&opts.Tool, "tool", "", "only jobs of this tool")
	fs.IntVar(&opts.Limit, "limit", 0, "jobs per page (server default 20, at most 100)")
	fs.StringVar(&opts.Cursor, "cursor", "", "continue after an earlier page")
	all := fs.Bool("all", false, "every job, page after page")
	asJSON := fs.Bool("json", false, "print the job records as JSON, one array")
	c, _, err := clientArgs(env, fs, args, noArgs(jobsUsage))
	if err != nil {
		return err
	}
	var jobs []client.Job
	next := ""
	if *all {
		for j, err := range c.AllJobs(ctx, opts) {
			if err != nil {
				return err
			}
			jobs = append(jobs, *j)
		}
	} else {
		page, err := c.ListJobs(ctx, opts)
		if err != nil {
			return err
		}
		jobs, next = page.Jobs, page.NextCursor
	}
	err = printList(env, *asJSON, jobs, "JOB\tSTATUS\tTOOL\tCREATED\tRESULT", jobRow)
	if err == nil && next != "" {
		fmt.Fprintf(env.stderr, "more jobs: --cursor %s (or --all)\n", next)
	}
	return err
}

// jobRow is a job's line in jobs list's table: id, status, tool,
// creation time, and the result's name and expiry (or the failure's code).
func jobRow(j client.Job) string {
	result := ""
	switch {
	case j.Result != nil && j.Result.Expired:
		result = j.Result.Filename + " (expired)"
	case j.Result != nil:
		result = j.Result.Filename + " (until " + j.Result.ExpiresAt.UTC().Format(time.RFC3339) + ")"
	case j.Error != nil:
		result = string(j.Error.Code)
	}
	return fmt.Sprintf("%s\t%s\t%s\t%s\t%s", j.JobID, j.Status, j.Tool, j.CreatedAt.UTC().Format(time.RFC3339), result)
}

// jobsGet prints one job; --wait N long-polls up to N seconds for it to
// finish first.
func jobsGet(ctx context.Context, env *environment, args []string) error {
	fs := newFlags("jobs get", "jobs get [--wait N] [flags] ID")
	wait := fs.Int("wait", 0, "wait up to this many seconds (at most 60) for the job to finish")
	c, id, err := oneJobArgs(env, fs, args)
	if err != nil {
		return err
	}
	j, _, err := c.GetJob(ctx, id, time.Duration(*wait)*time.Second)
	if err != nil {
		return err
	}
	return printJSON(env, j)
}

// jobsWait waits for a job to finish, long-polling, and prints it. It
// fails when the job ends other than done, or is still unfinished after
// --timeout (the job is printed either way).
func jobsWait(ctx context.Context, env *environment, args []string) error {
	fs := newFlags("jobs wait", "jobs wait [--timeout D] [flags] ID")
	timeout := fs.Duration("timeout", 0, "give up after this long (0: wait as long as it takes)")
	c, id, err := oneJobArgs(env, fs, args)
	if err != nil {
		return err
	}
	j, err := c.WaitJob(ctx, id, *timeout)
	if err != nil {
		return err
	}
	if err := printJSON(env, j); err != nil {
		return err
	}
	switch {
	case !j.Finished():
		return &jobError{job: j, msg: fmt.Sprintf("job %s is still %s after %s", j.JobID, j.Status, *timeout)}
	case j.Status != "done":
		return endedError("", j)
	}
	return nil
}

// jobsCancel cancels a queued or processing job, or deletes a finished
// job's result, and prints the job as it then stands.
func jobsCancel(ctx context.Context, env *environment, args []string) error {
	fs := newFlags("jobs cancel", "jobs cancel [flags] ID")
	c, id, err := oneJobArgs(env, fs, args)
	if err != nil {
		return err
	}
	j, err := c.CancelJob(ctx, id)
	if err != nil {
		return err
	}
	return printJSON(env, j)
}
