package sandbox

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/docmill/docmill"
)

// Jail is the one confinement every engine runs in. Each program is
// started by bubblewrap in namespaces of its own (mount, network, PID,
// IPC, UTS): its file system shows only the job's own directories
// (read-write) and the read-only system paths engines need to run (their
// programs and libraries under /usr/bin and /usr/lib, fonts, and each
// engine's own data directories: Options.View), never the data directory,
// other jobs, /root, /home or host files a document could pull in. The
// network namespace is empty. When the server runs as root the program
// runs as an unprivileged uid with no capabilities and no way to gain any
// (no_new_privs), and rlimits bound its memory, CPU time, file size and,
// for that uid, processes.
//
// A Jail that cannot be set up (no bubblewrap, namespaces refused) fails
// closed: its engines are unavailable, unless it was made Unsafe.
type Jail struct {
	bwrap   string
	setpriv string
	prlimit string
	// uid and gid the programs run as; -1 when the server is not root
	// (the programs keep its uid, which is already unprivileged).
	uid, gid int
	memory   int64
	unsafe   bool
	// why is the reason the jail cannot confine, "" when it can.
	why     string
	version string
}

// JailOptions set up a Jail.
type JailOptions struct {
	// Bwrap is bubblewrap's path (default: found on the system path).
	Bwrap string
	// Unsafe runs engines unconfined (resource limits only) when the jail
	// cannot be set up, instead of making them unavailable. For
	// development machines only.
	Unsafe bool
	// UID and GID are the unprivileged ids programs run as when the
	// server is root (default 65534, nobody and nogroup).
	UID, GID int
	// Memory bounds each program's memory in bytes (RLIMIT_DATA: heap
	// and private writable mappings, which unlike address space is not
	// inflated by the reservations of V8, Go or LibreOffice). 0: none.
	Memory int64
	// Dir is where NewJail makes the directory it tries the jail in
	// (default: the system's temporary directory); the server passes its
	// node's scratch directory, so that nothing it makes is outside it.
	Dir string
}

// NewJail finds bubblewrap and checks, once, that it can confine a
// program here.
func NewJail(o JailOptions) *Jail {
	closeInheritedOnExec()
	j := &Jail{uid: -1, gid: -1, unsafe: o.Unsafe, memory: o.Memory}
	if os.Geteuid() == 0 {
		j.uid, j.gid = 65534, 65534
		if o.UID > 0 {
			j.uid = o.UID
		}
		if o.GID > 0 {
			j.gid = o.GID
		}
	}
	j.prlimit, _ = lookPath("prlimit")
	j.setpriv, _ = lookPath("setpriv")
	j.bwrap = o.Bwrap
	if j.bwrap == "" {
		j.bwrap, _ = lookPath("bwrap")
	}
	j.why = j.check(o.Dir)
	return j
}

// closeInheritedOnExec marks every open descriptor past standard error
// close-on-exec. Go opens its own so, but a process keeps what its
// parent left open without the flag (a supervisor's pipe, a shell's
// descriptor), and every program it starts would inherit those: a
// jailed engine among them. Descriptors a run hands on deliberately (a
// jail's info and block pipes) are passed by exec.Cmd.ExtraFiles, which
// is not affected.
func closeInheritedOnExec() {
	entries, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return
	}
	for _, e := range entries {
		if fd, err := strconv.Atoi(e.Name()); err == nil && fd > 2 {
			syscall.CloseOnExec(fd)
		}
	}
}

// defaultJail is the jail of engines whose Options name none: found
// once, with the default memory cap.
var defaultJail = sync.OnceValue(func() *Jail {
	return NewJail(JailOptions{Memory: docmill.DefaultLimits().EngineMemory})
})

