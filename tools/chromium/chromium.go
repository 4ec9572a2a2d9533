// Package chromium provides html-to-pdf and markdown-to-pdf: a web page (one
// HTML file, or a zip of a site with index.html) or a Markdown document is
// printed to PDF by one warm headless Chromium driven over the DevTools
// protocol (chromedp).
//
// Safety (docs/architecture.md, Sandbox): the page never reaches anything but the
// job's own files. Chromium runs in an empty network namespace where Linux
// allows it, with a dead proxy for every scheme as a second wall, and each
// tab intercepts every request it makes (Fetch domain): the job's files
// are hard-linked into a folder of random name in the browser's profile,
// which its jail sees (stageSite); the page is loaded from there as a
// file:// URL, and Chromium reads each file itself, so that none passes
// through this process. The interception lets through only requests for
// the current job's regular files; every other request (another folder,
// http, https, ws, a POST) is failed as blocked by the client.
//
// url-to-pdf and url-to-image load a page from its address instead, still
// with no network of Chromium's own: each request the tab makes (the
// document, every redirect hop, every subresource) is fetched by this
// process through Options.Pages (the server's outbound client, which
// checks every address at dial time) and handed back to the tab; only
// GETs of http and https URLs are sent, within per-job bounds (remote.go),
// and a redirect is given to Chromium as it is, so its target comes back
// through the same interception and checks. A URL job's tab is closed
// afterwards rather than reused: its page's storage belongs to real
// origins that another job may load. The tab's interception does not see
// the requests of service workers and shared workers (their own targets):
// those meet the empty network namespace and the dead proxy, which is why
// the tools are available only in the jail (Available).
//
// Life cycle: one browser process, started on the first job, serves up to
// MaxTabs jobs at once, one tab each. A tab, in a browser context of its
// own, prints job after job (see tab for what keeps them apart). The
// browser is replaced after RestartAfter jobs (a long-lived browser leaks
// memory) and at once when it dies (a crash, an OOM kill). A job caught by a crash fails as internal, so the
// job runner retries it on the new browser.
package chromium

import (
	"context"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync"
	"time"

	docmill "github.com/docmill/docmill"
	"github.com/docmill/docmill/sandbox"
)

const (
	// engineName is the Tool.Engine of both tools.
	engineName = "chromium"
	// timeout bounds one job: waiting for a tab, loading and printing.
	timeout = 2 * time.Minute
	// defaultRestartAfter is Options.RestartAfter's default.
	defaultRestartAfter = 500
)

// Options configure the browser.
type Options struct {
	// ExecPath is the Chromium binary; "" finds it in the system
	// directories (see findExec). A path that does not exist leaves the
	// tools unavailable.
	ExecPath string
	// MaxTabs bounds the jobs rendered at once (default: the number of
	// CPUs); more wait for a free tab. It also bounds the tabs kept open
	// between jobs (each holds a renderer process), beyond which a job
	// waits for a tab's reset rather than open another.
	MaxTabs int
	// RestartAfter is how many jobs one browser process serves before it
	// is replaced (default 500).
	RestartAfter int
	// Limits bound what a job may cost; html-to-pdf checks a zipped site
	// against their archive fields. A zero field means its default.
	Limits docmill.Limits
	// Jail confines the browser like every engine (default:
	// sandbox.Default()): its own namespaces, a file system holding only
	// its profile and the system paths it needs, an unprivileged uid and
	// rlimits. Chromium's own sandbox stays off: as the jail's uid inside
	// bubblewrap it could not make the namespaces it wants.
	Jail *sandbox.Jail
	// Dir is where the browser's profile directories are made (default:
	// the system's temporary directory). The server passes its node's
	// scratch directory: a profile holds what pages left in it, and one
	// left by a killed server is removed when the node starts again.
	Dir string
	// Pages sends the requests of url-to-pdf's and url-to-image's pages
	// (see Doer); nil leaves those tools unavailable. The package never
	// reaches the network itself.
	Pages Doer
	// MarkdownPage runs MarkdownPageStep out of this process (in a
	// jailed helper, sandbox.Helpers): markdown-to-pdf's parse of the
	// user's Markdown. nil leaves markdown-to-pdf unavailable.
	MarkdownPage docmill.RunFunc
	// PDFA converts a printed PDF to PDF/A for the pdfa param: the
	// server passes pdf-to-pdfa's conversion (ghostscript.PDFAStep). It
	// takes the PDF and the param "conformance" (1b, 2b or 3b). nil, or
	// a step unavailable on the node, makes pdfa engine_unavailable.
	PDFA *docmill.EngineStep
	// PDFUA marks a printed tagged PDF for PDF/UA-1 for the pdfua param:
	// the server runs pdfops.MarkPDFUAStep in the PDF helper. It takes
	// the PDF and the optional param "lang" (the page's language). nil
	// makes pdfua engine_unavailable.
	PDFUA docmill.RunFunc

	// noOSIsolation turns off the network namespace and the dead proxy,
	// so that tests can show that request interception alone blocks the
	// network.
	noOSIsolation bool
	// selectorWait, when set, bounds the wait for a wait_for selector
	// instead of maxSelectorWait, so that a test of a selector that
	// never matches does not wait half a minute.
	selectorWait time.Duration
}

