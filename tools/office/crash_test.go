package office_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	docmill "github.com/docmill/docmill"
	"github.com/docmill/docmill/internal/poll"
	"github.com/docmill/docmill/tools/office"
	"github.com/docmill/docmill/tools/toolstest"
)

// TestWarmWorkerCrash: a warm soffice that aborts while converting a
// document (SIGABRT, sent from outside once the document is staged: a
// real crash of the real process, LibreOffice's crash handler and all)
// fails the run as the EngineFailure of soffice, "aborted", internal: the
// crash rule's first half (jobs). A run with FreshEngines, the rule's
// second run, converts in a soffice started for it, and succeeds.
func TestWarmWorkerCrash(t *testing.T) {
	dir := t.TempDir()
	p := newPool(t, office.Options{Workers: 1, Dir: dir})
	tl := toolOf(t, p, "word-to-pdf")
	long := filepath.Join(t.TempDir(), "long.txt")
	if err := os.WriteFile(long, bytes.Repeat([]byte("A line of a long document, to keep LibreOffice busy a while.\n"), 3000), 0o600); err != nil {
		t.Fatal(err)
	}

	ctx, stop := context.WithCancel(context.Background())
	aborted := make(chan error, 1)
	go func() { aborted <- abortWhenStaged(ctx, filepath.Join(dir, "worker-0", "job")) }()
	started := time.Now()
	_, err := run(t, tl, long, nil)
	t.Logf("the crashed run took %s", time.Since(started))
	stop()
	if kerr := <-aborted; kerr != nil {
		t.Fatalf("abort soffice: %v (run: %v)", kerr, err)
	}
	var f *docmill.EngineFailure
	if docmill.ErrorCode(err) != docmill.CodeInternal || !errors.As(err, &f) || f.Engine != "soffice" || f.Signal != "aborted" || !f.Crashed() {
		t.Fatalf("run: %v; want internal, the EngineFailure of soffice, aborted", err)
	}

	// The crashed worker was replaced; convert once so it is warm.
	docx := writeDocx(t, "Converted after the crash.")
	if _, err := run(t, tl, docx, nil); err != nil {
		t.Fatal(err)
	}
	starts := p.Starts()
	d := t.TempDir()
	started = time.Now()
	out, err := tl.Invoke(context.Background(), &docmill.RunInput{
		Files: []docmill.LocalFile{toolstest.Input(t, d, docx, "")}, Params: docmill.Params{}, WorkDir: d, FreshEngines: true})
	if err != nil {
		t.Fatalf("fresh run: %v", err)
	}
	t.Logf("the fresh run took %s", time.Since(started))
	if got := p.Starts() - starts; got != 1 {
		t.Errorf("the fresh run started %d soffice, want 1 (a cold one for it)", got)
	}
	if pages, _ := out.Meta["pages"].(int); pages < 1 {
		t.Errorf("meta %v, want the long document's pages", out.Meta)
	}
}

// abortWhenStaged waits (within ctx) for a document in the worker's job
// directory stage, then sends SIGABRT to the soffice.bin in that worker's
// jail.
func abortWhenStaged(ctx context.Context, stage string) error {
	var err error
	if !poll.Sample(ctx, 2*time.Millisecond, func() bool {
		if entries, _ := os.ReadDir(stage); len(entries) > 0 {
			for _, pid := range programUnder("soffice.bin", os.Getpid()) {
				if inJailOf(pid, filepath.Dir(stage)) { // not another pool's (sharedPool)
					err = syscall.Kill(pid, syscall.SIGABRT)
					return true
				}
			}
		}
		return false
	}) {
		return errors.New("never saw the document staged")
	}
	return err
}

// programUnder lists the live processes descended from root whose
// program's base name is name.
func programUnder(name string, root int) []int {
	entries, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		cmdline, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil || len(cmdline) == 0 {
			continue
		}
		argv0, _, _ := bytes.Cut(cmdline, []byte{0})
		if filepath.Base(string(argv0)) == name && descends(pid, root) {
			out = append(out, pid)
		}
	}
	return out
}

func descends(pid, root int) bool {
	for i := 0; i < 64 && pid > 1; i++ {
		b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		if err != nil {
			return false
		}
		f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
		if len(f) < 2 {
			return false
		}
		pid, _ = strconv.Atoi(f[1])
		if pid == root {
			return true
		}
	}
	return false
}
