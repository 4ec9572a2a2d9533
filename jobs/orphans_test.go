package jobs_test

import (
	"database/sql"
	"testing"
	"time"

	"github.com/docmill/docmill"
)

// TestSweepSettlesOrphans: a job whose River entry is discarded (its
// worker died on every attempt) or gone is failed with worker_lost by the
// next sweep: not charged, its slot freed, its input deleted. A job with a
// live entry, or too young to judge, is left alone.
func TestSweepSettlesOrphans(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	d := newSweepData(t)
	st, bucket, clk, q := d.st, d.bucket, d.clk, d.q
	discarded, gone, live := d.queuedJob(t, "job_discarded"), d.queuedJob(t, "job_gone"), d.queuedJob(t, "job_live")
	if _, err := st.StartJob(ctx, discarded.ID, clk.t); err != nil {
		t.Fatal(err)
	}
	db := st.WriteDB()
	mustChange := func(res sql.Result, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		if n, _ := res.RowsAffected(); n != 1 {
			t.Fatalf("%d River jobs changed, want 1", n)
		}
	}
	mustChange(db.ExecContext(ctx, `UPDATE river_job SET state = 'discarded', finalized_at = CURRENT_TIMESTAMP WHERE json_extract(json(args), '$.job_id') = 'job_discarded'`))
	mustChange(db.ExecContext(ctx, `DELETE FROM river_job WHERE json_extract(json(args), '$.job_id') = 'job_gone'`))

	// Too young: a job may be between its row and its queue entry.
	if err := q.Sweep(ctx); err != nil {
		t.Fatal(err)
	}
	if j, _ := st.Job(ctx, gone.ID); j.Status != docmill.StatusQueued {
		t.Fatalf("a job a second old was settled: %s", j.Status)
	}

	clk.t = clk.t.Add(2 * time.Minute)
	if err := q.Sweep(ctx); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{discarded.ID, gone.ID} {
		j, err := st.Job(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if j.Status != docmill.StatusFailed || j.Error == nil || j.Error.Code != docmill.CodeWorkerLost {
			t.Errorf("%s: %s %+v, want failed worker_lost", id, j.Status, j.Error)
		}
		if j.InputsDeletedAt == nil {
			t.Errorf("%s: inputs kept", id)
		}
		if _, err := bucket.Attributes(ctx, "in/"+id+"/0"); err == nil {
			t.Errorf("%s: input file kept", id)
		}
	}
	if j, _ := st.Job(ctx, live.ID); j.Status != docmill.StatusQueued {
		t.Errorf("the job with a live queue entry is %s, want queued", j.Status)
	}
	u, err := st.Usage(ctx, d.acct.ID, "2026-11")
	if err != nil {
		t.Fatal(err)
	}
	if u.Operations != 0 || u.InFlight != 1 {
		t.Errorf("usage %+v, want 0 operations and 1 in flight (the live job)", u)
	}
}
