package sandbox

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"time"

	"golang.org/x/sys/unix"
)

// launch is how a confined program is started: its command line, the
// map of its paths, and the resource limits Jail.start sets on the jail
// before the program runs (none when a prlimit in the command line sets
// them).
type launch struct {
	argv    []string
	paths   Paths
	rlimits []rlimit
}

// rlimit is one resource limit of a run: the resource, prlimit's option
// for it, and its soft and hard values.
type rlimit struct {
	resource   int
	option     string
	soft, hard uint64
}

// rlimits are the resource limits of a run with l and the jail's memory
// cap.
func (j *Jail) rlimits(l Limits) []rlimit {
	var out []rlimit
	add := func(resource int, option string, soft, hard int64) {
		if soft > 0 {
			out = append(out, rlimit{resource: resource, option: option, soft: uint64(soft), hard: uint64(hard)})
		}
	}
	mem := l.Memory
	if mem == 0 {
		mem = j.memory
	}
	add(unix.RLIMIT_DATA, "--data", mem, mem)
	add(unix.RLIMIT_AS, "--as", l.AddressSpace, l.AddressSpace)
	// The soft limit sends SIGXCPU, which Classify reads as the input's
	// fault (processing_timeout); the hard one, a little later, kills a
	// program that ignores it.
	add(unix.RLIMIT_CPU, "--cpu", l.CPUSeconds, l.CPUSeconds+5)
	add(unix.RLIMIT_NOFILE, "--nofile", l.OpenFiles, l.OpenFiles)
	add(unix.RLIMIT_FSIZE, "--fsize", l.FileSize, l.FileSize)
	if j.uid >= 0 {
		// RLIMIT_NPROC counts every process and thread of the jail's uid,
		// in all jails at once: a fork bomb stops here, not at the host's.
		add(unix.RLIMIT_NPROC, "--nproc", l.Processes, l.Processes)
	}
	return out
}

// limitArgs prefixes cmd with prlimit setting l and the jail's memory cap.
func (j *Jail) limitArgs(cmd []string, l Limits) []string {
	limits := j.rlimits(l)
	if len(limits) == 0 || j.prlimit == "" {
		return cmd
	}
	argv := []string{j.prlimit}
	for _, r := range limits {
		v := strconv.FormatUint(r.soft, 10)
		if r.hard != r.soft {
			v += ":" + strconv.FormatUint(r.hard, 10)
		}
		argv = append(argv, r.option+"="+v)
	}
	return append(append(argv, "--"), cmd...)
}

// limitsOnInit reports whether Jail.start can set a run's limits on the
// jail itself: when the server is root, and so may set them on the
// jail's init (which runs as root until setpriv drops to the jail's uid).
// Otherwise a prlimit in the command line sets them, one program more
// started per run.
func (j *Jail) limitsOnInit() bool { return j.uid >= 0 }

// handshakeArgs have bubblewrap report its jail's init (its pid, as JSON
// on descriptor 3) and block it, its mounts made, until a byte or the
// end of file comes on descriptor 4; start passes both as the command's
// ExtraFiles.
var handshakeArgs = []string{"--info-fd", "3", "--block-fd", "4"}

// handshakeTimeout bounds the wait for bubblewrap's report of its jail.
const handshakeTimeout = 10 * time.Second

// start starts cmd, the launcher of l, as startOwned does. When l has
// rlimits, bubblewrap was given handshakeArgs: start reads the pid of the
// jail's init, sets the limits on it (inherited by everything the jail
// runs: setpriv, then the program) and only then lets it go on. If that
// fails the jail is killed before it runs anything, and start fails. A
// launcher that exits before it made a jail is left to report why:
// its exit is on the returned channel.
func (j *Jail) start(cmd *exec.Cmd, l launch) (<-chan error, error) {
	if len(l.rlimits) == 0 {
		return startOwned(cmd)
	}
	infoR, infoW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	defer infoR.Close()
	blockR, blockW, err := os.Pipe()
	if err != nil {
		infoW.Close()
		return nil, err
	}
	// Closed last, once the limits are set or the jail is gone: an end
	// of file lets the jail go on as a byte does.
	defer blockW.Close()
	cmd.ExtraFiles = []*os.File{infoW, blockR}
	exited, err := startOwned(cmd)
	infoW.Close()
	blockR.Close()
	if err != nil {
		return nil, err
	}
	pid, err := jailInit(infoR)
	if errors.Is(err, errNoJail) {
		// Collected before the deferred close, so that nothing it could
		// have made goes on (--die-with-parent kills it at the launcher's
		// exit).
		replay := make(chan error, 1)
		replay <- <-exited
		return replay, nil
	}
	if err == nil {
		err = setRlimits(pid, l.rlimits)
	}
	if err == nil {
		_, err = blockW.Write([]byte{1})
	}
	if err != nil {
		j.Kill(cmd.Process.Pid)
		<-exited
		return nil, fmt.Errorf("sandbox: limits: %w", err)
	}
	return exited, nil
}

// errNoJail is jailInit's error when the launcher ended without a word:
// it failed before it made a jail.
var errNoJail = errors.New("bubblewrap made no jail")

// jailInit reads bubblewrap's report of its jail from info and returns
// the pid of the jail's init.
func jailInit(info *os.File) (int, error) {
	if err := info.SetReadDeadline(time.Now().Add(handshakeTimeout)); err != nil {
		return 0, err
	}
	var buf []byte
	chunk := make([]byte, 512)
	for !bytes.Contains(buf, []byte("}")) {
		n, err := info.Read(chunk)
		buf = append(buf, chunk[:n]...)
		if errors.Is(err, io.EOF) && len(buf) == 0 {
			return 0, errNoJail
		}
		if err != nil || len(buf) > 4096 {
			return 0, fmt.Errorf("bubblewrap's report %q: %v", buf, err)
		}
	}
	var report struct {
		ChildPID int `json:"child-pid"`
	}
	if err := json.Unmarshal(buf[:bytes.IndexByte(buf, '}')+1], &report); err != nil || report.ChildPID <= 0 {
		return 0, fmt.Errorf("bubblewrap's report %q: %v", buf, err)
	}
	return report.ChildPID, nil
}

// setRlimits sets limits on the process pid.
func setRlimits(pid int, limits []rlimit) error {
	for _, r := range limits {
		if err := unix.Prlimit(pid, r.resource, &unix.Rlimit{Cur: r.soft, Max: r.hard}, nil); err != nil {
			return fmt.Errorf("%s on the jail: %w", r.option, err)
		}
	}
	return nil
}
