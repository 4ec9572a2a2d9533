package sandbox

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/docmill/docmill"
	"github.com/docmill/docmill/tools/filecopy"
)

// Helpers is a warm pool of helper processes: docmill's own binary
// re-executed as a hidden engine subcommand that runs tools parsing
// documents in Go (pdfcpu), so that no user document is parsed inside the
// server. Each helper is started through its Engine's jail like any
// engine, serves one job at a time over JSON lines on its standard input
// and output (ServeHelper is the other end), and sees only a directory of
// its own: a job's inputs are hard-linked into it for the run and the
// output is moved back. A helper that dies, overruns or hits its memory
// cap is replaced; the job fails cleanly and the server is untouched.
type Helpers struct {
	engine *Engine
	args   []string
	opts   HelperOptions
	base   string
	idle   chan *helper
	closed chan struct{}
	close  sync.Once
	starts atomic.Int64
}

// Usage is the pool's size and how many helpers are working now.
func (h *Helpers) Usage() (size, busy int) { return h.opts.Size, h.opts.Size - len(h.idle) }

// HelperOptions size the pool.
type HelperOptions struct {
	// Size is how many helpers run at once (default: the engine's
	// slots).
	Size int
	// MaxUses replaces a helper after this many jobs (default 500),
	// bounding whatever a long-lived Go heap keeps.
	MaxUses int
	// Dir is where the pool makes its directory (default os.TempDir).
	// Inputs are hard-linked into a helper's directory when Dir is on the
	// jobs' file system, and copied otherwise.
	Dir string
}

// helper is one helper process and its directory.
type helper struct {
	dir  string
	proc *Process
	out  *json.Decoder
	uses int
}

// helperRequest is one line a helper reads.
type helperRequest struct {
	Tool    string              `json:"tool"`
	Params  docmill.Params      `json:"params"`
	Files   []docmill.LocalFile `json:"files"`
	WorkDir string              `json:"work_dir"`
	Limits  docmill.Limits      `json:"limits"`
}

// helperReply is one line a helper writes.
type helperReply struct {
	Output *docmill.RunOutput `json:"output,omitempty"`
	Error  *helperError       `json:"error,omitempty"`
}

type helperError struct {
	Code    docmill.Code         `json:"code"`
	Message string               `json:"message"`
	Fields  []docmill.FieldError `json:"fields,omitempty"`
	// Cause is the internal cause, for the server's log only.
	Cause string `json:"cause,omitempty"`
	// Unreadable says the cause is docmill.ErrUnreadable.
	Unreadable bool `json:"unreadable,omitempty"`
}

// SelfEngine is docmill's own executable as an engine, for Helpers: found
// once, confined by opts' jail like any other engine.
func SelfEngine(name string, opts Options) *Engine {
	e := Find(name, nil, opts)
	if exe, err := os.Executable(); err == nil {
		if real, err := filepath.EvalSymlinks(exe); err == nil {
			exe = real
		}
		e.Path, e.jailPath = exe, "/docmill"
		e.version = func() string { return "docmill helper" }
	}
	return e
}

// NewHelpers makes a pool of helpers running e with args (the hidden
// subcommand). Helpers start on first use.
func NewHelpers(e *Engine, args []string, o HelperOptions) (*Helpers, error) {
	if o.Size <= 0 {
		o.Size = e.Slots()
	}
	if o.MaxUses <= 0 {
		o.MaxUses = 500
	}
	h := &Helpers{engine: e, args: args, opts: o, idle: make(chan *helper, o.Size), closed: make(chan struct{})}
	if o.Dir != "" {
		if err := os.MkdirAll(o.Dir, 0o700); err != nil {
			return nil, err
		}
	}
	d, err := os.MkdirTemp(o.Dir, "docmill-helpers-")
	if err != nil {
		return nil, err
	}
	h.base = d
	for i := 0; i < o.Size; i++ {
		dir := filepath.Join(h.base, "helper-"+strconv.Itoa(i))
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return nil, err
		}
		h.idle <- &helper{dir: dir}
	}
	return h, nil
}

// Available reports whether helpers can run here.
func (h *Helpers) Available() bool { return h.engine.Available() }

// Status describes the helper engine and its jail.
func (h *Helpers) Status() []docmill.EngineStatus {
	return []docmill.EngineStatus{h.engine.Status(), h.engine.Jail().Status()}
}

// Starts is how many helper processes the pool has started.
func (h *Helpers) Starts() int64 { return h.starts.Load() }

// Tool returns a copy of t whose Run runs t in a helper: the helper's
// registry must hold a tool with t's slug (the same declaration, built in
// the helper process).
func (h *Helpers) Tool(t *docmill.Tool) *docmill.Tool {
	c := *t
	c.Available = h.Available
	c.Engines = h.Status
	c.Run = func(ctx context.Context, in *docmill.RunInput) (*docmill.RunOutput, error) {
		return h.Run(ctx, t.Slug, in)
	}
	return &c
}