// Browser is the warm Chromium shared by the tools of a node. It is safe
// for concurrent use.
type Browser struct {
	opts    Options
	path    string        // the binary; "" when missing
	version func() string // what it says of its version, asked once
	tabs    chan struct{}

	mu     sync.Mutex
	cur    *instance // the process new jobs use; nil until the first job
	closed bool
}

// New finds Chromium and asks it for its version; it does not start the
// browser, which starts on the first job so that a node that never prints
// pays nothing. A missing binary gives a Browser whose tools are
// unavailable (engine_unavailable), never an error.
func New(opts Options) *Browser {
	if opts.MaxTabs <= 0 {
		opts.MaxTabs = runtime.NumCPU()
	}
	if opts.RestartAfter <= 0 {
		opts.RestartAfter = defaultRestartAfter
	}
	opts.Limits = opts.Limits.WithDefaults()
	if opts.Jail == nil {
		opts.Jail = sandbox.Default()
	}
	b := &Browser{opts: opts, tabs: make(chan struct{}, opts.MaxTabs)}
	b.path = opts.ExecPath
	if b.path == "" {
		b.path = findExec()
	}
	if b.path != "" {
		if st, err := os.Stat(b.path); err != nil || st.IsDir() || st.Mode()&0o111 == 0 {
			b.path = ""
		}
	}
	path := b.path
	b.version = sync.OnceValue(func() string { // asked on first use, as sandbox.Engine.Version
		if path == "" {
			return ""
		}
		return askVersion(path, opts.Dir)
	})
	return b
}

// ExecPath returns the Chromium binary New would run, "" when there is
// none: tests ask for Chromium through it so they find it as the product
// does.
func ExecPath() string { return findExec() }

// findExec returns Chromium's binary. The headless shell comes first: the
// same Blink and printing without the desktop browser's layers, so it
// starts in a fraction of the time and memory (BenchmarkHTMLToPDFCold).
// Debian's /usr/bin/chromium is a shell wrapper that sources
// /etc/chromium.d (API keys, remote extensions) and would need the
// service's environment; the binary it runs is used directly when present.
func findExec() string {
	for _, p := range []string{
		"/usr/lib/chromium/chromium-headless-shell",
		"/usr/lib/chromium/chromium",
		"/usr/bin/chromium",
		"/usr/bin/chromium-browser",
		"/usr/local/bin/chromium",
		"/usr/bin/google-chrome",
	} {
		if st, err := os.Stat(p); err == nil && !st.IsDir() && st.Mode()&0o111 != 0 {
			return p
		}
	}
	return ""
}

// askVersion runs the binary with --version in a cleared environment,
// its HOME a directory made in dir.
func askVersion(path, dir string) string {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	home, err := os.MkdirTemp(dir, "docmill-chromium-version-")
	if err != nil {
		return ""
	}
	defer os.RemoveAll(home)
	cmd := exec.CommandContext(ctx, path, "--version")
	cmd.Env = []string{"PATH=/usr/bin:/bin", "HOME=" + home, "TMPDIR=" + home}
	out, _ := cmd.Output()
	return strings.TrimSpace(strings.SplitN(string(out), "\n", 2)[0])
}

// Usage is how many tabs may print at once and how many print now.
func (b *Browser) Usage() (size, busy int) { return cap(b.tabs), len(b.tabs) }

// Available reports whether Chromium was found.
func (b *Browser) Available() bool {
	return b.path != "" && (b.opts.noOSIsolation || b.opts.Jail.Ready())
}

// Status describes the engine for /readyz and the catalogue.
func (b *Browser) Status() docmill.EngineStatus {
	return docmill.EngineStatus{Name: engineName, Path: b.path, Version: b.version(), Available: b.Available()}
}

