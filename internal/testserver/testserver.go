// Package testserver holds what the tests' real servers (versitygw,
// mailpit: programs `make test`'s dependencies install with `go install`)
// need to be started: finding the program, a free port, and a log that
// the process and the test share (LockedWriter, or Buffer, which any
// test may share with what it starts).
package testserver

import (
	"bytes"
	"errors"
	"fmt"
	"go/build"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
)

// Find returns the path of the executable name: on PATH, else in $GOBIN,
// else in $GOPATH/bin (GOPATH defaulting to ~/go).
func Find(name string) (string, error) {
	if p, err := exec.LookPath(name); err == nil {
		return p, nil
	}
	var dirs []string
	if gobin := os.Getenv("GOBIN"); gobin != "" {
		dirs = append(dirs, gobin)
	}
	for _, p := range filepath.SplitList(build.Default.GOPATH) {
		if p != "" {
			dirs = append(dirs, filepath.Join(p, "bin"))
		}
	}
	for _, d := range dirs {
		p := filepath.Join(d, name)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", fmt.Errorf("%s not found on PATH nor in %q", name, dirs)
}

// FreePort returns a TCP port of 127.0.0.1 free when asked; another
// process may take it before the caller binds it, so callers retry.
func FreePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	addr, ok := l.Addr().(*net.TCPAddr)
	if !ok {
		return 0, errors.New("testserver: not a TCP address")
	}
	return addr.Port, nil
}

// ClosedAddr returns an address of 127.0.0.1 that nothing listens on
// when asked (FreePort's port), failing t when there is none.
func ClosedAddr(t testing.TB) string {
	t.Helper()
	port, err := FreePort()
	if err != nil {
		t.Fatal(err)
	}
	return net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
}

// LockedWriter writes to W under Mu, so that a process's output and the
// test reading it do not race.
type LockedWriter struct {
	Mu *sync.Mutex
	W  *bytes.Buffer
}

func (l LockedWriter) Write(p []byte) (int, error) {
	l.Mu.Lock()
	defer l.Mu.Unlock()
	return l.W.Write(p)
}

// Buffer is a bytes.Buffer that a process, a command or a server's
// goroutines write while the test reads it.
type Buffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *Buffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

// String returns what was written so far.
func (b *Buffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}
