package office

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"time"

	docmill "github.com/docmill/docmill"
	"github.com/docmill/docmill/sandbox"
	"github.com/docmill/docmill/tools/filecopy"
)

// worker is one warm LibreOffice: a headless soffice with a profile of its
// own, and one long-lived python3 converter that talks to it over a UNO
// pipe and takes jobs as JSON lines on its standard input. Either process
// dying makes the worker broken; the pool then kills both and starts a
// new pair.
type worker struct {
	id      int
	gen     int // how many times the worker has been started
	dir     string
	tmp     string // the /tmp of its soffice and converter
	soffice *sandbox.Process
	conv    *sandbox.Process
	replies chan reply
	pipe    string
	uses    int
	broken  bool
}

// job is one line the converter reads (see converter.py).
type job struct {
	In      string `json:"in"`
	Out     string `json:"out"`
	Export  string `json:"export"`
	Filter  string `json:"filter,omitempty"`
	Options string `json:"options,omitempty"`
	// ExportOptions are the export filter's options (CSV's separator,
	// text's encoding).
	ExportOptions string `json:"export_options,omitempty"`
	// PageRange, for a PDF export, limits it to those pages ("1").
	PageRange string `json:"page_range,omitempty"`
	// MaxCells, when above 0, refuses a spreadsheet whose sheets span
	// more cells, each from A1 to the end of its used area
	// (*cellsError): a CSV export writes a separator for each, and a PDF
	// export lays each out. ActiveSheet counts the sheet a CSV export
	// saves only, instead of all.
	MaxCells    int64 `json:"max_cells,omitempty"`
	ActiveSheet bool  `json:"active_sheet,omitempty"`
	// Fresh converts in a soffice started for this job (a cold one:
	// RunInput.FreshEngines); it is the pool's, never the converter's.
	Fresh bool `json:"-"`
}

// reply is one line the converter writes.
type reply struct {
	Ready bool   `json:"ready"`
	OK    bool   `json:"ok"`
	Kind  string `json:"kind"` // load, store, limit or bridge when !OK
	Msg   string `json:"msg"`
	// Rows and Cols are the largest sheet's span, for kind limit
	// (job.MaxCells).
	Rows int64 `json:"rows"`
	Cols int64 `json:"cols"`
}

// errBridge marks a worker whose soffice or converter died or hung: an
// engine failure, not the document's fault.
var errBridge = errors.New("office: LibreOffice worker failed")

// sofficeExitWait bounds the wait for soffice's exit after its converter
// lost it (both end together: the bridge closes when soffice exits, after
// its crash handler printed a backtrace).
const sofficeExitWait = 5 * time.Second

// start starts the worker's soffice and converter and waits (within
// startTimeout) for the converter to report that it reached soffice.
// The profile is made fresh each time (a private copy of the pool's clean
// template: profile.go), with macros disabled, so that no state of an
// earlier document survives a restart.
func (w *worker) start(p *Pool) error {
	w.gen++
	w.uses, w.broken = 0, false
	profile := filepath.Join(w.dir, "profile")
	if err := p.newProfile(profile); err != nil {
		return err
	}
	w.tmp = filepath.Join(p.base, fmt.Sprintf("tmp-%d", w.id))
	os.RemoveAll(w.tmp)
	if err := os.Mkdir(w.tmp, 0o700); err != nil {
		return err
	}
	// Both processes see only the system (read-only), the worker's own
	// directory (profile, scratch, the staged job) and a /tmp of the
	// worker's: a document cannot pull in any other file (a linked image,
	// an RTF INCLUDEPICTURE) because no other file exists for soffice.
	// The converter is copied into the worker's directory, so that it is
	// seen at a path of the jail's (/job), not at one inside the data
	// directory.
	script := filepath.Join(w.dir, "converter.py")
	if err := os.WriteFile(script, converterPy, 0o644); err != nil {
		return err
	}
	view := sandbox.View{Tmp: w.tmp}
	// The pipe is a unix socket file LibreOffice makes in /tmp
	// (OSL_PIPE_<uid>_<name>), the shared w.tmp; filesystem sockets are
	// not scoped by the network namespace, so it works with no network.
	pipe := fmt.Sprintf("docmill_%d_%d_%d_%d", os.Getpid(), p.seq, w.id, w.gen)
	so, err := p.soffice.StartIn(sandbox.Cmd{
		Dir:    w.dir,
		Stdin:  emptyReader{},
		Stdout: io.Discard,
		Args: []string{"--headless", "--invisible", "--nologo", "--norestore", "--nodefault",
			"--nolockcheck", "--nofirststartwizard", "-env:UserInstallation=file://" + profile,
			"--accept=pipe,name=" + pipe + ";urp;StarOffice.ComponentContext"},
	}, view)
	if err != nil {
		return err
	}
	p.starts.Add(1)
	conv, err := p.python.StartIn(sandbox.Cmd{
		Dir:  w.dir,
		Args: []string{script, pipe, strconv.Itoa(int(startTimeout / time.Second))},
	}, view)
	if err != nil {
		so.Kill()
		return err
	}
	w.soffice, w.conv, w.pipe = so, conv, pipe
	w.replies = make(chan reply, 1)
	go readReplies(conv, w.replies)
	select {
	case r, ok := <-w.replies:
		if ok && r.Ready {
			return nil
		}
		w.kill()
		return fmt.Errorf("office: worker did not start: %s; soffice: %s", r.Msg, so.Stderr())
	case <-time.After(startTimeout + 5*time.Second):
		w.kill()
		return fmt.Errorf("office: worker did not start within %s", startTimeout)
	}
}

