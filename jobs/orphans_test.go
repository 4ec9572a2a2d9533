package jobs_test

import (
	"database/sql"
	"strings"
	"testing"
	"time"

	"github.com/docmill/docmill"
)

// TestSweepSettlesOrphans: a job whose River entry is discarded (its
// worker died on every attempt) or gone is failed with worker_lost by the
// next sweep: not charged, its slot freed, its input deleted. A job with a
// live entry, or too young to judge, is left alone.
func TestSweepSettlesOrphans(t *testing.T) {
	ctx := t.Context()
	st, bucket := openData(t)
	clk := &clock{t: time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)}
	q := newQueue(t, st, bucket, clk)

	acct := newAccount(t, st, clk)
	newJob := func(id string) *docmill.Job {
		k := "in/" + id + "/0"
		if _, err := bucket.Put(ctx, k, strings.NewReader("%PDF-1.7"), "application/pdf"); err != nil {
			t.Fatal(err)
		}
		j := &docmill.Job{ID: id, AccountID: acct.ID, Tool: "rotate-pdf", Status: docmill.StatusQueued, Priority: 3,
			ResultTTL: time.Hour, CreatedAt: clk.t, Inputs: []docmill.InputFile{{Key: k, Filename: "a.pdf", Size: 8}}}
		if _, err := st.CreateJob(ctx, j, docmill.Admission{Period: "2026-11"}); err != nil {
			t.Fatal(err)
		}
		return j
	}
	discarded, gone, live := newJob("job_discarded"), newJob("job_gone"), newJob("job_live")
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
	u, err := st.Usage(ctx, acct.ID, "2026-11")
	if err != nil {
		t.Fatal(err)
	}
	if u.Operations != 0 || u.InFlight != 1 {
		t.Errorf("usage %+v, want 0 operations and 1 in flight (the live job)", u)
	}
}
