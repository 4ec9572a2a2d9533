package main

import (
	"bufio"
	"bytes"
	"compress/zlib"
	"context"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"io/fs"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/image/font"
	"golang.org/x/image/font/basicfont"
	"golang.org/x/image/math/fixed"

	"github.com/docmill/docmill/client"
	"github.com/docmill/docmill/internal/poll"
	"github.com/docmill/docmill/tools/chromium"
	"github.com/docmill/docmill/tools/toolstest"
)

// jailUID is the uid (and gid) engines run as when the server is root.
const jailUID = 65534

// jailProc is one process of this test's engines, as /proc shows it.
type jailProc struct {
	pid   int
	start string // start time: with the pid, names one process
	exe   string // the program, as the jail's file system names it
	args  []string
}

// procStat reads a process's parent, command name, state and start time
// from /proc/PID/stat.
func procStat(pid int) (ppid int, comm, state, start string, ok bool) {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return 0, "", "", "", false
	}
	s := string(b)
	open, end := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
	if open < 0 || end < open {
		return 0, "", "", "", false
	}
	f := strings.Fields(s[end+1:]) // from field 3, the state
	if len(f) < 20 {
		return 0, "", "", "", false
	}
	ppid, _ = strconv.Atoi(f[1])
	return ppid, s[open+1 : end], f[0], f[19], true
}

// jailedProcs lists the processes running confined for the process self:
// the descendants of a bubblewrap self started, but not bubblewrap
// itself (its processes keep root in the namespaces they set up) nor the
// setpriv and prlimit that exec the engine.
func jailedProcs(self int) []jailProc {
	ents, _ := os.ReadDir("/proc")
	type node struct {
		ppid int
		comm string
	}
	nodes := map[int]node{}
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if ppid, comm, _, _, ok := procStat(pid); ok {
			nodes[pid] = node{ppid, comm}
		}
	}
	var out []jailProc
	for pid, n := range nodes {
		if n.comm == "bwrap" || n.comm == "setpriv" || n.comm == "prlimit" {
			continue
		}
		// Walk up to self's child: it must be a bubblewrap.
		jailed := false
		for p, hops := pid, 0; hops < 64; hops++ {
			up, ok := nodes[p]
			if !ok || up.ppid <= 1 {
				break
			}
			if up.ppid == self {
				jailed = p != pid && up.comm == "bwrap"
				break
			}
			p = up.ppid
		}
		if !jailed {
			continue
		}
		dir := filepath.Join("/proc", strconv.Itoa(pid))
		exe, err := os.Readlink(filepath.Join(dir, "exe"))
		if err != nil {
			continue
		}
		raw, _ := os.ReadFile(filepath.Join(dir, "cmdline"))
		_, _, _, start, ok := procStat(pid)
		if !ok {
			continue
		}
		out = append(out, jailProc{pid: pid, start: start, exe: exe, args: strings.Split(strings.TrimRight(string(raw), "\x00"), "\x00")})
	}
	sort.Slice(out, func(i, k int) bool { return out[i].pid < out[k].pid })
	return out
}

// jailView is what the test knows of the host to check a jail against.
type jailView struct {
	dataDir string
	// hidden are host paths (that exist on the host) no engine may see.
	hidden []string
	// helperExe is the PDF helper's program: this test binary.
	helperExe string
}

// jobEngines run on a job's own directory (under the data directory's
// tmp/job-*); the others are warm processes with a directory of their
// own (the PDF helper, LibreOffice's workers, Chromium's profile).
var jobEngines = map[string]bool{"gs": true, "pdftoppm": true, "tesseract": true}

// spareEngines may also run in a spare's directory of its own
// (tmp/<node>/spare-*): compress-pdf's Ghostscript started ahead of its
// job (ghostscript.Spares), given only that job's input.
var spareEngines = map[string]bool{"gs": true}

// engineOf names the engine p runs, "" for another program of a jail
// (qpdf, python3, oosplash, a shell).
func (v jailView) engineOf(p jailProc) string {
	switch base := filepath.Base(p.exe); {
	case base == "docmill" && len(p.args) >= 3 && p.args[1] == "engine" && p.args[2] == "pdf":
		return "helper"
	case base == "soffice.bin":
		return "soffice"
	case base == "chrome" || base == filepath.Base(chromium.ExecPath()):
		return "chromium"
	case base == "gs" || base == "pdftoppm" || base == "tesseract" || base == "chromium":
		return base
	}
	return ""
}

