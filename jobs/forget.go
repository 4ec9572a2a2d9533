package jobs

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver"
	"github.com/riverqueue/river/rivertype"

	"github.com/docmill/docmill"
)

// forgetBatch is how many queue entries ForgetAccount lists and removes
// at a time.
const forgetBatch = 1000

// notRunning are the states of the entries ForgetAccount removes: River
// deletes no running entry.
var notRunning = []rivertype.JobState{
	rivertype.JobStateAvailable, rivertype.JobStateCancelled, rivertype.JobStateCompleted,
	rivertype.JobStateDiscarded, rivertype.JobStatePending, rivertype.JobStateRetryable,
	rivertype.JobStateScheduled,
}

// ForgetAccount removes the queue entries that are the account's (River
// keeps finished ones for a day): its jobs' (ProcessArgs) and its webhook
// deliveries' (DeliverArgs), whose args hold the account's id, and, for
// deliveries, a copy of the job; and the mails (MailArgs) to its mailbox,
// email, in whatever form the address was typed. An entry that is running
// stays: it ends on its own, finding its records gone. `docmill accounts
// delete` calls it after Accounts.DeleteAccount, so that no row of the
// account is left in the database. It returns how many entries it
// removed.
func ForgetAccount[TTx any](ctx context.Context, driver riverdriver.Driver[TTx], accountID, email string) (int, error) {
	client, err := river.NewClient(driver, &river.Config{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		return 0, fmt.Errorf("queue: %w", err)
	}
	removed := 0
	for {
		list, err := client.JobList(ctx, river.NewJobListParams().States(notRunning...).
			Where("args->>'account_id' = @account", river.NamedArgs{"account": accountID}).First(forgetBatch))
		if err != nil {
			return removed, fmt.Errorf("queue: list the account's entries: %w", err)
		}
		n, err := deleteEntries(ctx, client, list.Jobs)
		removed += n
		if err != nil {
			return removed, err
		}
		if len(list.Jobs) < forgetBatch || n == 0 {
			break
		}
	}
	if email == "" {
		return removed, nil
	}
	n, err := forgetMail(ctx, client, email)
	return removed + n, err
}

// forgetMail removes the mail entries to mailbox email: the recipient as
// typed is compared in CanonicalEmail's form, so every entry is read
// (mail entries are few: a day's).
func forgetMail[TTx any](ctx context.Context, client *river.Client[TTx], email string) (int, error) {
	params := river.NewJobListParams().Kinds(MailArgs{}.Kind()).States(notRunning...).First(forgetBatch)
	var mine []*rivertype.JobRow
	for {
		list, err := client.JobList(ctx, params)
		if err != nil {
			return 0, fmt.Errorf("queue: list the mail entries: %w", err)
		}
		for _, j := range list.Jobs {
			var args MailArgs
			if json.Unmarshal(j.EncodedArgs, &args) != nil {
				continue
			}
			if to, ok := docmill.CanonicalEmail(args.Mail.To); ok && to == email {
				mine = append(mine, j)
			}
		}
		if len(list.Jobs) < forgetBatch {
			return deleteEntries(ctx, client, mine)
		}
		params = params.After(list.LastCursor)
	}
}

// deleteEntries removes the queue entries jobs and returns how many it
// removed.
func deleteEntries[TTx any](ctx context.Context, client *river.Client[TTx], jobs []*rivertype.JobRow) (int, error) {
	removed := 0
	for start := 0; start < len(jobs); start += forgetBatch {
		batch := jobs[start:min(start+forgetBatch, len(jobs))]
		ids := make([]int64, len(batch))
		for i, j := range batch {
			ids[i] = j.ID
		}
		res, err := client.JobDeleteMany(ctx, river.NewJobDeleteManyParams().IDs(ids...).First(len(ids)))
		if err != nil {
			return removed, fmt.Errorf("queue: remove the account's entries: %w", err)
		}
		removed += len(res.Jobs)
	}
	return removed, nil
}
