package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/docmill/docmill/jobs"
)

// delete removes the account and everything of it: its records in one
// transaction (Accounts.DeleteAccount), then its jobs' files, the way the
// janitor removes an old record's (jobs.DeleteJobFiles), and the queue's
// entries that name it (jobs.ForgetAccount); it prints what it removed.
// A file or entry that cannot be removed makes the command fail, saying
// so; the records are gone by then, so nothing serves the files.
func (c *accountsCmd) delete(ctx context.Context) error {
	a, err := c.account(ctx, c.args[0])
	if err != nil {
		return err
	}
	// The file store opens first: if it cannot, nothing is deleted.
	bucket, err := c.data.openBlob(ctx)
	if err != nil {
		return fmt.Errorf("accounts delete: file store: %w", err)
	}
	defer bucket.Close()
	if err := bucket.Ping(ctx); err != nil {
		return fmt.Errorf("accounts delete: file store: %w", err)
	}
	d, err := c.st.DeleteAccount(ctx, a.ID)
	if err != nil {
		return fmt.Errorf("accounts delete: %w", err)
	}
	files := 0
	var errs []error
	for _, j := range d.Jobs {
		n, err := jobs.DeleteJobFiles(ctx, bucket, j)
		files += n
		errs = append(errs, err)
	}
	// River's entries of the account's jobs and deliveries (kept a day
	// once finished) name the account too.
	entries, err := c.db.forgetAccount(ctx, a.ID)
	errs = append(errs, err)
	fmt.Fprintf(c.env.stdout, "deleted account %s (%s, %s): %d jobs, %d files, %d keys, %d sessions, %d webhooks, %d sign-in links, %d queue entries\n",
		a.ID, a.Name, orDash(a.Email), len(d.Jobs), files, d.Keys, d.Sessions, d.Webhooks, d.AuthTokens, entries)
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("accounts delete: the account's records are deleted, but not all of its files and queue entries: %w", err)
	}
	return nil
}
