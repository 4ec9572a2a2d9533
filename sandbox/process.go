package sandbox

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"sync"
	"syscall"
	"time"
)

// Process is a long-running confined program started by Engine.Start: a
// warm engine (LibreOffice, a converter talking to it) that serves many
// jobs. It is confined as a run is (process group, cleared environment,
// limits, empty network namespace), and its scratch directory lives as
// long as it does.
type Process struct {
	engine  string
	cmd     *exec.Cmd
	scratch string
	stdin   io.WriteCloser
	stdout  io.ReadCloser
	stderr  *lockedTail
	done    chan struct{}
	err     error // Wait's error; read only after done is closed
	kill    sync.Once
	paths   Paths
	jail    *Jail
}

// Paths maps host paths to the paths the program sees, and back: paths
// sent to it in messages (a document to convert) must be its own.
func (p *Process) Paths() Paths { return p.paths }

// Start starts the engine with c and returns at once; the program runs
// until it exits or Kill is called. Unlike Run it takes no slot (the
// caller's pool bounds how many run) and has no deadline unless c.Timeout
// is set, which then bounds its whole life.
//
// Confinement is Run's: the engine's jail (with c.View added), its own
// process group, SIGKILL if docmill dies (Pdeathsig, and bubblewrap's
// --die-with-parent for everything inside its PID namespace, so no
// descendant such as LibreOffice's soffice.bin can outlive it), a cleared
// environment plus c.Env, c.Limits or the engine's limits, and a scratch
// directory made inside c.Dir (its working directory, HOME and TMPDIR)
// that is removed when it ends.
//
// When c.Stdin is nil, Stdin returns a pipe to the program's standard
// input; when c.Stdout is nil, Stdout returns a pipe from its standard
// output, which the caller must keep reading. Standard error is kept in a
// bounded tail (Stderr).
func (e *Engine) Start(c Cmd) (*Process, error) {
	if !e.Available() {
		return nil, ErrUnavailable
	}
	scratch, err := os.MkdirTemp(c.Dir, "proc-")
	if err != nil {
		return nil, fmt.Errorf("sandbox: scratch: %w", err)
	}
	for _, d := range append([]string{firstNonEmpty(c.Dir, scratch), c.View.Tmp}, c.View.Writable...) {
		if d == "" {
			continue
		}
		if err := e.opts.Jail.grant(d); err != nil {
			os.RemoveAll(scratch)
			return nil, fmt.Errorf("sandbox: grant: %w", err)
		}
	}
	p := &Process{engine: e.Name, scratch: scratch, stderr: &lockedTail{t: tailBuffer{max: maxStderr}}, done: make(chan struct{}), jail: e.opts.Jail}
	cmd, l, closeChild, err := p.command(e, c)
	var exited <-chan error
	if err == nil {
		exited, err = e.opts.Jail.start(cmd, l)
	}
	closeChild()
	if err != nil {
		p.closePipes()
		os.RemoveAll(scratch)
		return nil, fmt.Errorf("sandbox: start %s: %w", e.Name, err)
	}
	p.cmd = cmd
	go p.wait(exited)
	if c.Timeout > 0 {
		t := time.AfterFunc(c.Timeout, p.Kill)
		go func() { <-p.done; t.Stop() }()
	}
	return p, nil
}

// StartIn is Start with v added to the engine's view of the file system
// (a shared /tmp, more writable or read-only paths).
func (e *Engine) StartIn(c Cmd, v View) (*Process, error) {
	c.View = v
	return e.Start(c)
}

// command builds the confined command line, how to start it and its
// standard streams; closeChild closes the parent's copies of the child's
// pipe ends.
func (p *Process) command(e *Engine, c Cmd) (*exec.Cmd, launch, func(), error) {
	l := e.argv(c, p.scratch)
	p.paths = l.paths
	cmd := exec.Command(l.argv[0], l.argv[1:]...)
	cmd.Dir = p.scratch
	cmd.Env = env(p.scratch, c.Env, l.paths)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	cmd.WaitDelay = time.Second
	cmd.Stderr = p.stderr
	var childEnds []*os.File
	closeChild := func() {
		for _, f := range childEnds {
			f.Close()
		}
	}
	cmd.Stdin = c.Stdin
	if c.Stdin == nil {
		r, w, err := os.Pipe()
		if err != nil {
			return nil, l, closeChild, err
		}
		cmd.Stdin, p.stdin = r, w
		childEnds = append(childEnds, r)
	}
	cmd.Stdout = c.Stdout
	if c.Stdout == nil {
		r, w, err := os.Pipe()
		if err != nil {
			return nil, l, closeChild, err
		}
		cmd.Stdout, p.stdout = w, r
		childEnds = append(childEnds, w)
	}
	return cmd, l, closeChild, nil
}