// check returns why the jail cannot confine programs, or "", trying it
// in a directory made in dir.
func (j *Jail) check(dir string) string {
	if j.bwrap == "" {
		return "bubblewrap (bwrap) not found"
	}
	if st, err := os.Stat(j.bwrap); err != nil || st.IsDir() {
		return "bubblewrap (bwrap) not found at " + j.bwrap
	}
	if j.prlimit == "" {
		return "prlimit (util-linux) not found"
	}
	if j.uid >= 0 && j.setpriv == "" {
		return "setpriv (util-linux) not found"
	}
	d, err := os.MkdirTemp(dir, "docmill-jail-")
	if err != nil {
		return "cannot make a directory to try the jail in: " + err.Error()
	}
	defer os.RemoveAll(d)
	if err := j.grant(d); err != nil {
		return "cannot hand a directory to the jail's uid: " + err.Error()
	}
	// Tried as runs are started, limits and all, so that a jail that
	// cannot set them fails closed here.
	l := j.argv(run{cmd: []string{"/bin/sh", "-c", "test -w . && ! test -e /root"}, dirs: []string{d}, workDir: d, startedHere: true})
	cmd := exec.Command(l.argv[0], l.argv[1:]...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	exited, err := j.start(cmd, l)
	if err == nil {
		err = <-exited
	}
	if err != nil {
		return fmt.Sprintf("bubblewrap cannot confine programs here: %v: %s", err, strings.TrimSpace(out.String()))
	}
	if v, err := exec.Command(j.bwrap, "--version").Output(); err == nil {
		j.version = strings.TrimSpace(string(v))
	}
	return ""
}

// Confined reports whether programs run confined.
func (j *Jail) Confined() bool { return j.why == "" }

// Ready reports whether engines may run: confined, or unsafe by choice.
func (j *Jail) Ready() bool { return j.why == "" || j.unsafe }

// Why says why the jail cannot confine programs ("" when it can).
func (j *Jail) Why() string { return j.why }

// Status describes the jail for /readyz and the catalogue, as the engine
// "sandbox": available when engines may run; its version says how they
// are confined.
func (j *Jail) Status() docmill.EngineStatus {
	s := docmill.EngineStatus{Name: "sandbox", Path: j.bwrap, Available: j.Ready()}
	switch {
	case j.why == "":
		s.Version = j.version
		if j.uid >= 0 {
			s.Version += ", uid " + strconv.Itoa(j.uid)
		}
	case j.unsafe:
		s.Version = "UNSAFE: engines run unconfined (--unsafe-no-sandbox): " + j.why
	default:
		s.Version = "unavailable: " + j.why
	}
	return s
}

// basePaths are the read-only system paths every confined program sees:
// programs, libraries, the dynamic linker's cache and fonts. /usr/share
// and /etc as a whole stay out of sight: they hold host files (images,
// the hostname) a document could include.
var basePaths = []string{
	"/usr/bin", "/usr/lib", "/usr/lib64", "/usr/libexec",
	"/etc/ld.so.cache", "/etc/alternatives",
	"/usr/share/fonts", "/usr/local/share/fonts", "/usr/share/fontconfig", "/etc/fonts", "/var/cache/fontconfig",
}

// run is one program to confine.
type run struct {
	cmd    []string
	view   View
	limits Limits
	// dirs are bound read-write; the first at /job, others not inside an
	// earlier one at /job-1, /job-2, ...
	dirs []string
	// workDir is where the program starts (a host path).
	workDir string
	// files are read-only binds from a host path to another path in the
	// jail (docmill's own binary, as /docmill).
	files [][2]string
	// startedHere is set when this package starts the program (Jail.start),
	// which can then set its limits on the jail before the program runs
	// instead of a prlimit in the command line; a command line another
	// library starts (Command) carries prlimit.
	startedHere bool
}

// argv is how to start r confined (launch): the command line, the map of
// the host paths it was given to the paths it sees, and the limits Jail.start
// sets on the jail when r is startedHere and the jail can (launch.rlimits);
// otherwise prlimit in the command line sets them. The program's
// arguments, given in host paths, are rewritten to jail paths. Every
// writable directory is seen at a fixed path (/job, ...), so that nothing
// of the host's layout, such as the data directory's path, exists in the
// jail. Unconfined (an unsafe jail that cannot confine) it is cmd under
// prlimit and, where allowed, unshare's empty network namespace, with
// paths unchanged.
func (j *Jail) argv(r run) launch {
	if j.why != "" {
		limited := j.limitArgs(r.cmd, r.limits)
		if netnsAvailable() {
			u, _ := lookPath("unshare")
			return launch{argv: append([]string{u, "--net", "--"}, limited...)}
		}
		return launch{argv: limited}
	}
	var l launch
	if r.startedHere && j.limitsOnInit() {
		l.rlimits = j.rlimits(r.limits)
	}
	var paths Paths
	b := &bwrapLine{made: map[string]bool{"/": true}}
	b.add(j.bwrap, "--die-with-parent", "--new-session", "--unshare-net", "--unshare-pid",
		"--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try", "--hostname", "docmill")
	if len(l.rlimits) > 0 {
		b.add(handshakeArgs...)
	}
	b.add("--proc", "/proc", "--dev", "/dev")
	b.made["/proc"], b.made["/dev"] = true, true
	// /tmp first: binds made later inside it stay visible.
	if r.view.Tmp != "" {
		b.bind("--bind", r.view.Tmp, "/tmp")
		paths.add(r.view.Tmp, "/tmp")
	} else {
		b.add("--perms", "1777", "--tmpfs", "/tmp")
		b.made["/tmp"] = true
	}
	for _, p := range append(append([]string{}, basePaths...), r.view.ReadOnly...) {
		b.bind("--ro-bind", p)
	}
	for _, f := range r.files {
		b.bind("--ro-bind", f[0], f[1])
		paths.add(f[0], f[1])
	}
	for _, l := range []string{"/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"} {
		if target, err := os.Readlink(l); err == nil {
			b.add("--symlink", target, l)
		}
	}
	b.bindWritable(append(append([]string{}, r.dirs...), r.view.Writable...), &paths)
	workDir := r.workDir
	if abs, err := filepath.Abs(workDir); err == nil {
		workDir = abs
	}
	b.add("--chdir", paths.InJail(workDir), "--")
	if j.uid >= 0 {
		b.add(j.setpriv, "--reuid="+strconv.Itoa(j.uid), "--regid="+strconv.Itoa(j.gid), "--clear-groups",
			"--bounding-set=-all", "--inh-caps=-all", "--no-new-privs", "--")
	}
	cmd := make([]string, len(r.cmd))
	for i, a := range r.cmd {
		cmd[i] = paths.InJail(a)
	}
	l.paths = paths
	if len(l.rlimits) > 0 {
		l.argv = append(b.argv, cmd...)
	} else {
		l.argv = append(b.argv, j.limitArgs(cmd, r.limits)...)
	}
	return l
}

// Paths maps host paths to the paths a jailed program sees them at, and
// back. The zero Paths maps every path to itself (an unconfined program).
type Paths struct {
	pairs [][2]string // host, jail
}

func (m *Paths) add(host, jail string) { m.pairs = append(m.pairs, [2]string{host, jail}) }

// InJail rewrites every host path of m found in s (an argument, an
// environment value, a message field) to its path in the jail.
func (m Paths) InJail(s string) string {
	for _, p := range m.pairs {
		s = replacePath(s, p[0], p[1])
	}
	return s
}

// OnHost rewrites every jail path of m found in s to its host path.
func (m Paths) OnHost(s string) string {
	for _, p := range m.pairs {
		s = replacePath(s, p[1], p[0])
	}
	return s
}

// replacePath replaces from with to in s where from is a whole path or
// the start of one: followed by the end, a slash or a character no path
// of ours holds, never by more of a name ("/job-12" is not "/job-1").
func replacePath(s, from, to string) string {
	var b strings.Builder
	for {
		i := strings.Index(s, from)
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		end := i + len(from)
		// A path starts the string, follows a separator (a space, "=", a
		// quote) or a URL's "://", never a name or another path's slash.
		done := b.String() + s[:i]
		starts := done == "" || !isNameByte(done[len(done)-1]) && (done[len(done)-1] != '/' || strings.HasSuffix(done, "://"))
		if starts && (end == len(s) || !isNameByte(s[end])) {
			b.WriteString(s[:i])
			b.WriteString(to)
		} else {
			b.WriteString(s[:end])
		}
		s = s[end:]
	}
}

func isNameByte(c byte) bool {
	return c == '-' || c == '_' || c == '.' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// bwrapLine builds a bubblewrap command line, making every directory on
// the way to a mount point world-searchable (0755): bubblewrap would make
// them 0700, which the unprivileged uid could not pass.
type bwrapLine struct {
	argv []string
	made map[string]bool
}

func (b *bwrapLine) add(args ...string) { b.argv = append(b.argv, args...) }

// bindWritable binds dirs read-write, the first at /job and each other
// not inside an earlier one at /job-1, /job-2, ..., and adds them to
// paths.
func (b *bwrapLine) bindWritable(dirs []string, paths *Paths) {
	n := 0
	for _, d := range dirs {
		if d == "" {
			continue
		}
		if abs, err := filepath.Abs(d); err == nil {
			d = abs
		}
		if paths.InJail(d) != d {
			continue // inside a directory already bound
		}
		to := "/job"
		if n > 0 {
			to += "-" + strconv.Itoa(n)
		}
		n++
		b.bind("--bind", d, to)
		paths.add(d, to)
	}
}

// bind binds src at dst (src's own path when dst is not given), skipping
// a missing src.
func (b *bwrapLine) bind(how, src string, dst ...string) {
	if abs, err := filepath.Abs(src); err == nil {
		src = abs
	}
	to := src
	if len(dst) > 0 {
		to = dst[0]
	}
	if _, err := os.Stat(src); err != nil {
		return
	}
	b.parents(to)
	b.add(how, src, to)
	b.made[to] = true
}

func (b *bwrapLine) parents(p string) {
	var todo []string
	for d := filepath.Dir(p); !b.made[d]; d = filepath.Dir(d) {
		todo = append(todo, d)
		b.made[d] = true
	}
	sort.Slice(todo, func(i, k int) bool { return len(todo[i]) < len(todo[k]) })
	for _, d := range todo {
		b.add("--perms", "0755", "--dir", d)
	}
}

// Grant hands dir and everything in it to the jail's uid, so that a
// program running as it can read the inputs and write its outputs there.
// Inputs may be hard links to stored uploads, which then change owner
// too: harmless, since the server reads any file as root. Run and Start
// grant their Cmd.Dir themselves; a warm program given files later (a
// document staged for a running LibreOffice) needs them granted.
func (j *Jail) Grant(dir string) error { return j.grant(dir) }

func (j *Jail) grant(dir string) error {
	if j.uid < 0 || j.why != "" {
		return nil
	}
	return filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		return os.Lchown(p, j.uid, j.gid)
	})
}