// Step returns s's Run run in a helper: the helper must serve a step
// named s.Name (the same declaration, built in the helper process).
func (h *Helpers) Step(s *docmill.EngineStep) docmill.RunFunc {
	return func(ctx context.Context, in *docmill.RunInput) (*docmill.RunOutput, error) {
		return h.Run(ctx, s.Name, in)
	}
}

// Run runs the tool or step named slug on in in a helper and returns its output, moved
// into in.WorkDir.
func (h *Helpers) Run(ctx context.Context, slug string, in *docmill.RunInput) (*docmill.RunOutput, error) {
	if !h.Available() {
		e := docmill.Errorf(docmill.CodeEngineUnavailable, "This tool's engine is not available on this server; please retry later.")
		e.Err = errors.New(h.engine.Jail().Why())
		return nil, e
	}
	w, err := h.acquire(ctx)
	if err != nil {
		return nil, err
	}
	out, err := h.call(ctx, w, slug, in)
	h.release(w)
	return out, err
}

func (h *Helpers) acquire(ctx context.Context) (*helper, error) {
	select {
	case w := <-h.idle:
		select {
		case <-h.closed:
			h.idle <- w
			return nil, docmill.Errorf(docmill.CodeEngineUnavailable, "The server is shutting down; please retry.")
		default:
		}
		if w.alive() {
			return w, nil
		}
		if err := h.start(w); err != nil {
			h.idle <- w
			return nil, docmill.Internal(err)
		}
		return w, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-h.closed:
		return nil, docmill.Errorf(docmill.CodeEngineUnavailable, "The server is shutting down; please retry.")
	}
}

// release gives w back, killed first when it is spent or broken, so the
// next job starts a fresh one.
func (h *Helpers) release(w *helper) {
	if w.proc != nil && w.uses >= h.opts.MaxUses {
		w.kill()
	}
	h.idle <- w
}

func (w *helper) alive() bool {
	return w.proc != nil && w.proc.Running()
}

func (w *helper) kill() {
	if w.proc != nil {
		w.proc.Kill()
		w.proc, w.out = nil, nil
	}
}

// start starts w's process.
//
// The helper enforces the engine's memory cap itself (watchMemory, told
// the cap in helperMemoryEnv), and GOMEMLIMIT makes its collector work
// harder as it nears it. The kernel's limit is set a quarter higher, as
// the net under a helper whose heap outgrows the watch: the Go runtime,
// refused memory at the kernel's limit, may die in its collector, well
// below the limit and without saying why.
//
// GOGC is twice Go's default: a helper's live heap between jobs is a few
// MB, so at the default its collector's smallest target (4 MB) made it
// collect during nearly every small job (each of pdfcpu's compressed
// streams allocates a deflate writer of about a megabyte). GOMEMLIMIT,
// not GOGC, bounds what a large document may take.
func (h *Helpers) start(w *helper) error {
	w.kill()
	w.uses = 0
	if err := h.freshStage(w); err != nil {
		return err
	}
	c := Cmd{Dir: w.dir, Args: h.args, Env: []string{"GOTRACEBACK=none", "GOGC=200"}}
	if m := h.engine.memoryCap(); m > 0 {
		c.Env = append(c.Env, "GOMEMLIMIT="+strconv.FormatInt(m/10*9, 10), helperMemoryEnv+"="+strconv.FormatInt(m, 10))
		l := h.engine.opts.Limits
		l.Memory = m + m/4
		c.Limits = &l
	}
	p, err := h.engine.Start(c)
	if err != nil {
		return err
	}
	h.starts.Add(1)
	w.proc = p
	w.out = json.NewDecoder(p.Stdout())
	w.out.UseNumber()
	return nil
}

// stage is the directory of w where a job's inputs are put for its helper
// process, and where the helper writes the job's output.
func (w *helper) stage() string { return filepath.Join(w.dir, "job") }

// freshStage makes w's stage anew, empty and the jail's, for a new
// process: one process's stage is made once and emptied after each job,
// since making and removing a directory per job cost a sync call a few
// hundred microseconds on a busy disk.
func (h *Helpers) freshStage(w *helper) error {
	if err := os.RemoveAll(w.stage()); err != nil {
		return err
	}
	if err := os.Mkdir(w.stage(), 0o700); err != nil {
		return err
	}
	return h.engine.Jail().grant(w.stage())
}

