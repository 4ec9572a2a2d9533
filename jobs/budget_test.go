package jobs_test

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river/riverdriver"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/riverdriver/riversqlite"
	"github.com/riverqueue/river/rivermigrate"

	"github.com/docmill/docmill"
	"github.com/docmill/docmill/blob"
	"github.com/docmill/docmill/internal/poll"
	"github.com/docmill/docmill/jobs"
	"github.com/docmill/docmill/store/postgres/pgtest"
)

// runLog records, in order, the inputs (by file name) the test tools ran on.
type runLog struct {
	mu  sync.Mutex
	ran []string
}

func (l *runLog) add(name string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.ran = append(l.ran, name)
}

func (l *runLog) names() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.ran...)
}

// logTool is a test tool whose runs are logged; hang ones run until their
// deadline, others write their input back at once.
func logTool(slug string, hang bool, log *runLog) *docmill.Tool {
	return &docmill.Tool{
		Slug: slug, Accepts: []string{"application/pdf"}, MinFiles: 1, MaxFiles: 1,
		Timeout: time.Minute, Rates: docmill.WorkRates{Base: 8 * time.Second},
		Run: func(ctx context.Context, in *docmill.RunInput) (*docmill.RunOutput, error) {
			log.add(in.Files[0].Filename)
			if hang {
				<-ctx.Done()
				return nil, ctx.Err()
			}
			out := filepath.Join(in.WorkDir, "out.pdf")
			if err := os.WriteFile(out, []byte("%PDF-1.7"), 0o600); err != nil {
				return nil, err
			}
			return &docmill.RunOutput{Path: out, Filename: "out.pdf", ContentType: "application/pdf"}, nil
		},
	}
}