// Command returns the command line that runs argv confined to v, started
// in workDir with dirs bound read-write, for a program that another
// library starts (Chromium, started by chromedp), and the map of its
// paths (for its environment). It first hands dirs to the jail's uid. A
// jail that is not Ready gives ErrUnavailable.
func (j *Jail) Command(argv []string, v View, l Limits, workDir string, dirs ...string) ([]string, Paths, error) {
	if !j.Ready() {
		return nil, Paths{}, ErrUnavailable
	}
	for _, d := range dirs {
		if err := j.grant(d); err != nil {
			return nil, Paths{}, err
		}
	}
	r := j.argv(run{cmd: argv, view: v, limits: l, dirs: dirs, workDir: workDir})
	return r.argv, r.paths, nil
}

// Default returns the jail engines get when their options name none.
func Default() *Jail { return defaultJail() }

// Kill ends a program started in j, whose launcher is pid (the leader of
// its own process group), and everything it started. In a confined jail
// the launcher's children go first (bubblewrap's jail init, in a session
// of its own: its death takes the jail's PID namespace along); the
// launcher reaps them and exits, and only then, or after a second, its
// group is killed. Killed in the other order, the children would be
// orphans for the system's init to reap, and when docmill is that init
// (PID 1 of a container) they would stay zombies for good.
func (j *Jail) Kill(pid int) {
	if j.Confined() {
		kids := children(pid)
		for _, c := range kids {
			_ = syscall.Kill(c, syscall.SIGKILL)
		}
		for deadline := time.Now().Add(time.Second); len(kids) > 0 && running(pid) && time.Now().Before(deadline); {
			time.Sleep(2 * time.Millisecond)
		}
	}
	_ = syscall.Kill(-pid, syscall.SIGKILL)
}

// children are the child processes of pid (none when the kernel does not
// list them).
func children(pid int) []int {
	p := strconv.Itoa(pid)
	b, err := os.ReadFile("/proc/" + p + "/task/" + p + "/children")
	if err != nil {
		return nil
	}
	var out []int
	for _, f := range strings.Fields(string(b)) {
		if c, err := strconv.Atoi(f); err == nil {
			out = append(out, c)
		}
	}
	return out
}

// running reports whether pid exists and has not exited (a zombie, whose
// exit its parent has yet to collect, has).
func running(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	return len(f) > 0 && f[0] != "Z"
}