// call runs one job on w. Whatever the job leaves in w's stage is
// removed after it; a stage that cannot be emptied ends w's process, so
// that the next job starts a new one in a fresh stage.
func (h *Helpers) call(ctx context.Context, w *helper, slug string, in *docmill.RunInput) (*docmill.RunOutput, error) {
	w.uses++
	stage := w.stage()
	defer func() {
		if emptyDir(stage) != nil {
			w.kill()
		}
	}()
	paths := w.proc.Paths()
	req := helperRequest{Tool: slug, Params: in.Params, WorkDir: paths.InJail(stage), Limits: in.Limits}
	for _, f := range in.Files {
		staged := filepath.Join(stage, filepath.Base(f.Path))
		if err := filecopy.Link(f.Path, staged); err != nil {
			return nil, docmill.Internal(err)
		}
		if err := h.engine.Jail().grant(staged); err != nil {
			return nil, docmill.Internal(err)
		}
		f.Path = paths.InJail(staged)
		req.Files = append(req.Files, f)
	}
	line, err := json.Marshal(req)
	if err != nil {
		return nil, docmill.Internal(err)
	}
	w.proc.ResetPeakRSS()
	if _, err := w.proc.Stdin().Write(append(line, '\n')); err != nil {
		return nil, h.died(w, err)
	}
	replies := make(chan helperReply, 1)
	failed := make(chan error, 1)
	go func() {
		var r helperReply
		if err := w.out.Decode(&r); err != nil {
			failed <- err
			return
		}
		replies <- r
	}()
	select {
	case r := <-replies:
		docmill.NoteEnginePeak(ctx, w.proc.PeakRSS())
		if r.Output != nil {
			r.Output.Path = paths.OnHost(r.Output.Path)
		}
		return finish(r, stage, in.WorkDir)
	case err := <-failed:
		return nil, h.died(w, err)
	case <-ctx.Done():
		// The job may still run in the helper: only a new process is
		// known to be free of it.
		w.kill()
		return nil, ctx.Err()
	}
}

// died reports a helper that stopped answering: it is replaced, and the
// job fails as the input's fault, since only the document it was working
// on can make our own code die (a memory cap, a stack exhausted by
// nesting). Its standard error goes to the log only.
//
// A helper killed by a signal was killed from outside (the kernel's OOM
// killer, an operator): Go code that crashes exits with status 2. That is
// an engine failure, retried as internal, not the input's fault.
func (h *Helpers) died(w *helper, cause error) error {
	p := w.proc
	// Its own exit status first: killing its group before the jail's
	// launcher has reported it would make every death look like a kill.
	select {
	case <-p.Done():
	case <-time.After(2 * time.Second):
	}
	w.kill()
	stderr := p.Stderr()
	err := fmt.Errorf("sandbox: helper died: %v: %v: %s", cause, p.Err(), stderr)
	if outOfMemory(stderr) {
		e := docmill.LimitExceeded(fmt.Sprintf("Processing the document needed more than %d MB of memory", h.engine.memoryCap()>>20))
		e.Err = err
		return e
	}
	const damaged = "The document could not be processed: it is damaged or uses a structure this tool does not support."
	if x := exitError(h.engine.Name, p.Err(), stderr); x != nil && x.KilledBy() != "" {
		return Classify(x, Causes{Engine: h.engine.Name, Refused: damaged})
	}
	return docmill.InvalidDocument(fmt.Errorf("%w: %w", docmill.ErrUnreadable, err), damaged)
}

// finish turns a reply into the tool's result, its output moved from the
// helper's stage into workDir.
func finish(r helperReply, stage, workDir string) (*docmill.RunOutput, error) {
	if r.Error != nil {
		e := &docmill.Error{Code: r.Error.Code, Message: r.Error.Message, Fields: r.Error.Fields}
		if r.Error.Cause != "" {
			e.Err = errors.New(r.Error.Cause)
		}
		if r.Error.Unreadable {
			e.Err = errors.Join(docmill.ErrUnreadable, e.Err)
		}
		return nil, e
	}
	out := r.Output
	if out == nil || !filepath.IsLocal(mustRel(stage, out.Path)) {
		return nil, docmill.Internal(errors.New("sandbox: helper replied with no output in its stage"))
	}
	dst := filepath.Join(workDir, "helper-"+filepath.Base(out.Path))
	if err := os.Rename(out.Path, dst); err != nil {
		if err := filecopy.Copy(out.Path, dst); err != nil {
			return nil, docmill.Internal(err)
		}
	}
	out.Path = dst
	return out, nil
}

// emptyDir removes everything in dir, keeping dir.
func emptyDir(dir string) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if err := os.RemoveAll(filepath.Join(dir, e.Name())); err != nil {
			return err
		}
	}
	return nil
}

func mustRel(base, p string) string {
	r, err := filepath.Rel(base, p)
	if err != nil {
		return ".."
	}
	return r
}

// Close kills every helper and removes the pool's directory.
func (h *Helpers) Close() {
	h.close.Do(func() {
		close(h.closed)
		for i := 0; i < h.opts.Size; i++ {
			w := <-h.idle
			w.kill()
		}
		os.RemoveAll(h.base)
	})
}

// outOfMemory reports whether a Go helper's last words say it ran out of
// memory: the heap could not grow, or no stack could be had for a new
// thread, under the jail's memory cap.
func outOfMemory(stderr string) bool {
	for _, s := range []string{"out of memory", "cannot allocate memory", "failed to create new OS thread", "newosproc"} {
		if strings.Contains(stderr, s) {
			return true
		}
	}
	return false
}
