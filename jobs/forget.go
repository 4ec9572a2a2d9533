package jobs

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver"
	"github.com/riverqueue/river/rivertype"
)

// forgetBatch is how many queue entries ForgetAccount lists and removes
// at a time.
const forgetBatch = 1000

// ForgetAccount removes the queue entries that name account accountID
// (River keeps finished ones for a day): its jobs' (ProcessArgs) and its
// webhook deliveries' (DeliverArgs), whose args hold the account's id,
// and, for deliveries, a copy of the job. An entry that is running stays:
// it ends on its own, finding its records gone. `docmill accounts delete`
// calls it after Accounts.DeleteAccount, so that no row of the account
// is left in the database. It returns how many entries it removed.
func ForgetAccount[TTx any](ctx context.Context, driver riverdriver.Driver[TTx], accountID string) (int, error) {
	client, err := river.NewClient(driver, &river.Config{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		return 0, fmt.Errorf("queue: %w", err)
	}
	notRunning := []rivertype.JobState{
		rivertype.JobStateAvailable, rivertype.JobStateCancelled, rivertype.JobStateCompleted,
		rivertype.JobStateDiscarded, rivertype.JobStatePending, rivertype.JobStateRetryable,
		rivertype.JobStateScheduled,
	}
	removed := 0
	for {
		list, err := client.JobList(ctx, river.NewJobListParams().States(notRunning...).
			Where("args->>'account_id' = @account", river.NamedArgs{"account": accountID}).First(forgetBatch))
		if err != nil {
			return removed, fmt.Errorf("queue: list the account's entries: %w", err)
		}
		if len(list.Jobs) == 0 {
			return removed, nil
		}
		ids := make([]int64, len(list.Jobs))
		for i, j := range list.Jobs {
			ids[i] = j.ID
		}
		res, err := client.JobDeleteMany(ctx, river.NewJobDeleteManyParams().IDs(ids...).First(len(ids)))
		if err != nil {
			return removed, fmt.Errorf("queue: remove the account's entries: %w", err)
		}
		removed += len(res.Jobs)
		if len(list.Jobs) < forgetBatch || len(res.Jobs) == 0 {
			return removed, nil
		}
	}
}
