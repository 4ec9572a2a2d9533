// Package office provides word-to-pdf, excel-to-pdf and powerpoint-to-pdf:
// office documents converted to PDF by a warm pool of headless LibreOffice
// processes, so that no conversion pays LibreOffice's start-up.
//
// Each worker of the pool is a soffice with a profile directory of its own
// (macros disabled, links never updated) and one long-lived python3
// converter that talks to it over a UNO pipe (see converter.py). Both run
// through the sandbox: their own process group, an empty network
// namespace, a cleared environment, and a file system view (bubblewrap)
// holding only the system read-only and the worker's own directory, where
// each document is staged for its conversion; without bubblewrap the pool
// is not available. Documents are opened hidden, read-only,
// with macro execution NEVER_EXECUTE and UpdateDocMode NO_UPDATE. A worker
// is replaced after Options.MaxConversions conversions, after any crash,
// and after any conversion that overran its deadline. A soffice that dies
// by a signal while converting is reported as a docmill.EngineFailure;
// the job runner's crash rule then runs the job again with
// RunInput.FreshEngines, and the document goes to a soffice started for
// it alone (a cold one) instead of a warm worker.
package office

import (
	_ "embed"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	docmill "github.com/docmill/docmill"
	"github.com/docmill/docmill/sandbox"
)

// DataPaths are the read-only system paths this package's engines need
// beyond the sandbox jail's base view (programs, libraries, fonts): their
// own data files. Paths missing on a machine are skipped.
var DataPaths = []string{"/etc/libreoffice", "/usr/share/libreoffice", "/usr/share/liblangtag", "/usr/share/hyphen", "/usr/share/mythes", "/usr/share/hunspell", "/etc/python3", "/etc/python3.11", "/etc/python3.12", "/etc/python3.13", "/usr/share/python3"}

//go:embed converter.py
var converterPy []byte

//go:embed profile.xcu
var profileXCU []byte

const (
	engineName = "libreoffice"
	// startTimeout bounds the start of one worker (a fresh profile takes
	// LibreOffice a second or two).
	startTimeout = 60 * time.Second
)

// Options size and bound the pool.
type Options struct {
	// Workers is how many soffice processes run (default: the number of
	// CPUs). Each holds some 100-200 MB.
	Workers int
	// MaxConversions restarts a worker after this many conversions
	// (default 200), bounding leaks and state LibreOffice accumulates.
	MaxConversions int
	// Timeout is the deadline of one conversion, not counting the wait
	// for a free worker (default 2 minutes).
	Timeout time.Duration
	// Dir is where the workers' profiles live (default: a new directory
	// under os.TempDir, removed by Close).
	Dir string
	// Lazy starts each worker on its first conversion instead of at New,
	// so a node that never converts (an API node, a test server) never
	// pays LibreOffice's start-up.
	Lazy bool
	// Limits bound what one job may cost: OOXML and ODF documents, which
	// are zip archives, are checked against their archive fields before
	// LibreOffice unpacks them, and a spreadsheet exported to CSV or PDF
	// against SheetCells. A zero field means its default.
	Limits docmill.Limits
	// SelectPages counts the pages of the exported PDF and keeps those the
	// "pages" param selects (pdfops.SelectPagesStep, run in the PDF
	// helper so that the PDF is not parsed in the server). Nil: no page
	// selection, and no page count.
	SelectPages docmill.RunFunc
}

// Pool is the warm LibreOffice pool. Its tools share it.
type Pool struct {
	opts    Options
	soffice *sandbox.Engine
	python  *sandbox.Engine
	base    string
	ownBase bool
	seq     int64
	idle    chan *worker
	closed  chan struct{}
	close   sync.Once
	ok      bool
	whyNot  string
	starts  atomic.Int64
	tmpl    profileTemplate
}

var poolSeq atomic.Int64

// New starts the pool: soffice and python3 are the engines found with
// sandbox.Find ("soffice", "python3"); python3 must be the system one with
// the uno module (Debian's python3-uno). When either is missing the pool
// still returns, not available: its tools stay in the catalogue and answer
// engine_unavailable. Workers start in the background; a job waits for
// the first free one.
func New(soffice, python *sandbox.Engine, opts Options) (*Pool, error) {
	if opts.Workers <= 0 {
		opts.Workers = runtime.NumCPU()
	}
	if opts.MaxConversions <= 0 {
		opts.MaxConversions = 200
	}
	if opts.Timeout <= 0 {
		opts.Timeout = 2 * time.Minute
	}
	opts.Limits = opts.Limits.WithDefaults()
	p := &Pool{opts: opts, soffice: soffice, python: python, seq: poolSeq.Add(1),
		idle: make(chan *worker, opts.Workers), closed: make(chan struct{})}
	if p.whyNot = checkEngines(soffice, python); p.whyNot != "" {
		return p, nil
	}
	if err := p.makeBase(); err != nil {
		return nil, err
	}
	p.ok = true
	for i := 0; i < opts.Workers; i++ {
		w := &worker{id: i, dir: fmtDir(p.base, i)}
		if err := os.MkdirAll(w.dir, 0o700); err != nil {
			p.Close()
			return nil, err
		}
		if opts.Lazy {
			p.idle <- w // started by acquire when first taken
			continue
		}
		go p.restart(w)
	}
	return p, nil
}

func fmtDir(base string, i int) string { return fmt.Sprintf("%s/worker-%d", base, i) }

// checkEngines says why the pool cannot run, or "".
func checkEngines(soffice, python *sandbox.Engine) string {
	if !soffice.Available() {
		return "soffice not found"
	}
	if !python.Available() {
		return "python3 not found"
	}
	if exec.Command(python.Path, "-c", "import uno").Run() != nil {
		return "python3 has no uno module (python3-uno)"
	}
	return ""
}

func (p *Pool) makeBase() error {
	p.base = p.opts.Dir
	if p.base == "" {
		d, err := os.MkdirTemp("", "docmill-office-")
		if err != nil {
			return err
		}
		p.base, p.ownBase = d, true
	}
	return nil
}

// Available reports whether the pool can convert on this node.
func (p *Pool) Available() bool { return p.ok }

// Usage is the pool's size and how many of its workers are converting
// now; both are 0 when the pool is not available.
func (p *Pool) Usage() (size, busy int) {
	if !p.ok {
		return 0, 0
	}
	return p.opts.Workers, p.opts.Workers - len(p.idle)
}

// Starts is how many soffice processes the pool has started, for tests
// and metrics.
func (p *Pool) Starts() int64 { return p.starts.Load() }

// Status describes the engines for /readyz and the catalogue.
func (p *Pool) Status() []docmill.EngineStatus {
	s := p.soffice.Status()
	s.Available = p.ok
	return []docmill.EngineStatus{s, p.python.Status()}
}

var errClosed = errors.New("office: pool closed")

// restart (re)starts w in the background and hands it to the next job;
// a worker that fails to start goes back broken, so the next job that
// takes it tries again.
func (p *Pool) restart(w *worker) {
	w.kill()
	select {
	case <-p.closed:
	default:
		if err := w.start(p); err != nil {
			w.broken = true
		}
	}
	p.idle <- w
}

// Close kills every worker, waiting for running conversions to end, and
// removes the pool's directory.
func (p *Pool) Close() {
	p.close.Do(func() {
		close(p.closed)
		if !p.ok {
			return
		}
		for i := 0; i < p.opts.Workers; i++ {
			w := <-p.idle
			w.kill()
		}
		if p.ownBase {
			os.RemoveAll(p.base)
		}
	})
}
