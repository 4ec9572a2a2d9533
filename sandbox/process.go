package sandbox

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
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
}

// Start starts the engine with c and returns at once; the program runs
// until it exits or Kill is called. Unlike Run it takes no slot (the
// caller's pool bounds how many run) and has no deadline unless c.Timeout
// is set, which then bounds its whole life.
//
// Confinement is Run's: its own process group, SIGKILL if docmill dies
// (Pdeathsig), a cleared environment plus c.Env, c.Limits or the engine's
// limits, and a scratch directory made inside c.Dir (its working
// directory, HOME and TMPDIR) that is removed when it ends. Where Linux
// allows it, the program also gets an empty network namespace and a PID
// namespace of its own whose first process dies with the sandbox's
// launcher, so no descendant (LibreOffice's soffice.bin is a grandchild)
// can outlive it even if it leaves the process group.
//
// When c.Stdin is nil, Stdin returns a pipe to the program's standard
// input; when c.Stdout is nil, Stdout returns a pipe from its standard
// output, which the caller must keep reading. Standard error is kept in a
// bounded tail (Stderr).
func (e *Engine) Start(c Cmd) (*Process, error) {
	if !e.Available() {
		return nil, ErrUnavailable
	}
	return e.start(c, nil)
}

// start is Start, confined to v when v is not nil.
func (e *Engine) start(c Cmd, v *View) (*Process, error) {
	scratch, err := os.MkdirTemp(c.Dir, "proc-")
	if err != nil {
		return nil, fmt.Errorf("sandbox: scratch: %w", err)
	}
	p := &Process{engine: e.Name, scratch: scratch, stderr: &lockedTail{t: tailBuffer{max: maxStderr}}, done: make(chan struct{})}
	cmd, closeChild, err := p.command(e, c, v)
	if err == nil {
		err = cmd.Start()
	}
	closeChild()
	if err != nil {
		p.closePipes()
		os.RemoveAll(scratch)
		return nil, fmt.Errorf("sandbox: start %s: %w", e.Name, err)
	}
	p.cmd = cmd
	go p.wait()
	if c.Timeout > 0 {
		t := time.AfterFunc(c.Timeout, p.Kill)
		go func() { <-p.done; t.Stop() }()
	}
	return p, nil
}

// command builds the confined command line and its standard streams;
// closeChild closes the parent's copies of the child's pipe ends.
func (p *Process) command(e *Engine, c Cmd, v *View) (*exec.Cmd, func(), error) {
	limits := e.opts.Limits
	if c.Limits != nil {
		limits = *c.Limits
	}
	argv := wrap(e.Path, c.Args, limits, false)
	if v != nil {
		b, _ := lookPath("bwrap")
		argv = append(bwrapArgs(b, v, c.Dir, p.scratch), argv...)
	} else if !e.opts.Network && pidnsAvailable() {
		u, _ := lookPath("unshare")
		argv = append([]string{u, "--net", "--pid", "--fork", "--kill-child", "--"}, argv...)
	} else if !e.opts.Network {
		argv = wrap(e.Path, c.Args, limits, true)
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = p.scratch
	cmd.Env = append([]string{"PATH=/usr/local/bin:/usr/bin:/bin", "HOME=" + p.scratch, "TMPDIR=" + p.scratch, "LANG=C.UTF-8", "LC_ALL=C.UTF-8"}, c.Env...)
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
			return nil, closeChild, err
		}
		cmd.Stdin, p.stdin = r, w
		childEnds = append(childEnds, r)
	}
	cmd.Stdout = c.Stdout
	if c.Stdout == nil {
		r, w, err := os.Pipe()
		if err != nil {
			return nil, closeChild, err
		}
		cmd.Stdout, p.stdout = w, r
		childEnds = append(childEnds, w)
	}
	return cmd, closeChild, nil
}

func (p *Process) wait() {
	p.err = p.cmd.Wait()
	// The group may hold helpers that the launcher did not wait for.
	_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
	if p.stdin != nil {
		p.stdin.Close()
	}
	os.RemoveAll(p.scratch)
	close(p.done)
}

