package sandbox_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/docmill/docmill/sandbox"
	"github.com/docmill/docmill/tools/toolstest"
)

// jailed is sh in a jail with limits, or the test skips (fails on CI)
// where the jail cannot be set up.
func jailed(t *testing.T, o sandbox.JailOptions, l sandbox.Limits) *sandbox.Engine {
	t.Helper()
	j := sandbox.NewJail(o)
	if !j.Confined() {
		toolstest.NeedCapability(t, "build a jail", errors.New(j.Why()))
	}
	return sandbox.Find("sh", nil, sandbox.Options{Jail: j, Limits: l})
}

func runSh(t *testing.T, e *sandbox.Engine, dir, script string) (string, error) {
	t.Helper()
	res, err := e.Run(context.Background(), sandbox.Cmd{Dir: dir, Args: []string{"-c", script}})
	if res == nil {
		return "", err
	}
	return strings.TrimSpace(string(res.Stdout)), err
}

// TestJailView: a jailed program sees its job's directory and the system
// it needs, and nothing of the host a document could pull in or a job
// could steal: other directories, /root, /home, the rest of /etc and
// /usr/share. It runs as the unprivileged uid when the server is root,
// with no capabilities, under the hostname docmill.
func TestJailView(t *testing.T) {
	e := jailed(t, sandbox.JailOptions{}, sandbox.Limits{})
	dir, other := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "mine"), []byte("mine"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{other, "/root", "/home", "/etc/hostname", "/etc/passwd", "/usr/share/pixmaps", "/usr/share/doc", "/var/lib", "/var/log", "/srv"} {
		if out, _ := runSh(t, e, dir, "test -e "+p+" && echo visible || echo hidden"); out != "hidden" {
			t.Errorf("%s: %s", p, out)
		}
	}
	for _, p := range []string{filepath.Join(dir, "mine"), "/usr/bin/sh", "/usr/share/fonts", "/etc/fonts"} {
		if out, _ := runSh(t, e, dir, "test -r "+p+" && echo readable || echo missing"); out != "readable" {
			t.Errorf("%s: %s", p, out)
		}
	}
	if out, err := runSh(t, e, dir, "echo x > written && cat written"); out != "x" {
		t.Errorf("job directory not writable: %q %v", out, err)
	}
	if out, _ := runSh(t, e, dir, "echo x > /usr/bin/planted 2>/dev/null && echo wrote || echo refused"); out != "refused" {
		t.Errorf("system path writable: %s", out)
	}
	if out, _ := runSh(t, e, dir, "cat /proc/sys/kernel/hostname"); out != "docmill" {
		t.Errorf("hostname %q", out)
	}
	status, _ := runSh(t, e, dir, "grep -E '^(Uid|CapEff|NoNewPrivs)' /proc/self/status")
	if os.Geteuid() == 0 {
		for _, want := range []string{"Uid:\t65534\t65534\t65534\t65534", "CapEff:\t0000000000000000", "NoNewPrivs:\t1"} {
			if !strings.Contains(status, want) {
				t.Errorf("status %q lacks %q", status, want)
			}
		}
	}
}

// TestJailInheritsNoDescriptor: a descriptor the server's process holds
// without close-on-exec (as a supervisor or shell may leave one) does
// not reach a jailed program.
func TestJailInheritsNoDescriptor(t *testing.T) {
	secret := filepath.Join(t.TempDir(), "secret")
	if err := os.WriteFile(secret, []byte("the server's secret"), 0o644); err != nil {
		t.Fatal(err)
	}
	fd, err := syscall.Open(secret, syscall.O_RDONLY, 0) // no O_CLOEXEC
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Close(fd)
	e := jailed(t, sandbox.JailOptions{}, sandbox.Limits{})
	out, _ := runSh(t, e, t.TempDir(), fmt.Sprintf("cat <&%d 2>/dev/null || echo closed", fd))
	if out != "closed" {
		t.Errorf("the jailed program read descriptor %d: %q", fd, out)
	}
}

