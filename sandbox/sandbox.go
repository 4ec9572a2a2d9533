// Package sandbox runs external engines (Ghostscript, qpdf, poppler,
// tesseract, ...) the one way docmill allows: each run in a scratch
// directory of its own that is removed afterwards, under a deadline, in its
// own process group that is killed with SIGKILL on deadline or cancel, with
// a cleared environment, resource limits, no network where Linux allows it,
// bounded output, and at most a fixed number of runs of one engine at once.
package sandbox

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/docmill/docmill"
)

// Engine is an external program, found once at start-up.
type Engine struct {
	// Name is the program's name ("gs", "qpdf", "pdftoppm").
	Name string
	// Path is where it was found; "" when it is missing.
	Path string
	// Version is the first line the program printed when asked.
	Version string
	slots   chan struct{}
	opts    Options
}

// Options set how an engine's runs are confined.
type Options struct {
	// Slots is how many runs of the engine may run at once (default: the
	// number of CPUs), so a burst of jobs cannot bury the cores under
	// copies of one program.
	Slots int
	// Limits applies to every run unless a Cmd sets its own.
	Limits Limits
	// Network lets the engine reach the network; by default each run gets
	// a network namespace of its own with nothing in it.
	Network bool
}

// Limits are resource limits of one run (0: none).
type Limits struct {
	// AddressSpace bounds virtual memory, in bytes.
	AddressSpace int64
	// CPUSeconds bounds CPU time.
	CPUSeconds int64
	// OpenFiles bounds open file descriptors.
	OpenFiles int64
}

// Find looks up name on the standard system path and asks it for its
// version with versionArgs. A missing program gives an Engine that is not
// Available, whose runs fail with engine_unavailable: never a crash.
func Find(name string, versionArgs []string, opts Options) *Engine {
	if opts.Slots <= 0 {
		opts.Slots = max(1, runtimeCPUs())
	}
	e := &Engine{Name: name, slots: make(chan struct{}, opts.Slots), opts: opts}
	path, err := lookPath(name)
	if err != nil {
		return e
	}
	e.Path = path
	if len(versionArgs) > 0 {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		out, _ := exec.CommandContext(ctx, path, versionArgs...).CombinedOutput()
		e.Version = strings.TrimSpace(strings.SplitN(string(out), "\n", 2)[0])
	}
	return e
}

// Available reports whether the program was found.
func (e *Engine) Available() bool { return e != nil && e.Path != "" }

// Slots is how many runs may run at once.
func (e *Engine) Slots() int { return cap(e.slots) }

// Status describes the engine for /readyz and the catalogue.
func (e *Engine) Status() docmill.EngineStatus {
	return docmill.EngineStatus{Name: e.Name, Path: e.Path, Version: e.Version, Available: e.Available()}
}

// Cmd is one run of an engine.
type Cmd struct {
	// Args follow the program name.
	Args []string
	// Dir is the job's directory, where inputs and outputs live; each run
	// gets a scratch directory inside it (its working directory, HOME and
	// TMPDIR), removed when the run ends.
	Dir string
	// Stdin, if set, is the program's standard input.
	Stdin io.Reader
	// Stdout, if set, receives standard output as it comes, instead of
	// Result.Stdout; at most MaxOutput bytes either way.
	Stdout io.Writer
	// MaxOutput bounds standard output (default 64 MiB); past it the run
	// is killed and fails with ErrOutputTooLarge.
	MaxOutput int64
	// Timeout bounds the run beyond ctx's own deadline (0: ctx only).
	Timeout time.Duration
	// Env adds variables to the cleared environment.
	Env []string
	// Limits, when any is set, replace the engine's.
	Limits *Limits
}

// Result is what a finished run left.
type Result struct {
	Stdout   []byte
	Stderr   []byte // the last maxStderr bytes
	Duration time.Duration
}

// Errors of Run.
var (
	// ErrUnavailable is the error of a run of an engine that is missing.
	ErrUnavailable = errors.New("sandbox: engine not available")
	// ErrOutputTooLarge marks a run killed for writing too much.
	ErrOutputTooLarge = errors.New("sandbox: output too large")
)

// ExitError is a run that ended with a non-zero status or a signal. Tools
// decide what it means: usually a damaged input (invalid_document).
type ExitError struct {
	Engine string
	Code   int    // -1 when killed by a signal
	Signal string // the signal, if killed
	Stderr string // the end of standard error, for logs only
}

func (e *ExitError) Error() string {
	if e.Signal != "" {
		return fmt.Sprintf("%s killed by %s: %s", e.Engine, e.Signal, e.Stderr)
	}
	return fmt.Sprintf("%s exited with %d: %s", e.Engine, e.Code, e.Stderr)
}

const (
	defaultMaxOutput = 64 << 20
	maxStderr        = 16 << 10
)

// Run runs the engine with c. It waits for a free slot (or ctx), then runs
// the program confined as the package describes. On deadline or cancel the
// whole process group is killed and ctx's error returned.
func (e *Engine) Run(ctx context.Context, c Cmd) (*Result, error) {
	if !e.Available() {
		return nil, ErrUnavailable
	}
	if c.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, c.Timeout)
		defer cancel()
	}
	select {
	case e.slots <- struct{}{}:
		defer func() { <-e.slots }()
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	scratch, err := os.MkdirTemp(c.Dir, "run-")
	if err != nil {
		return nil, fmt.Errorf("sandbox: scratch: %w", err)
	}
	defer os.RemoveAll(scratch)
	return e.run(ctx, c, scratch)
}