// hostDir returns the directory under the data directory's tmp (at most
// four levels down, in the node's directory: tmp/<node>/job-*/run-*,
// tmp/<node>/docmill-helpers-*/helper-*/proc-*) that is the file st, or "".
func (v jailView) hostDir(st os.FileInfo) string {
	for _, pattern := range []string{"*", "*/*", "*/*/*", "*/*/*/*", "*/*/*/*/*"} {
		matches, _ := filepath.Glob(filepath.Join(v.dataDir, "tmp", pattern))
		for _, m := range matches {
			if hs, err := os.Stat(m); err == nil && os.SameFile(st, hs) {
				return m
			}
		}
	}
	return ""
}

// inspect checks p's jail: its uid, its namespaces, and its file system
// (/proc/PID/root), which must hold p's own directory (the job's, for
// the engines that work in one) and nothing of the data directory beyond
// it, of the test's other directories, /root or /home. It reports ok
// false, and no problems, when p ended while being looked at (every path
// of a gone process looks missing).
func (v jailView) inspect(p jailProc) (problems []string, ownDir string, ok bool) {
	dir := filepath.Join("/proc", strconv.Itoa(p.pid))
	root := filepath.Join(dir, "root")
	in := func(path string) string { return filepath.Join(root, path) }
	bad := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }
	absent := func(path, what string) {
		if _, err := os.Lstat(in(path)); !errors.Is(err, fs.ErrNotExist) {
			bad("%s %s is in its file system (%v)", what, path, err)
		}
	}

	if os.Geteuid() == 0 {
		status, _ := os.ReadFile(filepath.Join(dir, "status"))
		want := strconv.Itoa(jailUID)
		for _, l := range strings.Split(string(status), "\n") {
			f := strings.Fields(l)
			if len(f) == 5 && (f[0] == "Uid:" || f[0] == "Gid:") && (f[1] != want || f[2] != want || f[3] != want || f[4] != want) {
				bad("%s %v, want %s: the server is root", f[0], f[1:], want)
			}
		}
	}
	for _, ns := range []string{"mnt", "net", "pid", "ipc", "uts"} {
		mine, _ := os.Readlink("/proc/self/ns/" + ns)
		theirs, err := os.Readlink(filepath.Join(dir, "ns", ns))
		if err == nil && theirs == mine {
			bad("shares the server's %s namespace (%s)", ns, mine)
		}
	}
	for _, h := range v.hidden {
		absent(h, "the host's")
	}

	// p's own directory: its HOME (the scratch directory the sandbox
	// gives it, which its children inherit, when they cd elsewhere, as
	// LibreOffice's start script does), else its working directory.
	//
	// A process whose environment (its memory) cannot be read is
	// exiting; one that still has it still has its file system too (an
	// exiting process drops its memory first).
	env, err := os.ReadFile(filepath.Join(dir, "environ"))
	if err != nil || len(env) == 0 {
		return nil, "", false
	}
	home := ""
	for _, kv := range strings.Split(string(env), "\x00") {
		if h, found := strings.CutPrefix(kv, "HOME="); found {
			home = h
		}
	}
	if home == "" {
		if home, err = os.Readlink(filepath.Join(dir, "cwd")); err != nil {
			return nil, "", false
		}
	}
	// The data directory does not exist for it at all: its own directory
	// is bound at a path of the jail's (/job), not at its host path.
	absent(v.dataDir, "the data directory")
	if strings.HasPrefix(p.exe, "/usr/lib/chromium/") {
		// Chromium's profile is no job's directory, and its helper
		// processes (GPU, crash handler) have no HOME of their own: no
		// own directory to check.
		return v.stillThere(p, problems, home)
	}
	if !strings.HasPrefix(home, "/job") {
		bad("works in %s, not in the jail's /job", home)
	}
	js, err := os.Stat(in(home))
	if err != nil {
		bad("its own directory %s is not in its file system: %v", home, err)
	} else {
		// On the host, its directory is the job's (for the engines that
		// work in one) or its pool's, inside the data directory's tmp.
		ownDir = v.hostDir(js)
		switch rel, _ := filepath.Rel(filepath.Join(v.dataDir, "tmp"), ownDir); {
		case ownDir == "":
			bad("its own directory %s is no directory of the data directory's tmp", home)
		case jobEngines[v.engineOf(p)] && !inJobDir(rel) && !(spareEngines[v.engineOf(p)] && inSpareDir(rel)):
			bad("works in %s, not in a job's own directory (%s/tmp/<node>/job-*) nor a spare's", ownDir, v.dataDir)
		}
	}

	return v.stillThere(p, problems, ownDir)
}

