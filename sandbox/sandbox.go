// Package sandbox runs external engines (Ghostscript, qpdf, poppler,
// tesseract, ...) and docmill's own document parsing (helper processes)
// the one way docmill allows: each run in a Jail (its own namespaces, a
// file system holding only its job's directories and the system paths it
// needs, no network, an unprivileged uid, rlimits), in a scratch directory
// of its own that is removed afterwards, under a deadline, in its own
// process group that is killed with SIGKILL on deadline or cancel, with a
// cleared environment, bounded output, and at most a fixed number of runs
// of one engine at once.
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
	// version answers Version: the program asked once, on first use.
	version func() string
	slots   chan struct{}
	opts    Options
	// jailPath, when set, is where the program is bound in the jail
	// (docmill's own binary: /docmill).
	jailPath string
}

// Options set how an engine's runs are confined.
type Options struct {
	// Slots is how many runs of the engine may run at once (default: the
	// number of CPUs), so a burst of jobs cannot bury the cores under
	// copies of one program.
	Slots int
	// Limits applies to every run unless a Cmd sets its own.
	Limits Limits
	// Jail confines the engine's runs (default: a jail found once with
	// the default limits). An engine whose jail is not Ready is not
	// available.
	Jail *Jail
	// View adds the read-only system paths the engine needs beyond the
	// jail's base (its data files: /usr/share/ghostscript, ...).
	View View
	// Observe, if set, is told of every run once it ended (the node's
	// metrics). It must be quick: it is called on the run's goroutine.
	Observe func(RunReport)
}

// RunReport is what Options.Observe is told of one run of an engine.
type RunReport struct {
	Engine string
	// Outcome is ok; exit (a non-zero exit status); signal (killed by a
	// signal: a crash, or a limit such as the memory cap); timeout;
	// canceled; output_too_large; or error (it did not start, or its
	// scratch directory could not be made).
	Outcome  string
	Duration time.Duration
}

// outcome names how a run that returned err ended, for RunReport.
func outcome(err error) string {
	var x *ExitError
	switch {
	case err == nil:
		return "ok"
	case errors.Is(err, context.DeadlineExceeded):
		return "timeout"
	case errors.Is(err, context.Canceled):
		return "canceled"
	case errors.Is(err, ErrOutputTooLarge):
		return "output_too_large"
	case errors.As(err, &x) && x.KilledBy() != "":
		return "signal"
	case errors.As(err, &x):
		return "exit"
	}
	return "error"
}

// Limits are resource limits of one run (0: none, or the jail's).
type Limits struct {
	// Memory bounds the program's data (heap and private writable
	// mappings), in bytes (0: the jail's memory cap).
	Memory int64
	// AddressSpace bounds virtual memory, in bytes.
	AddressSpace int64
	// FileSize bounds each file the program writes, in bytes.
	FileSize int64
	// Processes bounds the processes and threads of the jail's uid
	// (enforced only when the server runs as root).
	Processes int64
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
	if opts.Jail == nil {
		opts.Jail = defaultJail()
	}
	e := &Engine{Name: name, slots: make(chan struct{}, opts.Slots), opts: opts}
	path, err := lookPath(name)
	if err != nil {
		return e
	}
	e.Path = path
	if len(versionArgs) > 0 {
		e.version = sync.OnceValue(func() string { return version(path, versionArgs) })
	}
	return e
}

// Version is the first line the program printed when asked ("" for a
// missing program or one Find was given no version arguments for). It
// is asked on the first call, not at Find: the answer is only shown
// (/readyz, the catalogue, a job's meta), and asking every engine at
// start-up cost each start about half a second of CPU.
func (e *Engine) Version() string {
	if e.version == nil {
		return ""
	}
	return e.version()
}

// versions caches what each program said of its version: what is
// installed does not change while the process runs.
var versions sync.Map

