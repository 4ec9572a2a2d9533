package storetest

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/docmill/docmill"
)

// listFixture is an account with jobs to list: 250 of its own, several
// created in the same millisecond, of two tools and every final status
// but one, and another account's jobs created at the same times.
type listFixture struct {
	a     *docmill.Account
	jobs  []*docmill.Job // a's jobs, newest first (the list's order)
	other *docmill.Account
}

const listSize = 250

func newListFixture(t *testing.T, s docmill.Store) *listFixture {
	t.Helper()
	a, _, _ := NewAccount(t, s, docmill.PlanPro)
	other, _, _ := NewAccount(t, s, docmill.PlanPro)
	var mine []*docmill.Job
	for i := range listSize {
		// Seven jobs a millisecond: equal created_at values are common,
		// so the id must break ties for paging to be exact.
		at := t0.Add(time.Duration(i/7) * time.Millisecond)
		j := NewJob(a)
		j.CreatedAt = at
		if i%3 == 0 {
			j.Tool = "rotate-pdf"
		}
		created, err := s.CreateJob(t.Context(), j, unlimited)
		if err != nil {
			t.Fatalf("CreateJob #%d: %v", i, err)
		}
		switch i % 5 {
		case 1:
			created = finish(t, s, created, docmill.StatusDone, at.Add(time.Second))
		case 2:
			created = finish(t, s, created, docmill.StatusFailed, at.Add(time.Second))
		case 3:
			if created, err = s.CancelJob(t.Context(), created.ID, at.Add(time.Second)); err != nil {
				t.Fatalf("CancelJob: %v", err)
			}
		}
		mine = append(mine, created)
		if i%10 == 0 {
			o := NewJob(other)
			o.CreatedAt = at
			if _, err := s.CreateJob(t.Context(), o, unlimited); err != nil {
				t.Fatalf("CreateJob (other account): %v", err)
			}
		}
	}
	sortList(mine)
	return &listFixture{a: a, jobs: mine, other: other}
}

// sortList sorts jobs in the list's order: newest first, created_at
// descending, then id descending.
func sortList(jobs []*docmill.Job) {
	slices.SortFunc(jobs, func(a, b *docmill.Job) int {
		if c := b.CreatedAt.Compare(a.CreatedAt); c != 0 {
			return c
		}
		return strings.Compare(b.ID, a.ID)
	})
}

// listAll pages through f's jobs, limit at a time, and returns them all.
func listAll(t *testing.T, s docmill.Store, f docmill.JobFilter) []*docmill.Job {
	t.Helper()
	var all []*docmill.Job
	for page := 0; ; page++ {
		if page > listSize {
			t.Fatalf("more than %d pages", listSize)
		}
		got, err := s.ListJobs(t.Context(), f)
		if err != nil {
			t.Fatalf("ListJobs page %d: %v", page, err)
		}
		if len(got) > f.Limit {
			t.Fatalf("page %d has %d jobs, limit %d", page, len(got), f.Limit)
		}
		all = append(all, got...)
		if len(got) < f.Limit {
			return all
		}
		f.After = ptr(docmill.PositionOf(got[len(got)-1]))
	}
}

// wantList fails t unless got is exactly want, in order, each job as Job
// returns it.
func wantList(t *testing.T, what string, got, want []*docmill.Job) {
	t.Helper()
	if fmt.Sprint(ids(got)) != fmt.Sprint(ids(want)) {
		t.Fatalf("%s: %d jobs %v, want %d jobs %v", what, len(got), ids(got), len(want), ids(want))
	}
	for i := range got {
		same(t, what+" "+got[i].ID, got[i], want[i])
	}
}

func filterJobs(jobs []*docmill.Job, keep func(*docmill.Job) bool) []*docmill.Job {
	var out []*docmill.Job
	for _, j := range jobs {
		if keep(j) {
			out = append(out, j)
		}
	}
	return out
}