// inJobDir reports whether rel, a path under the data directory's tmp,
// is in a job's directory: <node>/job-*.
func inJobDir(rel string) bool {
	parts := strings.Split(filepath.ToSlash(rel), "/")
	return len(parts) >= 2 && strings.HasPrefix(parts[1], "job-")
}

// inSpareDir reports whether rel, a path under the data directory's tmp,
// is in a spare's directory: <node>/spare-*.
func inSpareDir(rel string) bool {
	parts := strings.Split(filepath.ToSlash(rel), "/")
	return len(parts) >= 2 && strings.HasPrefix(parts[1], "spare-")
}

// stillThere returns what inspect found of p if p is still the same
// process, not exiting; else the checks looked at nothing, and it says
// so (ok false).
func (v jailView) stillThere(p jailProc, problems []string, ownDir string) ([]string, string, bool) {
	if _, _, state, start, alive := procStat(p.pid); !alive || start != p.start || state == "Z" || state == "X" {
		return nil, "", false
	}
	if env, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(p.pid), "environ")); err != nil || len(env) == 0 {
		return nil, "", false
	}
	return problems, ownDir, true
}

// writeVectorPDF writes a PDF of pages A4 pages, each drawing ops random
// filled curves (one shared content stream): seconds of work for
// Ghostscript's pdfwrite and for pdftoppm at 300 dpi, in a file of some
// hundred kilobytes.
func writeVectorPDF(t testing.TB, path string, pages, ops int) {
	t.Helper()
	r := rand.New(rand.NewPCG(1, 2))
	var content bytes.Buffer
	for i := 0; i < ops; i++ {
		x, y := r.Float64()*595, r.Float64()*842
		fmt.Fprintf(&content, "%.2f %.2f %.2f rg %.1f %.1f m %.1f %.1f %.1f %.1f %.1f %.1f c f\n",
			r.Float64(), r.Float64(), r.Float64(), x, y, x+30, y+40, x-20, y+50, x+10, y-30)
	}
	content.WriteString("BT /F1 24 Tf 72 72 Td (Curves) Tj ET\n")
	var z bytes.Buffer
	zw := zlib.NewWriter(&z)
	zw.Write(content.Bytes())
	zw.Close()

	objs := []string{
		"<< /Type /Catalog /Pages 2 0 R >>",
		"", // the page tree, below
		"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
		fmt.Sprintf("<< /Length %d /Filter /FlateDecode >>\nstream\n%s\nendstream", z.Len(), z.Bytes()),
	}
	kids := make([]string, pages)
	for i := range kids {
		kids[i] = fmt.Sprintf("%d 0 R", len(objs)+1)
		objs = append(objs, "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Resources << /Font << /F1 3 0 R >> >> /Contents 4 0 R >>")
	}
	objs[1] = fmt.Sprintf("<< /Type /Pages /Kids [%s] /Count %d >>", strings.Join(kids, " "), pages)
	if err := os.WriteFile(path, toolstest.PDF(objs...), 0o600); err != nil {
		t.Fatal(err)
	}
}