// Close kills the browser's whole process group and removes its profile.
// Jobs still running fail; jobs started after Close fail as internal.
func (b *Browser) Close() {
	b.mu.Lock()
	inst := b.cur
	b.cur, b.closed = nil, true
	b.mu.Unlock()
	if inst != nil {
		inst.shutdown()
	}
}

// Tools returns html-to-pdf, markdown-to-pdf, html-to-image, url-to-pdf
// and url-to-image, all rendered by b.
func (b *Browser) Tools() []*docmill.Tool {
	statuses := func() []docmill.EngineStatus { return []docmill.EngineStatus{b.Status()} }
	urls := b.urlTools(statuses)
	return []*docmill.Tool{
		{
			Slug:  "html-to-pdf",
			Lane:  docmill.LaneBrowser,
			Meta:  pdfToolMeta(),
			Title: "HTML to PDF",
			Description: "Print a web page to PDF with Chromium: one HTML file, or a zip with index.html " +
				"(at its root or in one top folder) and the CSS, images and fonts it uses. " +
				"The page cannot reach the network: only the files of the upload load.",
			Accepts:     []string{"text/html", "application/zip"},
			Outputs:     []string{"application/pdf"},
			MinFiles:    1,
			MaxFiles:    1,
			Params:      printParams(),
			CheckParams: checkPrintParams,
			Engine:      engineName,
			Timeout:     timeout,
			Available:   b.Available,
			Engines:     statuses,
			Run:         b.runHTML,
		},
		{
			Slug:  "markdown-to-pdf",
			Lane:  docmill.LaneBrowser,
			Meta:  pdfToolMeta(),
			Title: "Markdown to PDF",
			Description: "Render a Markdown file (GitHub-flavoured: tables, task lists, strikethrough, autolinks) " +
				"with a clean stylesheet and print it to PDF. Raw HTML in the Markdown is left out.",
			Accepts:     []string{"text/plain", "text/markdown"},
			Outputs:     []string{"application/pdf"},
			MinFiles:    1,
			MaxFiles:    1,
			Params:      printParams(),
			CheckParams: checkPrintParams,
			Engine:      "goldmark+" + engineName,
			Timeout:     timeout,
			Available:   func() bool { return b.Available() && b.opts.MarkdownPage != nil },
			Engines:     statuses,
			Run:         b.runMarkdown,
		},
		b.htmlImageTool(statuses),
		urls[0], urls[1],
	}
}

// pdfToolMeta is the meta of html-to-pdf and markdown-to-pdf.
func pdfToolMeta() []docmill.MetaField {
	return []docmill.MetaField{{Name: "blocked_requests", Type: docmill.MetaInteger, Description: "Requests the page made outside the upload, blocked."}, waitMeta}
}

// printParams are the params the PDF tools share.
func printParams() []docmill.Param {
	ps := append([]docmill.Param{
		{
			Name: paramPageSize, Type: docmill.TypeString, Default: "a4",
			Description: "Paper size: a4 (210x297 mm), letter (8.5x11 in), legal (8.5x14 in), a3 (297x420 mm) or a5 (148x210 mm). " +
				"A page's CSS @page size is ignored unless prefer_css_page_size is true.",
			Enum: []string{"a4", "letter", "legal", "a3", "a5"},
		},
		{
			Name: paramLandscape, Type: docmill.TypeBoolean, Default: "false",
			Description: "Print in landscape orientation.",
		},
		{
			Name: paramMargin, Type: docmill.TypeString, Default: "normal",
			Description: "Page margins: none, small (0.4 in, 10 mm) or normal (0.8 in, 20 mm).",
			Enum:        []string{"none", "small", "normal"},
		},
		{
			Name: paramPrintBackground, Type: docmill.TypeBoolean, Default: "true",
			Description: "Print background colours and images, as on screen.",
		},
		{
			Name: paramTagged, Type: docmill.TypeBoolean, Default: "false",
			Description: "Make a tagged (accessible) PDF: the page's structure (headings, paragraphs, lists, tables, " +
				"image descriptions) for screen readers and reflow. Slower, and often several times larger.",
		},
	}, optionParams()...)
	return append(append(ps, waitParam()), outputParams()...)
}

// paper is a page size in inches, portrait.
type paper struct{ width, height float64 }

var (
	papers = map[string]paper{
		"a4":     {8.27, 11.69},
		"letter": {8.5, 11},
		"legal":  {8.5, 14},
		"a3":     {11.69, 16.54},
		"a5":     {5.83, 8.27},
	}
	// margins are in inches; small is Chromium's own default.
	margins = map[string]float64{"none": 0, "small": 0.4, "normal": 0.8}
)