func (p *Process) wait(exited <-chan error) {
	p.err = <-exited
	// The group may hold helpers that the launcher did not wait for.
	_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
	if p.stdin != nil {
		p.stdin.Close()
	}
	os.RemoveAll(p.scratch)
	close(p.done)
}

// startOwned starts cmd from a goroutine that stays locked to its OS
// thread until the program has exited, and returns a channel that gets
// Wait's error. Pdeathsig, which kills the program if docmill dies, fires
// when the thread that started it ends, not the process: started from an
// ordinary goroutine, a warm engine would die whenever the Go runtime
// ended that thread (a goroutine ending while locked to it), and could
// not be bound to the server's own death any more tightly than that.
func startOwned(cmd *exec.Cmd) (<-chan error, error) {
	started := make(chan error, 1)
	exited := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		if err := cmd.Start(); err != nil {
			started <- err
			return
		}
		started <- nil
		exited <- cmd.Wait()
	}()
	if err := <-started; err != nil {
		return nil, err
	}
	return exited, nil
}

// Kill ends the program and everything it started (SIGKILL to its process
// group), waits for it and removes its scratch directory. It is safe to
// call more than once and after the program has exited.
func (p *Process) Kill() {
	p.kill.Do(func() {
		p.jail.Kill(p.cmd.Process.Pid)
	})
	<-p.done
	p.closePipes()
}

func (p *Process) closePipes() {
	if p.stdin != nil {
		p.stdin.Close()
	}
	if p.stdout != nil {
		p.stdout.Close()
	}
}

// Done is closed when the program has exited (on its own or killed) and
// its scratch directory is gone.
func (p *Process) Done() <-chan struct{} { return p.done }

// Running reports whether the process has not exited yet (Done is not
// closed).
func (p *Process) Running() bool {
	select {
	case <-p.done:
		return false
	default:
		return true
	}
}

// Err is how the program ended (nil while it runs, or if it exited 0).
func (p *Process) Err() error {
	select {
	case <-p.done:
		return p.err
	default:
		return nil
	}
}

// Pid is the process ID of the program's launcher, which leads its
// process group.
func (p *Process) Pid() int { return p.cmd.Process.Pid }

// ResetPeakRSS starts the measure of the program's peak resident memory
// over (the package function ResetPeakRSS, on its process tree), so
// that PeakRSS reads the peak of one job it serves.
func (p *Process) ResetPeakRSS() { ResetPeakRSS(p.cmd.Process.Pid) }

// PeakRSS is the peak resident memory of the program's processes since
// ResetPeakRSS (or its start), added up, in KiB.
func (p *Process) PeakRSS() int64 { return PeakRSS(p.cmd.Process.Pid) }

// Dir is the program's scratch directory.
func (p *Process) Dir() string { return p.scratch }

// Stdin is the pipe to the program's standard input (nil if Cmd.Stdin was
// set).
func (p *Process) Stdin() io.WriteCloser { return p.stdin }

// Stdout is the pipe from the program's standard output (nil if Cmd.Stdout
// was set). It reports EOF once the program has exited.
func (p *Process) Stdout() io.Reader { return p.stdout }

// Stderr returns the last bytes the program wrote to standard error.
func (p *Process) Stderr() string { return p.stderr.String() }

// lockedTail is a tailBuffer that may be read while the program writes.
type lockedTail struct {
	mu sync.Mutex
	t  tailBuffer
}

func (l *lockedTail) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.t.Write(b)
}

func (l *lockedTail) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return string(l.t.Bytes())
}

// View is what a jailed program sees of the file system beyond the jail's
// base (programs, libraries, fonts read-only; fresh /proc and /dev; its
// directories read-write): an empty /tmp (or Tmp), and the listed paths
// at their own paths. Nothing else of the host exists for it: not the
// service's home, not other jobs' directories, not /var or /srv.
type View struct {
	// Tmp, if set, is a directory bound as the program's /tmp, so that
	// programs started with the same Tmp share it (LibreOffice puts its
	// UNO pipe's socket there).
	Tmp string
	// Writable directories are bound read-write; Cmd.Dir always is.
	Writable []string
	// ReadOnly files or directories are bound read-only.
	ReadOnly []string
}