// testListJobs pages through an account's jobs at several page sizes: no
// job twice, none left out, ties of created_at broken by id, and never
// another account's job.
func testListJobs(t *testing.T, s docmill.Store) {
	fx := newListFixture(t, s)
	for _, limit := range []int{1, 7, 20, 100, listSize, listSize + 1} {
		got := listAll(t, s, docmill.JobFilter{AccountID: fx.a.ID, Limit: limit})
		wantList(t, fmt.Sprintf("limit %d", limit), got, fx.jobs)
	}
	if got, err := s.ListJobs(t.Context(), docmill.JobFilter{AccountID: fx.a.ID}); err != nil || len(got) != 0 {
		t.Errorf("ListJobs with no limit = %d jobs, %v; want none", len(got), err)
	}
	none, err := s.ListJobs(t.Context(), docmill.JobFilter{AccountID: "acct_nobody", Limit: 10})
	if err != nil || len(none) != 0 {
		t.Errorf("ListJobs of an unknown account = %d jobs, %v; want none", len(none), err)
	}
	// After the last job: an empty page.
	last := docmill.PositionOf(fx.jobs[len(fx.jobs)-1])
	if got, err := s.ListJobs(t.Context(), docmill.JobFilter{AccountID: fx.a.ID, After: &last, Limit: 10}); err != nil || len(got) != 0 {
		t.Errorf("ListJobs after the oldest = %v, %v; want none", ids(got), err)
	}
	// A position between two jobs of one millisecond continues with the
	// smaller ids of that millisecond.
	mid := fx.jobs[3]
	got, err := s.ListJobs(t.Context(), docmill.JobFilter{AccountID: fx.a.ID, After: ptr(docmill.PositionOf(mid)), Limit: 5})
	if err != nil {
		t.Fatal(err)
	}
	wantList(t, "after the 4th", got, fx.jobs[4:9])
}

// testListJobsFilters lists by status, by tool and by both, paged.
func testListJobsFilters(t *testing.T, s docmill.Store) {
	fx := newListFixture(t, s)
	for _, st := range docmill.Statuses {
		for _, tool := range []string{"", "rotate-pdf", "compress-pdf", "merge-pdf"} {
			f := docmill.JobFilter{AccountID: fx.a.ID, Status: st, Tool: tool, Limit: 9}
			want := filterJobs(fx.jobs, func(j *docmill.Job) bool { return j.Status == st && (tool == "" || j.Tool == tool) })
			wantList(t, fmt.Sprintf("status %s, tool %q", st, tool), listAll(t, s, f), want)
		}
	}
	f := docmill.JobFilter{AccountID: fx.a.ID, Tool: "rotate-pdf", Limit: 11}
	want := filterJobs(fx.jobs, func(j *docmill.Job) bool { return j.Tool == "rotate-pdf" })
	if len(want) == 0 {
		t.Fatal("fixture has no rotate-pdf job")
	}
	wantList(t, "tool rotate-pdf", listAll(t, s, f), want)
	// The other account sees its own jobs only.
	theirs := listAll(t, s, docmill.JobFilter{AccountID: fx.other.ID, Limit: 10})
	if len(theirs) != listSize/10 {
		t.Errorf("other account lists %d jobs, want %d", len(theirs), listSize/10)
	}
	for _, j := range theirs {
		if j.AccountID != fx.other.ID {
			t.Errorf("other account's list has job %s of account %s", j.ID, j.AccountID)
		}
	}
}

// testListJobsWhilePaging creates jobs between pages: paging by position
// neither repeats a job nor skips one, whatever is created meanwhile.
func testListJobsWhilePaging(t *testing.T, s docmill.Store) {
	a, _, _ := NewAccount(t, s, docmill.PlanPro)
	var want []*docmill.Job
	for i := range 30 {
		j := NewJob(a)
		j.CreatedAt = t0.Add(time.Duration(i/4) * time.Millisecond)
		created, err := s.CreateJob(t.Context(), j, unlimited)
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, created)
	}
	sortList(want)
	f := docmill.JobFilter{AccountID: a.ID, Limit: 4}
	var got []*docmill.Job
	for page := 0; page < 20; page++ {
		jobs, err := s.ListJobs(t.Context(), f)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, jobs...)
		if len(jobs) < f.Limit {
			break
		}
		f.After = ptr(docmill.PositionOf(jobs[len(jobs)-1]))
		// Between pages, a job newer than every other, and one of the
		// very millisecond of the page's last job that sorts before it
		// (a greater id): neither belongs to the pages still to come.
		newer, tie := NewJob(a), NewJob(a)
		newer.CreatedAt = t0.Add(time.Hour)
		tie.CreatedAt = f.After.CreatedAt
		tie.ID = fmt.Sprintf("job_zzzzzz%020d", page)
		for _, n := range []*docmill.Job{newer, tie} {
			if _, err := s.CreateJob(t.Context(), n, unlimited); err != nil {
				t.Fatal(err)
			}
		}
	}
	wantList(t, "paged while creating", got, want)
}