func version(path string, args []string) string {
	key := path + "\x00" + strings.Join(args, "\x00")
	if v, ok := versions.Load(key); ok {
		return v.(string)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	out, _ := exec.CommandContext(ctx, path, args...).CombinedOutput()
	v := strings.TrimSpace(strings.SplitN(string(out), "\n", 2)[0])
	versions.Store(key, v)
	return v
}

// Available reports whether the program was found and its jail is ready.
func (e *Engine) Available() bool { return e != nil && e.Path != "" && e.opts.Jail.Ready() }

// memoryCap is the memory cap of the engine's runs.
func (e *Engine) memoryCap() int64 {
	if e.opts.Limits.Memory > 0 {
		return e.opts.Limits.Memory
	}
	return e.opts.Jail.memory
}

// Jail is the jail the engine runs in.
func (e *Engine) Jail() *Jail { return e.opts.Jail }

// Slots is how many runs may run at once.
func (e *Engine) Slots() int { return cap(e.slots) }

// Status describes the engine for /readyz and the catalogue.
func (e *Engine) Status() docmill.EngineStatus {
	return docmill.EngineStatus{Name: e.Name, Path: e.Path, Version: e.Version(), Available: e.Available()}
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
	// View adds to the engine's view of the file system for this run.
	View View
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

// Bounds of what a run's pipes hold in this process. They are not job
// costs a node sets (docmill.Limits): a tool whose output is the job's
// result streams it to a file (Cmd.Stdout) and sets its own MaxOutput
// from its limits.
const (
	// defaultMaxOutput bounds standard output read into memory when the
	// tool sets no MaxOutput: the short reports engines print (versions,
	// page lists, listings), far below it.
	defaultMaxOutput = 64 << 20
	// maxStderr is how much of standard error is kept, its tail: enough
	// for the lines that say why an engine failed, which errors quote
	// and logs record.
	maxStderr = 16 << 10
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
	if err := e.opts.Jail.grant(firstNonEmpty(c.Dir, scratch)); err != nil {
		return nil, fmt.Errorf("sandbox: grant: %w", err)
	}
	if e.opts.Observe == nil {
		return e.run(ctx, c, scratch)
	}
	start := time.Now()
	res, err := e.run(ctx, c, scratch)
	e.opts.Observe(RunReport{Engine: e.Name, Outcome: outcome(err), Duration: time.Since(start)})
	return res, err
}

// Probe runs probe, a check a tool makes by running its engine at
// start-up, before there is any job, with a context that ends after
// timeout and a directory of its own to give its runs as Cmd.Dir: made in
// scratch ("" for the system's temporary directory) and removed
// afterwards, since a run is given its Dir whole and so must never get
// scratch itself. It returns ErrUnavailable, without calling probe, when
// e is not available; otherwise the error of making the directory, or
// probe's.
func (e *Engine) Probe(scratch string, timeout time.Duration, probe func(ctx context.Context, dir string) error) error {
	if !e.Available() {
		return ErrUnavailable
	}
	dir, err := os.MkdirTemp(scratch, "docmill-probe-")
	if err != nil {
		return fmt.Errorf("sandbox: probe directory: %w", err)
	}
	defer os.RemoveAll(dir)
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	return probe(ctx, dir)
}

func (e *Engine) run(ctx context.Context, c Cmd, scratch string) (*Result, error) {
	l := e.argv(c, scratch)
	cmd := exec.Command(l.argv[0], l.argv[1:]...)
	cmd.Dir = scratch
	cmd.Env = env(scratch, c.Env, l.paths)
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
	done, err := e.opts.Jail.start(cmd, l)
	if err != nil {
		return nil, fmt.Errorf("sandbox: start %s: %w", e.Name, err)
	}
	watched := watchPeak(cmd.Process.Pid)
	var killedFor error
	select {
	case err := <-done:
		docmill.NoteEnginePeak(ctx, max(watched(), exitedPeakKB(cmd)))
		return e.result(err, &stdout, c.Stdout != nil, stderr, start)
	case <-ctx.Done():
		killedFor = ctx.Err()
	case <-over:
		killedFor = ErrOutputTooLarge
	}
	// Kill the whole jail: engines start helpers (gs, ocrmypdf), and none
	// may outlive the run.
	e.opts.Jail.Kill(cmd.Process.Pid)
	<-done
	docmill.NoteEnginePeak(ctx, max(watched(), exitedPeakKB(cmd)))
	return nil, killedFor
}

func (e *Engine) result(err error, stdout *bytes.Buffer, streamed bool, stderr *tailBuffer, start time.Time) (*Result, error) {
	res := &Result{Stderr: stderr.Bytes(), Duration: time.Since(start)}
	if !streamed {
		res.Stdout = stdout.Bytes()
	}
	if x := exitError(e.Name, err, string(res.Stderr)); x != nil {
		return res, x
	}
	if err != nil {
		return res, fmt.Errorf("sandbox: %s: %w", e.Name, err)
	}
	return res, nil
}

// exitError describes err, a Wait error of engine's program, as an
// ExitError, or is nil when the program did not run to an exit or a
// signal.
func exitError(engine string, err error, stderr string) *ExitError {
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		return nil
	}
	x := &ExitError{Engine: engine, Code: ee.ExitCode(), Stderr: stderr}
	if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		x.Signal = ws.Signal().String()
	}
	return x
}

// argv is how to start c confined, run in scratch (Jail.argv).
func (e *Engine) argv(c Cmd, scratch string) launch {
	limits := e.opts.Limits
	if c.Limits != nil {
		limits = *c.Limits
	}
	v := e.opts.View
	v.Tmp = firstNonEmpty(c.View.Tmp, v.Tmp)
	v.ReadOnly = append(append([]string{}, v.ReadOnly...), c.View.ReadOnly...)
	v.Writable = append(append([]string{}, v.Writable...), c.View.Writable...)
	r := run{cmd: append([]string{e.Path}, c.Args...), view: v, limits: limits, dirs: []string{c.Dir, scratch}, workDir: scratch, startedHere: true}
	if e.jailPath != "" && e.opts.Jail.Confined() {
		r.cmd[0] = e.jailPath
		r.files = [][2]string{{e.Path, e.jailPath}}
	}
	return e.opts.Jail.argv(r)
}

// env is the environment of a run in scratch: a cleared one, with HOME
// and TMPDIR the scratch directory, plus extra, in jail paths.
func env(scratch string, extra []string, paths Paths) []string {
	out := []string{"PATH=/usr/local/bin:/usr/bin:/bin", "HOME=" + scratch, "TMPDIR=" + scratch, "LANG=C.UTF-8", "LC_ALL=C.UTF-8"}
	out = append(out, extra...)
	for i, v := range out {
		out[i] = paths.InJail(v)
	}
	return out
}

func firstNonEmpty(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return ""
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

// LookPath finds the program name as Find does (lookPath). Tests use it
// to ask for the same program the product would run.
func LookPath(name string) (string, error) { return lookPath(name) }

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
