package sandbox_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/docmill/docmill/sandbox"
)

// copyLine is the command line of a spare sh in dir that reads one line
// and writes it, with its working directory, to dir's out.txt.
func copyLine(dir string) []string {
	return []string{"-c", `read line; echo "$line $(pwd)" > ` + filepath.Join(dir, "out.txt")}
}

// TestSpares: the first job of a key finds no spare and starts one; the
// next job gets it, already running in its jail, hands it its input on
// standard input and finds its output in the spare's directory, seen by
// the program at /job; a spare serves one job and Close removes its
// directory; Close on Spares stops the waiting one.
func TestSpares(t *testing.T) {
	e := sh(t, sandbox.Options{})
	root := t.TempDir()
	s := sandbox.NewSpares(e, root)
	if sp := s.Take("copy", copyLine); sp != nil {
		t.Fatal("the first Take returned a spare: nothing was started before it")
	}
	s.Settle()
	sp := s.Take("copy", copyLine)
	if sp == nil {
		t.Fatal("the second Take returned no spare")
	}
	if got := sp.Paths().InJail(sp.Dir()); got != "/job" {
		t.Errorf("the spare sees its directory at %s, want /job", got)
	}
	res, err := sp.Run(context.Background(), []byte("hello\n"))
	if err != nil {
		t.Fatalf("Run: %v (%+v)", err, res)
	}
	out, err := os.ReadFile(filepath.Join(sp.Dir(), "out.txt"))
	if err != nil || !strings.HasPrefix(string(out), "hello /job/") {
		t.Fatalf("out.txt = %q, %v; want the line and a working directory under /job", out, err)
	}
	dir := sp.Dir()
	sp.Close()
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the spent spare's directory is still there: %v", err)
	}
	// Taking the second spare started a third, which waits (or is still
	// starting); Close stops it.
	s.Close()
	if entries, _ := os.ReadDir(root); len(entries) != 0 {
		t.Errorf("Close left %d directories in the spares' directory", len(entries))
	}
	if sp := s.Take("copy", copyLine); sp != nil {
		t.Error("Take after Close returned a spare")
	}
}

// TestSpareCanceled: a spare still working when its job's context ends is
// killed, and Run returns the context's error at once.
func TestSpareCanceled(t *testing.T) {
	e := sh(t, sandbox.Options{})
	s := sandbox.NewSpares(e, t.TempDir())
	defer s.Close()
	sleeper := func(string) []string { return []string{"-c", "read line; sleep 60"} }
	s.Take("sleep", sleeper)
	s.Settle()
	sp := s.Take("sleep", sleeper)
	if sp == nil {
		t.Fatal("no spare")
	}
	defer sp.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := sp.Run(ctx, []byte("go\n"))
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Run: %v, want the deadline", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("Run returned %s after its deadline", d)
	}
}

// TestSpareGone: a spare whose program ended before its job is never
// handed out (or, when it ends between Take and Run, Run says
// ErrSpareGone); after three such spares in a row the key gets no more.
func TestSpareGone(t *testing.T) {
	e := sh(t, sandbox.Options{})
	s := sandbox.NewSpares(e, t.TempDir())
	defer s.Close()
	quits := func(string) []string { return []string{"-c", "exit 3"} }
	var got []*sandbox.Spare
	for range 6 {
		s.Settle()
		<-s.ReadyEnded("quits") // the started one has exited
		if sp := s.Take("quits", quits); sp != nil {
			got = append(got, sp)
			if _, err := sp.Run(context.Background(), []byte("x\n")); !errors.Is(err, sandbox.ErrSpareGone) {
				t.Errorf("Run on an ended spare: %v, want ErrSpareGone", err)
			}
			sp.Close()
		}
	}
	if len(got) != 0 {
		t.Errorf("Take handed out %d spares that had ended", len(got))
	}
}