// TestJailLimits: the memory cap makes an allocation past it fail, and
// the file size cap stops a runaway writer.
func TestJailLimits(t *testing.T) {
	e := jailed(t, sandbox.JailOptions{Memory: 64 << 20}, sandbox.Limits{FileSize: 1 << 20})
	dir := t.TempDir()
	// python3's bytearray needs real memory; under 64 MB, 256 MB fails.
	if _, err := os.Stat("/usr/bin/python3"); err == nil {
		py := sandbox.Find("python3", nil, sandbox.Options{Jail: e.Jail()})
		res, err := py.Run(context.Background(), sandbox.Cmd{Dir: dir, Args: []string{"-c", "b = bytearray(256 << 20); print('allocated')"}})
		var x *sandbox.ExitError
		if !errors.As(err, &x) || (res != nil && strings.Contains(string(res.Stdout), "allocated")) {
			t.Errorf("256 MB allocated under a 64 MB cap: %v", err)
		}
	}
	_, err := runSh(t, e, dir, "head -c 4000000 /dev/zero > big")
	var x *sandbox.ExitError
	if !errors.As(err, &x) {
		t.Errorf("4 MB written under a 1 MB file cap: %v", err)
	}
	if st, err := os.Stat(filepath.Join(dir, "big")); err == nil && st.Size() > 1<<20 {
		t.Errorf("file of %d bytes", st.Size())
	}
}

// TestJailFailsClosed: without bubblewrap the jail is not ready, its
// engines are unavailable and refuse to run; an unsafe jail runs them
// unconfined.
func TestJailFailsClosed(t *testing.T) {
	j := sandbox.NewJail(sandbox.JailOptions{Bwrap: "/nonexistent/bwrap"})
	if j.Ready() || j.Confined() || !strings.Contains(j.Why(), "bubblewrap") {
		t.Fatalf("ready %v, confined %v, why %q", j.Ready(), j.Confined(), j.Why())
	}
	e := sandbox.Find("sh", nil, sandbox.Options{Jail: j})
	if e.Available() {
		t.Error("engine available without its jail")
	}
	if _, err := e.Run(context.Background(), sandbox.Cmd{Dir: t.TempDir(), Args: []string{"-c", "true"}}); !errors.Is(err, sandbox.ErrUnavailable) {
		t.Errorf("run without a jail: %v", err)
	}
	if s := j.Status(); s.Available || !strings.Contains(s.Version, "unavailable") {
		t.Errorf("status %+v", s)
	}

	unsafe := sandbox.NewJail(sandbox.JailOptions{Bwrap: "/nonexistent/bwrap", Unsafe: true})
	if !unsafe.Ready() || unsafe.Confined() || !strings.Contains(unsafe.Status().Version, "UNSAFE") {
		t.Fatalf("unsafe jail: ready %v, status %+v", unsafe.Ready(), unsafe.Status())
	}
	out, err := runSh(t, sandbox.Find("sh", nil, sandbox.Options{Jail: unsafe}), t.TempDir(), "echo ran")
	if err != nil || out != "ran" {
		t.Errorf("unsafe run: %q %v", out, err)
	}
}

// TestJailLimitsInForce: every limit of a run is in force in the program
// itself, soft and hard, however the jail sets them, and the descriptors
// the jail is set up with (3 and 4) are closed before the program runs.
func TestJailLimitsInForce(t *testing.T) {
	e := jailed(t, sandbox.JailOptions{Memory: 300 << 20}, sandbox.Limits{CPUSeconds: 70, OpenFiles: 123, FileSize: 5 << 20, Processes: 321})
	out, err := runSh(t, e, t.TempDir(), "cat /proc/self/limits; for fd in 3 4; do test -e /proc/$$/fd/$fd && echo descriptor $fd left; done; true")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"Max data size             314572800            314572800",
		"Max cpu time              70                   75",
		"Max open files            123                  123",
		"Max file size             5242880              5242880",
	}
	if os.Geteuid() == 0 {
		want = append(want, "Max processes             321                  321")
	}
	for _, w := range want {
		if !strings.Contains(out, w) {
			t.Errorf("limits lack %q:\n%s", w, out)
		}
	}
	if strings.Contains(out, "descriptor") {
		t.Errorf("descriptors of the jail left to the program:\n%s", out)
	}
}