func (e *Engine) run(ctx context.Context, c Cmd, scratch string) (*Result, error) {
	limits := e.opts.Limits
	if c.Limits != nil {
		limits = *c.Limits
	}
	argv := wrap(e.Path, c.Args, limits, !e.opts.Network)
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = scratch
	cmd.Env = append([]string{"PATH=/usr/local/bin:/usr/bin:/bin", "HOME=" + scratch, "TMPDIR=" + scratch, "LANG=C.UTF-8", "LC_ALL=C.UTF-8"}, c.Env...)
	cmd.Stdin = c.Stdin
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	// A descendant that left the group could hold the output pipes open;
	// Wait gives up on them this long after the program exits.
	cmd.WaitDelay = time.Second
	maxOut := c.MaxOutput
	if maxOut <= 0 {
		maxOut = defaultMaxOutput
	}
	var stdout bytes.Buffer
	var dst io.Writer = &stdout
	if c.Stdout != nil {
		dst = c.Stdout
	}
	over := make(chan struct{})
	out := &boundedWriter{w: dst, left: maxOut, over: over}
	stderr := &tailBuffer{max: maxStderr}
	cmd.Stdout, cmd.Stderr = out, stderr

	start := time.Now()
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("sandbox: start %s: %w", e.Name, err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var killedFor error
	select {
	case err := <-done:
		return e.result(err, &stdout, c.Stdout != nil, stderr, start)
	case <-ctx.Done():
		killedFor = ctx.Err()
	case <-over:
		killedFor = ErrOutputTooLarge
	}
	// Kill the whole group: engines start helpers (gs, ocrmypdf), and none
	// may outlive the run.
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	<-done
	return nil, killedFor
}

func (e *Engine) result(err error, stdout *bytes.Buffer, streamed bool, stderr *tailBuffer, start time.Time) (*Result, error) {
	res := &Result{Stderr: stderr.Bytes(), Duration: time.Since(start)}
	if !streamed {
		res.Stdout = stdout.Bytes()
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		x := &ExitError{Engine: e.Name, Code: ee.ExitCode(), Stderr: string(res.Stderr)}
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			x.Signal = ws.Signal().String()
		}
		return res, x
	}
	if err != nil {
		return res, fmt.Errorf("sandbox: %s: %w", e.Name, err)
	}
	return res, nil
}

// wrap confines a command line: prlimit sets the resource limits and
// unshare gives it an empty network namespace, both from util-linux, so
// the limits hold from the program's first instruction.
func wrap(path string, args []string, l Limits, isolate bool) []string {
	var argv []string
	if p, err := lookPath("prlimit"); err == nil && (l.AddressSpace > 0 || l.CPUSeconds > 0 || l.OpenFiles > 0) {
		argv = append(argv, p)
		if l.AddressSpace > 0 {
			argv = append(argv, "--as="+strconv.FormatInt(l.AddressSpace, 10))
		}
		if l.CPUSeconds > 0 {
			argv = append(argv, "--cpu="+strconv.FormatInt(l.CPUSeconds, 10))
		}
		if l.OpenFiles > 0 {
			argv = append(argv, "--nofile="+strconv.FormatInt(l.OpenFiles, 10))
		}
		argv = append(argv, "--")
	}
	if isolate && netnsAvailable() {
		u, _ := lookPath("unshare")
		argv = append(argv, u, "--net", "--")
	}
	return append(append(argv, path), args...)
}

// netnsAvailable reports, once, whether unshare can make a network
// namespace here (it needs privileges that containers may withhold).
var netnsAvailable = sync.OnceValue(func() bool {
	u, err := lookPath("unshare")
	if err != nil {
		return false
	}
	return exec.Command(u, "--net", "--", "true").Run() == nil
})

// lookPath finds a program in the standard system directories only, never
// in a directory a job or the service's own PATH could add.
func lookPath(name string) (string, error) {
	for _, dir := range []string{"/usr/local/bin", "/usr/bin", "/bin"} {
		p := filepath.Join(dir, name)
		if st, err := os.Stat(p); err == nil && !st.IsDir() && st.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", exec.ErrNotFound
}

// boundedWriter passes on at most left bytes, then signals over once.
type boundedWriter struct {
	w    io.Writer
	left int64
	over chan struct{}
	shut sync.Once
}

func (b *boundedWriter) Write(p []byte) (int, error) {
	if int64(len(p)) > b.left {
		b.shut.Do(func() { close(b.over) })
		return 0, ErrOutputTooLarge
	}
	b.left -= int64(len(p))
	return b.w.Write(p)
}

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	max int
	buf []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.buf = append(t.buf, p...)
	if len(t.buf) > t.max {
		t.buf = append(t.buf[:0:0], t.buf[len(t.buf)-t.max:]...)
	}
	return len(p), nil
}

func (t *tailBuffer) Bytes() []byte { return t.buf }

// AllAvailable returns a Tool.Available that reports whether every engine
// was found.
func AllAvailable(engines ...*Engine) func() bool {
	return func() bool {
		for _, e := range engines {
			if !e.Available() {
				return false
			}
		}
		return true
	}
}

// Statuses returns a Tool.Engines that describes the engines.
func Statuses(engines ...*Engine) func() []docmill.EngineStatus {
	return func() []docmill.EngineStatus {
		out := make([]docmill.EngineStatus, len(engines))
		for i, e := range engines {
			out[i] = e.Status()
		}
		return out
	}
}