// Kill ends the program and everything it started (SIGKILL to its process
// group), waits for it and removes its scratch directory. It is safe to
// call more than once and after the program has exited.
func (p *Process) Kill() {
	p.kill.Do(func() {
		_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
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

// pidnsAvailable reports, once, whether unshare can make network and PID
// namespaces here.
var pidnsAvailable = sync.OnceValue(func() bool {
	u, err := lookPath("unshare")
	if err != nil {
		return false
	}
	return exec.Command(u, "--net", "--pid", "--fork", "--kill-child", "--", "true").Run() == nil
})

// View is the part of the file system a program started by StartIn sees:
// the system's programs and libraries and its configuration read-only
// (/usr, /etc and the /bin, /lib style links), fresh /proc and /dev, an
// empty /tmp (or Tmp), and the listed directories at their own paths.
// Nothing else of the host exists for it: not the service's home, not
// other jobs' directories, not /var or /srv.
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

// ErrNoView is StartIn's error when bubblewrap is missing or cannot make
// namespaces here.
var ErrNoView = errors.New("sandbox: cannot confine the file system (bubblewrap missing or not permitted)")

// ViewAvailable reports whether StartIn can confine a program's view of
// the file system here.
func ViewAvailable() bool { return bwrapAvailable() }

// StartIn is Start with the program confined to the file system view v
// by bubblewrap, which also gives it an empty network namespace and a PID
// namespace of its own (ending with the launcher) whatever the engine's
// options say. With no usable bubblewrap it fails with ErrNoView rather
// than run the program unconfined.
func (e *Engine) StartIn(c Cmd, v View) (*Process, error) {
	if !e.Available() {
		return nil, ErrUnavailable
	}
	if !bwrapAvailable() {
		return nil, ErrNoView
	}
	return e.start(c, &v)
}

// bwrapArgs is the bubblewrap command line that confines the program to v,
// with scratch (its working directory) and dir bound read-write.
func bwrapArgs(bwrap string, v *View, dir, scratch string) []string {
	argv := []string{bwrap, "--die-with-parent", "--unshare-net", "--unshare-pid", "--unshare-ipc", "--unshare-uts",
		"--ro-bind", "/usr", "/usr", "--ro-bind", "/etc", "/etc"}
	for _, l := range []string{"/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"} {
		if target, err := os.Readlink(l); err == nil {
			argv = append(argv, "--symlink", target, l)
		} else if st, err := os.Stat(l); err == nil && st.IsDir() {
			argv = append(argv, "--ro-bind", l, l)
		}
	}
	// Without its cache fontconfig would rescan every font at each start.
	if st, err := os.Stat("/var/cache/fontconfig"); err == nil && st.IsDir() {
		argv = append(argv, "--ro-bind", "/var/cache/fontconfig", "/var/cache/fontconfig")
	}
	argv = append(argv, "--proc", "/proc", "--dev", "/dev")
	// /tmp first: binds made later inside it stay visible.
	if v.Tmp != "" {
		argv = append(argv, "--bind", v.Tmp, "/tmp")
	} else {
		argv = append(argv, "--tmpfs", "/tmp")
	}
	for _, d := range append(append([]string{dir}, v.Writable...), scratch) {
		if d != "" {
			argv = append(argv, "--bind", d, d)
		}
	}
	for _, f := range v.ReadOnly {
		argv = append(argv, "--ro-bind", f, f)
	}
	return append(argv, "--chdir", scratch, "--")
}

// bwrapAvailable reports, once, whether bubblewrap can make the
// namespaces StartIn needs here.
var bwrapAvailable = sync.OnceValue(func() bool {
	b, err := lookPath("bwrap")
	if err != nil {
		return false
	}
	d, err := os.MkdirTemp("", "docmill-bwrap-")
	if err != nil {
		return false
	}
	defer os.RemoveAll(d)
	argv := bwrapArgs(b, &View{}, d, d)
	return exec.Command(argv[0], append(argv[1:], "/bin/true")...).Run() == nil
})