// readReplies passes the converter's answers on until it exits.
func readReplies(conv *sandbox.Process, out chan<- reply) {
	defer close(out)
	sc := bufio.NewScanner(conv.Stdout())
	for sc.Scan() {
		var r reply
		if json.Unmarshal(sc.Bytes(), &r) != nil {
			continue
		}
		out <- r
	}
}

// convert runs one job. A load failure is the document's fault
// (errLoad); a dead process, a garbled answer or ctx ending marks the
// worker broken, so the pool replaces it.
func (w *worker) convert(ctx context.Context, j job, jail *sandbox.Jail) error {
	w.uses++
	// soffice cannot see the job's directory: the document goes to a
	// directory inside the worker's for the conversion, and the PDF comes
	// back.
	stage := filepath.Join(w.dir, "job")
	os.RemoveAll(stage)
	if err := os.Mkdir(stage, 0o700); err != nil {
		return err
	}
	defer os.RemoveAll(stage)
	in, out := filepath.Join(stage, filepath.Base(j.In)), filepath.Join(stage, filepath.Base(j.Out))
	if err := filecopy.Link(j.In, in); err != nil {
		return err
	}
	if err := jail.Grant(stage); err != nil {
		return err
	}
	paths := w.conv.Paths()
	// The engine's memory for this job: soffice's and its converter's
	// peaks while it converts.
	w.soffice.ResetPeakRSS()
	w.conv.ResetPeakRSS()
	defer func() { docmill.NoteEnginePeak(ctx, w.soffice.PeakRSS()+w.conv.PeakRSS()) }()
	if err := w.run(ctx, job{In: paths.InJail(in), Out: paths.InJail(out), Export: j.Export, Filter: j.Filter, Options: j.Options, ExportOptions: j.ExportOptions, PageRange: j.PageRange, MaxCells: j.MaxCells, ActiveSheet: j.ActiveSheet}); err != nil {
		return err
	}
	if err := os.Rename(out, j.Out); err != nil {
		return filecopy.Copy(out, j.Out)
	}
	return nil
}

// run sends j to the converter and waits for its answer.
func (w *worker) run(ctx context.Context, j job) error {
	line, _ := json.Marshal(j)
	if _, err := w.conv.Stdin().Write(append(line, '\n')); err != nil {
		w.broken = true
		return fmt.Errorf("%w: write job: %v", errBridge, err)
	}
	select {
	case r, ok := <-w.replies:
		switch {
		case !ok || r.Kind == "bridge":
			return w.died("converter: " + r.Msg)
		case r.OK:
			return nil
		case w.exitsSoon():
			// A refusal that came with soffice's death is the death: a
			// crash while loading must not read as a damaged document.
			return w.died("soffice exited: " + r.Msg)
		case r.Kind == "load":
			return &loadError{msg: r.Msg}
		case r.Kind == "limit":
			return &cellsError{rows: r.Rows, cols: r.Cols}
		default:
			return fmt.Errorf("office: export failed: %s", r.Msg)
		}
	case <-w.soffice.Done():
		return w.died("soffice exited")
	case <-ctx.Done():
		// The job may still be running inside soffice: only a new
		// process is known to be free of it.
		w.broken = true
		return ctx.Err()
	}
}

// refusalGrace is how long a refusal waits for soffice's exit before it
// is taken for the document's: a crash while loading can answer before
// the process is gone (the bridge's "illegal object" arrives first on a
// loaded machine). A damaged document pays it once.
const refusalGrace = 300 * time.Millisecond

// exitsSoon reports whether soffice ends within refusalGrace.
func (w *worker) exitsSoon() bool {
	select {
	case <-w.soffice.Done():
		return true
	case <-time.After(refusalGrace):
		return !w.soffice.Running()
	}
}

// died marks the worker broken and returns the error of its soffice or
// converter failing: errBridge, with soffice's exit (a *sandbox.ExitError,
// which tells a crash's signal) when soffice ended within sofficeExitWait.
func (w *worker) died(what string) error {
	w.broken = true
	select {
	case <-w.soffice.Done():
	case <-time.After(sofficeExitWait):
	}
	if x := w.soffice.Exit(); x != nil {
		return fmt.Errorf("%w: %s: %w", errBridge, what, x)
	}
	return fmt.Errorf("%w: %s; soffice: %s", errBridge, what, w.soffice.Stderr())
}

// alive reports whether both processes still run.
func (w *worker) alive() bool {
	return w.soffice != nil && !w.broken && w.soffice.Running() && w.conv.Running()
}

// kill ends both processes (and everything soffice started).
func (w *worker) kill() {
	if w.conv != nil {
		w.conv.Kill()
	}
	if w.soffice != nil {
		w.soffice.Kill()
	}
	if w.pipe != "" {
		// A killed soffice leaves its socket file behind.
		os.Remove(filepath.Join(w.tmp, fmt.Sprintf("OSL_PIPE_%d_%s", os.Getuid(), w.pipe)))
	}
	w.soffice, w.conv, w.pipe = nil, nil, ""
}

// loadError is LibreOffice refusing to open a document.
type loadError struct{ msg string }

func (e *loadError) Error() string { return "office: load failed: " + e.msg }

// cellsError is a spreadsheet spanning more cells than job.MaxCells; rows
// and cols are its largest sheet's.
type cellsError struct{ rows, cols int64 }

func (e *cellsError) Error() string {
	return fmt.Sprintf("office: the largest sheet spans %d rows by %d columns", e.rows, e.cols)
}

type emptyReader struct{}

func (emptyReader) Read([]byte) (int, error) { return 0, io.EOF }
