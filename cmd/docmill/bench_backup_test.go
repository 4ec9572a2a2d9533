package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/docmill/docmill"
	"github.com/docmill/docmill/store/sqlite"
	"github.com/docmill/docmill/tools/toolstest"
)

// BenchmarkBackupRestore prints how long `docmill backup` and `docmill
// restore` take on an embedded database of 10,000 accounts (each with its
// key) and 100,000 jobs, all done with a result, as a server that has
// worked for a while holds; and how the writes of a server beside the
// backup fare (account creations, one write transaction each: how many a
// second and the longest, beside it and alone). Files are left out:
// copying them costs what copying files costs. Each iteration fills the
// database once (about 90 s) and runs three rounds of backup and restore
// (run it with -benchtime 1x); the smoke pass makes 20 accounts and 40
// jobs and runs one round.
func BenchmarkBackupRestore(b *testing.B) {
	ctx := context.Background()
	accounts := toolstest.BenchSize(10_000, 20)
	jobsPerAccount := toolstest.BenchSize(10, 2)
	rounds := toolstest.BenchSize(3, 1)
	dir := b.TempDir()
	db, err := openSQLite(ctx, &dataFlags{dataDir: dir})
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	fillStart := time.Now()
	fillDatabase(b, db.st, accounts, jobsPerAccount)
	b.Logf("made %d accounts and %d jobs in %s", accounts, accounts*jobsPerAccount, time.Since(fillStart).Round(time.Millisecond))

	var all backupRound
	b.ResetTimer()
	for range b.N * rounds {
		r := runBackupRound(b, db.st, dir)
		b.Logf("round: backup %s, restore %s, %d writes beside, the longest %s",
			r.backup.Round(time.Millisecond), r.restore.Round(time.Millisecond), r.writes, r.worst.Round(time.Microsecond))
		all.backup, all.restore, all.writes = all.backup+r.backup, all.restore+r.restore, all.writes+r.writes
		all.worst, all.size = max(all.worst, r.worst), r.size
	}
	b.StopTimer()
	// The same writes for as long without a backup beside them.
	alone, aloneN := writeFor(b, db.st, all.backup)
	n := float64(b.N * rounds)
	b.ReportMetric(all.backup.Seconds()/n, "backup-s")
	b.ReportMetric(all.restore.Seconds()/n, "restore-s")
	b.ReportMetric(float64(all.writes)/all.backup.Seconds(), "writes/s-beside")
	b.ReportMetric(float64(aloneN)/all.backup.Seconds(), "writes/s-alone")
	b.ReportMetric(float64(all.worst.Microseconds())/1000, "write-max-ms-beside")
	b.ReportMetric(float64(alone.Microseconds())/1000, "write-max-ms-alone")
	b.ReportMetric(float64(all.size)/1e6, "db-MB")
	b.Logf("%d accounts, %d jobs, snapshot %s: backup %.2f s, restore %.2f s; beside the backups %.0f writes/s, the longest %s; alone %.0f writes/s, the longest %s",
		accounts, accounts*jobsPerAccount, humanBytes(all.size), all.backup.Seconds()/n, all.restore.Seconds()/n,
		float64(all.writes)/all.backup.Seconds(), all.worst.Round(time.Microsecond), float64(aloneN)/all.backup.Seconds(), alone.Round(time.Microsecond))
}

// backupRound is what one round of BenchmarkBackupRestore measured.
type backupRound struct {
	backup, restore time.Duration
	writes          int           // account creations beside the backup
	worst           time.Duration // the longest of them
	size            int64         // the snapshot's
}

// runBackupRound backs the data directory dir up while accounts are
// created in st beside it, then restores the backup into a new directory.
func runBackupRound(b *testing.B, st *sqlite.Store, dir string) backupRound {
	var r backupRound
	to := filepath.Join(b.TempDir(), "backup")
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { // the server's writes, beside the backup
		defer wg.Done()
		r.worst, r.writes = writeUntil(b, st, stop)
	}()
	start := time.Now()
	runCLI(b, "backup", "--data-dir", dir, "--to", to)
	r.backup = time.Since(start)
	close(stop)
	wg.Wait()
	fi, err := os.Stat(filepath.Join(to, backupDatabase))
	if err != nil {
		b.Fatal(err)
	}
	r.size = fi.Size()
	start = time.Now()
	runCLI(b, "restore", "--data-dir", b.TempDir(), "--from", to)
	r.restore = time.Since(start)
	return r
}

// fillDatabase stores accounts accounts on the Pro plan, each with its
// key and perAccount jobs done with a result, through the store as a
// server does.
func fillDatabase(b *testing.B, st *sqlite.Store, accounts, perAccount int) {
	ctx := context.Background()
	now := time.Now()
	adm := docmill.Admission{Period: now.UTC().Format("2006-01")}
	for i := range accounts {
		a := &docmill.Account{ID: docmill.NewID("acct_"), Name: fmt.Sprintf("account %d", i), Email: fmt.Sprintf("a%d@example.com", i), Plan: docmill.PlanPro, CreatedAt: now}
		_, k := docmill.NewAPIKey(a.ID, "default", now)
		if err := st.CreateAccount(ctx, a, &k); err != nil {
			b.Fatal(err)
		}
		for range perAccount {
			id := docmill.NewJobID()
			j := &docmill.Job{ID: id, AccountID: a.ID, Tool: "compress-pdf", Params: docmill.Params{"preset": "recommended"},
				Inputs:   []docmill.InputFile{{Key: docmill.InputKey(id, 0), Filename: "report.pdf", ContentType: "application/pdf", Size: 182_311}},
				Priority: 3, Operations: 1, ResultTTL: 24 * time.Hour, CreatedAt: now}
			if _, err := st.CreateJob(ctx, j, adm); err != nil {
				b.Fatal(err)
			}
			if _, err := st.StartJob(ctx, id, now); err != nil {
				b.Fatal(err)
			}
			j.Status, j.FinishedAt = docmill.StatusDone, &now
			j.Result = &docmill.Result{Key: docmill.ResultKey(id, "report-compressed.pdf"), Filename: "report-compressed.pdf",
				ContentType: "application/pdf", Size: 91_022, ExpiresAt: now.Add(24 * time.Hour)}
			j.Meta = map[string]any{"duration_ms": 412, "pages": 12}
			if ok, err := st.FinishJob(ctx, j); err != nil || !ok {
				b.Fatalf("FinishJob: %v %v", ok, err)
			}
		}
	}
}

// writeUntil creates accounts on st until stop is closed, and returns
// the longest a creation took and how many it made.
func writeUntil(b *testing.B, st *sqlite.Store, stop <-chan struct{}) (worst time.Duration, n int) {
	ctx := context.Background()
	for {
		select {
		case <-stop:
			return worst, n
		default:
		}
		now := time.Now()
		a := &docmill.Account{ID: docmill.NewID("acct_"), Name: "beside", Plan: docmill.PlanFree, CreatedAt: now}
		_, k := docmill.NewAPIKey(a.ID, "default", now)
		start := time.Now()
		if err := st.CreateAccount(ctx, a, &k); err != nil {
			b.Error(err)
			return worst, n
		}
		worst, n = max(worst, time.Since(start)), n+1
	}
}

// writeFor is writeUntil for d.
func writeFor(b *testing.B, st *sqlite.Store, d time.Duration) (worst time.Duration, n int) {
	stop := make(chan struct{})
	t := time.AfterFunc(d, func() { close(stop) })
	defer t.Stop()
	return writeUntil(b, st, stop)
}