// TestHandedBackJobKeepsItsBudget: jobs a killed server left running are
// handed back when it starts again (SoleWorker) with what they had used
// of their 8 s budgets: the one that had used it all fails at once as
// processing_timeout without its tool running; the one that had used 6 s
// runs with what is left, after the job queued since (it goes back a
// priority lower, behind the waiting), and fails as processing_timeout
// well before a whole budget. On SQLite and on PostgreSQL, whose River
// tables the demotion updates directly.
func TestHandedBackJobKeepsItsBudget(t *testing.T) {
	t.Parallel()
	t.Run("sqlite", func(t *testing.T) {
		st, bucket := openData(t)
		newQueue(t, st, bucket, &clock{t: time.Now()}) // River's tables
		handBackCase(t, st, bucket, riversqlite.New(st.WriteDB()), func(q *jobs.Queue[*sql.Tx]) { st.SetEnqueue(q.InsertTx) },
			func(id string) error {
				res, err := st.WriteDB().ExecContext(t.Context(), `UPDATE river_job SET state = 'running', attempt = 1,
attempted_at = CURRENT_TIMESTAMP WHERE json_extract(json(args), '$.job_id') = ?`, id)
				if n, _ := res.RowsAffected(); err == nil && n != 1 {
					err = fmt.Errorf("%d River jobs changed", n)
				}
				return err
			})
	})
	t.Run("postgres", func(t *testing.T) {
		st := openPostgres(t, pgtest.SchemaURL(t))
		m, err := rivermigrate.New(riverpgxv5.New(st.Pool()), nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := m.Migrate(t.Context(), rivermigrate.DirectionUp, nil); err != nil {
			t.Fatal(err)
		}
		bucket, err := blob.OpenDir(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { bucket.Close() })
		handBackCase(t, st, bucket, riverpgxv5.New(st.Pool()), func(q *jobs.Queue[pgx.Tx]) { st.SetEnqueue(q.InsertTx) },
			func(id string) error {
				tag, err := st.Pool().Exec(t.Context(), `UPDATE river_job SET state = 'running', attempt = 1,
attempted_at = now() WHERE args->>'job_id' = $1`, id)
				if err == nil && tag.RowsAffected() != 1 {
					err = fmt.Errorf("%d River jobs changed", tag.RowsAffected())
				}
				return err
			})
	})
}

// handBackCase is TestHandedBackJobKeepsItsBudget on st and driver:
// enqueue hooks a queue's InsertTx to st, markRunning makes a job's
// River entry look like one a dead worker was running.
func handBackCase[TTx any](t *testing.T, st docmill.Store, bucket docmill.BlobStore, driver riverdriver.Driver[TTx],
	enqueue func(*jobs.Queue[TTx]), markRunning func(id string) error) {
	ctx := t.Context()
	log := &runLog{}
	q, err := jobs.New(driver, jobs.Config{
		Store: st, Blob: bucket, Registry: docmill.NewRegistry(logTool("hang", true, log), logTool("quick", false, log)),
		Workers: 1, PollInterval: 50 * time.Millisecond, ScratchDir: t.TempDir(), SoleWorker: true,
	})
	if err != nil {
		t.Fatal(err)
	}
	enqueue(q)
	acct := newAccount(t, st, &clock{t: time.Now()})
	create := func(id, tool string) {
		t.Helper()
		k := "in/" + id + "/0"
		if _, err := bucket.Put(ctx, k, strings.NewReader("%PDF-1.7"), "application/pdf"); err != nil {
			t.Fatal(err)
		}
		j := &docmill.Job{ID: id, AccountID: acct.ID, Tool: tool, Priority: 3, ResultTTL: time.Hour, CreatedAt: time.Now(),
			Inputs: []docmill.InputFile{{Key: k, Filename: id + ".pdf", ContentType: "application/pdf", Size: 8}}}
		if _, err := st.CreateJob(ctx, j, docmill.Admission{Period: time.Now().Format("2006-01")}); err != nil {
			t.Fatal(err)
		}
	}
	// The previous life: two jobs were running, having used 9 s and 6 s.
	for id, used := range map[string]time.Duration{"job_spent": 9 * time.Second, "job_half": 6 * time.Second} {
		create(id, "hang")
		if _, err := st.StartJob(ctx, id, time.Now()); err != nil {
			t.Fatal(err)
		}
		if err := st.RecordUsed(ctx, id, used); err != nil {
			t.Fatal(err)
		}
		if err := markRunning(id); err != nil {
			t.Fatalf("mark %s running: %v", id, err)
		}
	}
	create("job_fresh", "quick") // queued after them, never started

	if err := q.Start(ctx); err != nil {
		t.Fatal(err)
	}
	defer q.Stop(context.Background())
	got := map[string]*docmill.Job{}
	for _, id := range []string{"job_spent", "job_fresh", "job_half"} {
		j, err := q.Wait(ctx, id, time.Minute) // a guard only
		if err != nil {
			t.Fatal(err)
		}
		got[id] = j
	}
	if j := got["job_fresh"]; j.Status != docmill.StatusDone {
		t.Errorf("job_fresh: %s %+v, want done", j.Status, j.Error)
	}
	for id, j := range map[string]*docmill.Job{"job_spent": got["job_spent"], "job_half": got["job_half"]} {
		if j.Status != docmill.StatusFailed || j.Error == nil || j.Error.Code != docmill.CodeProcessingTimeout {
			t.Fatalf("%s: %s %+v, want failed processing_timeout", id, j.Status, j.Error)
		}
		if b, _ := j.Meta["budget_ms"].(float64); b != 8000 {
			t.Errorf("%s: meta.budget_ms = %v, want 8000", id, j.Meta["budget_ms"])
		}
	}
	// job_half ran with the 2 s left of its 8: far from a whole budget.
	if ms, _ := got["job_half"].Meta["duration_ms"].(float64); ms >= 8000 {
		t.Errorf("job_half ran %v ms: a whole budget again, not what was left", ms)
	}
	if ran := strings.Join(log.names(), " "); ran != "job_fresh.pdf job_half.pdf" {
		t.Errorf("tools ran on %q, want job_fresh.pdf then job_half.pdf (job_spent never: nothing left of its budget)", ran)
	}
}

// TestShutdownKeepsUsedBudget: a job cut short by a shutdown records the
// time it used; having used 5 s or more it goes back to the queue a
// priority lower; and run again after the restart it has only what is
// left of its 8 s budget (it fails as processing_timeout well before a
// whole budget). SQLite, as the embedded server.
func TestShutdownKeepsUsedBudget(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	st, bucket := openData(t)
	newQueue(t, st, bucket, &clock{t: time.Now()}) // River's tables
	log := &runLog{}
	start := func() *jobs.Queue[*sql.Tx] {
		q, err := jobs.New(riversqlite.New(st.WriteDB()), jobs.Config{
			Store: st, Blob: bucket, Registry: docmill.NewRegistry(logTool("hang", true, log)),
			Workers: 1, PollInterval: 50 * time.Millisecond, ScratchDir: t.TempDir(), SoleWorker: true,
		})
		if err != nil {
			t.Fatal(err)
		}
		st.SetEnqueue(q.InsertTx)
		if err := q.Start(ctx); err != nil {
			t.Fatal(err)
		}
		return q
	}
	q := start()
	acct := newAccount(t, st, &clock{t: time.Now()})
	if _, err := bucket.Put(ctx, "in/job_cut/0", strings.NewReader("%PDF-1.7"), "application/pdf"); err != nil {
		t.Fatal(err)
	}
	j := &docmill.Job{ID: "job_cut", AccountID: acct.ID, Tool: "hang", Priority: 3, ResultTTL: time.Hour, CreatedAt: time.Now(),
		Inputs: []docmill.InputFile{{Key: "in/job_cut/0", Filename: "job_cut.pdf", ContentType: "application/pdf", Size: 8}}}
	if _, err := st.CreateJob(ctx, j, docmill.Admission{Period: time.Now().Format("2006-01")}); err != nil {
		t.Fatal(err)
	}
	poll.Until(t, time.Minute, func() (bool, string) { return len(log.names()) > 0, "the job never ran" })
	// The attempt's first checkpoint records 5 s used (demoteAfter).
	poll.Until(t, time.Minute, func() (bool, string) {
		j, err := st.Job(ctx, "job_cut")
		if err != nil {
			t.Fatal(err)
		}
		return j.Used >= 5*time.Second, fmt.Sprintf("the job has recorded %v used", j.Used)
	})
	stopCtx, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
	defer cancel()
	_ = q.Stop(stopCtx) // cuts the job short: it goes back to the queue

	cut, err := st.Job(ctx, "job_cut")
	if err != nil {
		t.Fatal(err)
	}
	if cut.Status != docmill.StatusQueued || cut.Used < 5*time.Second {
		t.Fatalf("after the shutdown: %s, used %v; want queued, having used 5 s or more", cut.Status, cut.Used)
	}
	var priority int
	if err := st.WriteDB().QueryRowContext(ctx, `SELECT priority FROM river_job WHERE json_extract(json(args), '$.job_id') = 'job_cut'`).Scan(&priority); err != nil {
		t.Fatal(err)
	}
	if priority != 4 {
		t.Errorf("River priority after the shutdown = %d, want 4 (one lower than 3)", priority)
	}

	q = start()
	defer q.Stop(context.Background())
	got, err := q.Wait(ctx, "job_cut", time.Minute) // a guard only
	if err != nil {
		t.Fatal(err)
	}
	if got.Status != docmill.StatusFailed || got.Error == nil || got.Error.Code != docmill.CodeProcessingTimeout {
		t.Fatalf("after the restart: %s %+v, want failed processing_timeout", got.Status, got.Error)
	}
	// What was left is 2.5 s at most; a whole budget again would be 8.
	if ms, _ := got.Meta["duration_ms"].(float64); ms >= 4000 {
		t.Errorf("the second run took %v ms: not what was left of the 8 s budget", ms)
	}
}
