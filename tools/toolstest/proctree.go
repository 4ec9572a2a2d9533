package toolstest

import (
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Proc is one process as /proc shows it: its pid and start time (which
// together name one process, whatever reuses the pid later) and its
// command name.
type Proc struct {
	PID   int
	Start string
	Comm  string
}

func (p Proc) String() string { return p.Comm + "/" + strconv.Itoa(p.PID) }

// stat reads a process's parent, command name, state and start time from
// /proc/PID/stat.
func stat(pid int) (ppid int, p Proc, state string, ok bool) {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return 0, Proc{}, "", false
	}
	s := string(b)
	open, end := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
	if open < 0 || end < open {
		return 0, Proc{}, "", false
	}
	f := strings.Fields(s[end+1:]) // from field 3, the state
	if len(f) < 20 {
		return 0, Proc{}, "", false
	}
	ppid, _ = strconv.Atoi(f[1])
	return ppid, Proc{PID: pid, Start: f[19], Comm: s[open+1 : end]}, f[0], true
}

// ProcessTree lists the descendants of the process root, by walking
// /proc.
func ProcessTree(root int) []Proc {
	ents, _ := os.ReadDir("/proc")
	parent := map[int]int{}
	procs := map[int]Proc{}
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if ppid, p, _, ok := stat(pid); ok {
			parent[pid], procs[pid] = ppid, p
		}
	}
	var out []Proc
	for pid, p := range procs {
		for up, hops := parent[pid], 0; up > 1 && hops < 64; up, hops = parent[up], hops+1 {
			if up == root {
				out = append(out, p)
				break
			}
		}
	}
	sort.Slice(out, func(i, k int) bool { return out[i].PID < out[k].PID })
	return out
}

// Running returns the processes of procs that still run: they exist and
// are not zombies (a zombie holds no memory, file or CPU; reaping it is
// its parent's business).
func Running(procs []Proc) []Proc {
	var out []Proc
	for _, p := range procs {
		if _, now, state, ok := stat(p.PID); ok && now.Start == p.Start && state != "Z" {
			out = append(out, p)
		}
	}
	return out
}

// Busy returns the processes of procs that used CPU time during window:
// those working now, as opposed to warm ones waiting for a job.
func Busy(procs []Proc, window time.Duration) []Proc {
	before := map[int]int64{}
	for _, p := range procs {
		before[p.PID] = cpuTicks(p)
	}
	time.Sleep(window)
	var out []Proc
	for _, p := range procs {
		if t := cpuTicks(p); t > before[p.PID] {
			out = append(out, p)
		}
	}
	return out
}

// cpuTicks is the CPU time p used so far (user and system, in clock
// ticks), -1 when p is gone.
func cpuTicks(p Proc) int64 {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(p.PID), "stat"))
	if err != nil {
		return -1
	}
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(f) < 20 || f[19] != p.Start {
		return -1
	}
	u, _ := strconv.ParseInt(f[11], 10, 64)
	k, _ := strconv.ParseInt(f[12], 10, 64)
	return u + k
}