// writeTextScan writes a PNG of an A4 page at 300 dpi covered in lines of
// text (the 7x13 bitmap font drawn three times larger): some seconds of
// tesseract.
func writeTextScan(t testing.TB, path string) {
	t.Helper()
	const scale = 3
	small := image.NewGray(image.Rect(0, 0, 2480/scale, 3508/scale))
	draw.Draw(small, small.Bounds(), image.White, image.Point{}, draw.Src)
	d := font.Drawer{Dst: small, Src: image.Black, Face: basicfont.Face7x13}
	words := strings.Fields("the quick brown fox jumps over the lazy dog while docmill converts every page of a scanned letter to searchable text")
	for line, y := 0, 40; y < small.Bounds().Dy()-30; line, y = line+1, y+18 {
		var s []string
		for i := 0; i < 14; i++ {
			s = append(s, words[(line*5+i)%len(words)])
		}
		d.Dot = fixed.P(40, y)
		d.DrawString(strings.Join(s, " "))
	}
	big := image.NewGray(image.Rect(0, 0, small.Bounds().Dx()*scale, small.Bounds().Dy()*scale))
	for y := 0; y < big.Bounds().Dy(); y++ {
		for x := 0; x < big.Bounds().Dx(); x++ {
			big.SetGray(x, y, color.Gray{Y: small.GrayAt(x/scale, y/scale).Y})
		}
	}
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriter(f)
	if err := png.Encode(w, big); err != nil {
		t.Fatal(err)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// jailJob is a job that makes an engine run.
type jailJob struct {
	engine string
	tool   string
	params map[string]string
	path   string
	// id of the job in flight, tries made, and what became of them.
	id       string
	tries    int
	outcomes []string
}

// TestEnginesCannotSeeTheDataDirectory catches each engine running in
// its jail (gs for compress-pdf, pdftoppm for pdf-to-png at 300 dpi on 40
// pages, tesseract under OCRmyPDF for ocr-pdf, soffice for word-to-pdf,
// Chromium for html-to-pdf of a page that busy-loops, and the PDF helper,
// this binary as `engine pdf`) and checks, from /proc, every process of
// every jail seen meanwhile: it runs as uid 65534 (when the server is
// root) in namespaces of its own, and its file system (/proc/PID/root)
// holds its own directory (the job's, for gs, pdftoppm and tesseract),
// bound at /job, but not the server's data directory, whose path does
// not exist there at all, the test's other directories, /root, /home or
// host files such as /etc/hostname. Jobs are canceled once their engine
// was seen.
func TestEnginesCannotSeeTheDataDirectory(t *testing.T) {
	// Its server is a child process, whose jailed processes alone it
	// inspects (jailedProcs), so a parallel test's are not seen.
	t.Parallel()
	if testing.Short() {
		t.Skip("runs every engine")
	}
	dataDir, inputs := t.TempDir(), t.TempDir()
	s := startChild(t, dataDir, "--workers", "6")
	c := s.client(s.DevKey)
	needed := map[string]bool{"compress-pdf": true, "pdf-to-png": true, "ocr-pdf": true, "word-to-pdf": true, "html-to-pdf": true}
	var unavailable []string
	for _, x := range getJSON(t, s.URL+"/v1/tools", 200)["tools"].([]any) {
		m := x.(map[string]any)
		if slug, _ := m["slug"].(string); needed[slug] && m["available"] != true {
			unavailable = append(unavailable, slug)
		}
	}
	engs, _ := getJSON(t, s.URL+"/readyz", 200)["engines"].(map[string]any)
	if sb, _ := engs["sandbox"].(map[string]any); sb["available"] != true || strings.HasPrefix(fmt.Sprint(sb["version"]), "UNSAFE") {
		unavailable = append(unavailable, fmt.Sprintf("the jail (%v)", sb["version"]))
	}
	if len(unavailable) > 0 {
		why := "not available on this machine: " + strings.Join(unavailable, ", ")
		toolstest.Lacking(t, "%s", why)
	}

	pdf := filepath.Join(inputs, "curves.pdf")
	writeVectorPDF(t, pdf, 40, 4000)
	scan := filepath.Join(inputs, "scan.png")
	writeTextScan(t, scan)
	rtf := filepath.Join(inputs, "letter.rtf")
	html := filepath.Join(inputs, "busy.html")
	for path, body := range map[string]string{
		rtf:  `{\rtf1\ansi A letter for the jail.\par}`,
		html: `<!doctype html><title>busy</title><p>busy</p><script>for (const end = Date.now() + 3000; Date.now() < end;) {}</script>`,
	} {
		if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	jobs := []*jailJob{
		{engine: "gs", tool: "compress-pdf", path: pdf},
		{engine: "pdftoppm", tool: "pdf-to-png", path: pdf, params: map[string]string{"dpi": "300"}},
		{engine: "tesseract", tool: "ocr-pdf", path: scan, params: map[string]string{"lang": "eng"}},
		{engine: "soffice", tool: "word-to-pdf", path: rtf},
		{engine: "chromium", tool: "html-to-pdf", path: html},
	}
	// The PDF helper starts with the first PDF job (its stream check)
	// and stays warm, as LibreOffice and Chromium do.
	engines := []string{"gs", "pdftoppm", "tesseract", "soffice", "chromium", "helper"}

	ctx := context.Background()
	submit := func(j *jailJob) {
		f, err := os.Open(j.path)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		got, _, err := c.Process(ctx, j.tool, []client.File{{Name: filepath.Base(j.path), Body: f}}, client.ProcessOptions{Params: j.params, Prefer: "respond-async"})
		if err != nil {
			t.Fatalf("%s: %v", j.tool, err)
		}
		j.id = got.JobID
		j.tries++
	}
	for _, j := range jobs {
		submit(j)
	}
	// At the end, cancel what still runs and let it stop.
	t.Cleanup(func() {
		for _, j := range jobs {
			if j.id == "" {
				continue
			}
			c.CancelJob(ctx, j.id)
			wctx, cancel := context.WithTimeout(ctx, time.Minute)
			if got, err := c.Wait(wctx, j.id, 200*time.Millisecond); err != nil {
				t.Errorf("%s: job %s did not end after its cancel: %v", j.tool, j.id, err)
			} else {
				t.Logf("%s: job ended %s", j.tool, got.Status)
			}
			cancel()
		}
	})

	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	if real, err := filepath.EvalSymlinks(self); err == nil {
		self = real
	}
	cwd, _ := os.Getwd()
	v := jailView{dataDir: dataDir, helperExe: self}
	// The PDF helper's program is bound alone: the directory it is in
	// shows, but nothing else of it.
	siblings, _ := os.ReadDir(filepath.Dir(self))
	for i, e := range siblings {
		if e.Name() != filepath.Base(self) && i < 20 {
			v.hidden = append(v.hidden, filepath.Join(filepath.Dir(self), e.Name()))
		}
	}
	for _, h := range []string{inputs, cwd, "/root", "/home", "/etc/hostname", "/etc/passwd", "/etc/shadow", "/usr/share/pixmaps", "/usr/share/doc", "/var/lib/dpkg"} {
		if _, err := os.Lstat(h); err == nil {
			v.hidden = append(v.hidden, h)
		}
	}
	t.Logf("data directory %s; hidden: %v", dataDir, v.hidden)

	seen := map[string]bool{}
	programs := map[string]bool{} // every program seen in a jail
	errorsOf := map[string]int{}  // errors reported, by program
	start := time.Now()
	// The jails are sampled every 20 ms for two minutes at most.
	watch, stop := context.WithTimeout(ctx, 2*time.Minute)
	defer stop()
	round := 0
	poll.Sample(watch, 20*time.Millisecond, func() bool {
		defer func() { round++ }()
		for _, p := range jailedProcs(s.cmd.Process.Pid) {
			problems, own, ok := v.inspect(p)
			if !ok {
				continue
			}
			eng := v.engineOf(p)
			prog := filepath.Base(p.exe)
			programs[prog] = true
			for _, pr := range problems {
				if errorsOf[prog]++; errorsOf[prog] <= 3 {
					t.Errorf("%s (pid %d, %s, engine %q): %s", prog, p.pid, strings.Join(p.args, " "), eng, pr)
				}
			}
			if eng == "" || seen[eng] {
				continue
			}
			seen[eng] = true
			t.Logf("%s seen after %s: pid %d, %s, own directory %s", eng, time.Since(start).Round(time.Millisecond), p.pid, p.exe, own)
			for _, j := range jobs {
				if j.engine == eng && j.id != "" {
					c.CancelJob(ctx, j.id)
				}
			}
		}
		// Every half second: a job that ended before its engine was seen
		// is submitted again (up to three times).
		if round%25 == 0 {
			for _, j := range jobs {
				if seen[j.engine] || j.id == "" {
					continue
				}
				got, err := c.Job(ctx, j.id)
				if err != nil || !got.Finished() {
					continue
				}
				outcome := string(got.Status)
				if got.Error != nil {
					outcome += " (" + string(got.Error.Code) + ": " + got.Error.Message + ")"
				}
				j.outcomes = append(j.outcomes, outcome)
				j.id = ""
				if j.tries < 3 {
					submit(j)
				}
			}
		}
		return len(seen) == len(engines)
	})
	for _, eng := range engines {
		if seen[eng] {
			continue
		}
		why := "the PDF helper starts with any PDF job"
		for _, j := range jobs {
			if j.engine == eng {
				why = fmt.Sprintf("its job (%s) was tried %d times: %v", j.tool, j.tries, j.outcomes)
			}
		}
		progs := slices.Sorted(maps.Keys(programs))
		t.Errorf("engine %s was never seen running in a jail within %s; %s; programs seen in jails: %v", eng, time.Since(start).Round(time.Second), why, progs)
	}
	t.Logf("programs seen in jails: %v", slices.Sorted(maps.Keys(programs)))
}
