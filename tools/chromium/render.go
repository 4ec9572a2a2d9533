package chromium

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/io"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	docmill "github.com/docmill/docmill"
	"github.com/docmill/docmill/sandbox"
)

// printSettings are a job's validated print params.
type printSettings struct {
	paper     paper
	landscape bool
	// margins are top, right, bottom and left, in inches.
	margins    [4]float64
	background bool
	// header and footer are the templates; both "" prints none.
	header, footer string
	scale          float64
	// pageRanges is Chromium's page selection; "" is every page.
	pageRanges string
	cssSize    bool
	// screen lays the page out for screen media rather than print.
	screen bool
	// tagged asks for a tagged PDF (a structure tree for accessibility).
	// Off by default: tagging makes printing slower and the PDF larger
	// (BenchmarkHTMLToPDFTable measures both), and Chromium before 154 and
	// Gotenberg print untagged by default too.
	tagged bool
	// title is the PDF's title when the page has none: the upload's name
	// without its extension.
	title string
	// shot, when set, makes the job a screenshot instead of a PDF.
	shot *shotSettings
	// page, when set, makes the job a web page loaded from its address
	// (url-to-pdf, url-to-image) instead of the job's files.
	page *pageSettings
	// wait is what to wait for once the page loaded (wait_for), and
	// what the wait found; never nil for a job of a tool taking it.
	wait *waitSettings
	// outline adds bookmarks from the headings; singlePage prints one
	// page as tall as the content (fitOnePage).
	outline, singlePage bool
	// pdfa is the PDF/A conformance to convert to ("": none); pdfua
	// marks the PDF for PDF/UA-1 (finishPDF).
	pdfa  string
	pdfua bool
	// facts are what the page says of itself, read before the print.
	facts *pageFacts
	// limits are the job's (RunInput.Limits): PrintedPDFBytes bounds the
	// PDF, the Fetch fields a page's requests.
	limits docmill.Limits
}

// pageFacts are what a PDF job reads from its page for the steps after
// the print.
type pageFacts struct {
	// lang is the page's <html lang>, read for pdfua.
	lang string
}

// jsString returns s as a JavaScript string literal (JSON's escaping,
// which also escapes <, > and & and so cannot close a script).
func jsString(s string) string {
	b, _ := json.Marshal(s) // a string always marshals
	return string(b)
}

// settingsFrom reads the validated params of a PDF job, and the job's
// limits l (a zero field: its default); page_size and margin are enums
// of papers' and margins' keys (TestEnumsMatchTables). A selector of
// wait_for is waited for up to selectorWait (0: maxSelectorWait).
func settingsFrom(p docmill.Params, l docmill.Limits, selectorWait time.Duration) printSettings {
	s := printSettings{paper: papers[p.String(paramPageSize)], landscape: p.Bool(paramLandscape),
		background: p.Bool(paramPrintBackground), tagged: p.Bool(paramTagged),
		header: p.String(paramHeaderHTML), footer: p.String(paramFooterHTML), scale: 1,
		pageRanges: pageRangesText(p), cssSize: p.Bool(paramPreferCSSPageSize), screen: p.String(paramMedia) == "screen",
		limits: l.WithDefaults(), wait: waitFrom(p, selectorWait), facts: &pageFacts{}}
	s.outputFrom(p)
	if p.Has(paramScale) {
		s.scale = p.Float(paramScale)
	}
	s.paper.width = lengthOr(p, paramPaperWidth, s.paper.width)
	s.paper.height = lengthOr(p, paramPaperHeight, s.paper.height)
	m := margins[p.String(paramMargin)]
	for i, side := range []string{paramMarginTop, paramMarginRight, paramMarginBottom, paramMarginLeft} {
		s.margins[i] = lengthOr(p, side, m)
	}
	if s.header != "" && s.margins[0] == 0 {
		s.margins[0] = templateMargin
	}
	if s.footer != "" && s.margins[2] == 0 {
		s.margins[2] = templateMargin
	}
	return s
}

// render prints the site in root (index.html and its files) to dst. It
// waits for a free tab, then runs the job in a tab of its own under ctx's
// deadline. It returns how many requests the page made that were blocked.
//
// Errors: ctx's own error when the job is cancelled or times out;
// invalid_document when the page cannot be loaded; internal when the
// browser died (it is retired, so the next job gets a new one) or failed
// in any other way.
func (b *Browser) render(ctx context.Context, root, dst string, s printSettings) (int64, error) {
	if !b.Available() {
		return 0, docmill.Errorf(docmill.CodeEngineUnavailable, "The %s engine is not available on this server; please retry later.", engineName)
	}
	select {
	case b.tabs <- struct{}{}:
		defer func() { <-b.tabs }()
	case <-ctx.Done():
		return 0, ctx.Err()
	}
	// A browser found dead mid-job (killed, crashed) is replaced and the
	// job tried once more on the new one: the death may have come before
	// the job (chromedp notices it a moment late). A second death fails
	// the job as internal, for the job runner's retry.
	var blocked int64
	var err error
	for attempt := 0; attempt < 2; attempt++ {
		blocked, err = b.printOnce(ctx, root, dst, s)
		if !errors.Is(err, errBrowserDied) || ctx.Err() != nil {
			break
		}
	}
	switch {
	case err == nil:
		return blocked, nil
	case ctx.Err() != nil:
		return 0, ctx.Err()
	case errors.Is(err, errBrowserDied):
		return 0, docmill.Internal(err)
	}
	var le *chromedp.LoadError
	if errors.As(err, &le) {
		return 0, docmill.InvalidDocument(err, "The page could not be loaded: %s.", le.ErrorText)
	}
	var de *docmill.Error
	if errors.As(err, &de) {
		return 0, err
	}
	return 0, docmill.Internal(fmt.Errorf("chromium: %w", err))
}

// errBrowserDied marks a job that failed because its browser died.
var errBrowserDied = errors.New("chromium: browser died")

// printOnce runs the job on the current browser; an error caused by the
// browser's death wraps errBrowserDied, and the browser is retired.
func (b *Browser) printOnce(ctx context.Context, root, dst string, s printSettings) (int64, error) {
	inst, err := b.acquireFor(ctx)
	if err != nil {
		return 0, docmill.Internal(err)
	}
	defer b.release(inst)
	defer b.measureMemory(ctx, inst)()
	blocked, ran, err := inst.print(ctx, root, dst, s, b.opts.MaxTabs)
	// chromedp reports a call cut off by the browser's exit with the
	// process's *exec.ExitError, sometimes before the instance's context
	// ends: a job on an idle tab, taken just after the browser was
	// killed, sees that first.
	var exited *exec.ExitError
	switch {
	case err == nil:
	case ctx.Err() == nil && (inst.dead() || errors.As(err, &exited)):
		b.retire(inst)
		return 0, fmt.Errorf("%w: %w", errBrowserDied, err)
	case !ran:
		// The job got no tab: its page never ran.
	case ctx.Err() != nil:
		// The page ran out its time or was canceled: its renderer may
		// still be busy (an endless script), and, site isolation being
		// off, may be shared with the windows and frames it opened and
		// with other tabs. Only a new browser is known to be free of it;
		// this one is shut down as soon as its other jobs end.
		b.retire(inst)
	case !inst.healthy():
		b.retire(inst)
	}
	return blocked, err
}

// measureMemory starts the measure of the browser's peak resident
// memory for the job of ctx, and returns the function that notes it
// (docmill.NoteEnginePeak) when the job ends: the peaks of all its processes, added up, since the job
// began when it is the browser's only job, else since the last job that
// ran alone began (jobs at once share the processes, so their memory
// is not told apart).
func (b *Browser) measureMemory(ctx context.Context, inst *instance) (note func()) {
	if inst.pid <= 0 {
		return func() {}
	}
	b.mu.Lock()
	alone := inst.active == 1
	b.mu.Unlock()
	if alone {
		sandbox.ResetPeakRSS(inst.pid)
	}
	return func() { docmill.NoteEnginePeak(ctx, sandbox.PeakRSS(inst.pid)) }
}

// print runs one job in a tab of inst (an idle one, or a new one): load
// index.html from the job's files, staged where the browser's jail sees
// them, wait for the load event and the fonts, print. A tab whose job
// succeeded is reset for the next job in the background, after the job
// returns; any other is closed.
//
// ran reports whether the job's page was loaded in a tab (a job that got
// no tab left the browser as it was).
func (inst *instance) print(ctx context.Context, root, dst string, s printSettings, maxTabs int) (blocked int64, ran bool, err error) {
	var st *site
	if s.page == nil {
		staged, served, err := inst.stageSite(root)
		if err != nil {
			return 0, false, err
		}
		defer os.RemoveAll(staged)
		st = newSite(staged, served)
	} else {
		st = newSite("", "")
	}
	t, err := inst.takeTab(ctx, maxTabs)
	if err != nil {
		return 0, false, err
	}
	if s.page != nil {
		pageCtx, cancel := context.WithCancel(ctx)
		defer cancel()
		st.remote = newRemote(pageCtx, s.page.client, s.page.url, s.limits)
	}
	t.site.Store(st)
	err = printIn(ctx, t, st, dst, s)
	t.site.Store(nil)
	if err != nil {
		// A page cut off by the job's deadline or cancel may still run
		// (an endless script): its renderer is crashed, then the tab
		// closed. Closing waits for the browser to dispose of the tab's
		// context, a second on a busy node, so a cut-off job returns at
		// once and leaves both to the background. (The tab's own
		// deadline may fire a moment before ctx's: both are looked at.)
		if ctx.Err() != nil || errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
			inst.uncount()
			go func() {
				t.crash()
				t.close()
			}()
		} else {
			inst.dropTab(t, false)
		}
		return 0, true, err
	}
	if st.remote != nil {
		// A web page's storage belongs to origins that another job may
		// load too: its tab, and its browser context with everything
		// the page stored, are closed rather than reset.
		inst.dropTab(t, true)
	} else {
		inst.putBack(t, st)
	}
	return st.blocked.Load(), true, nil
}

// printIn loads site st in tab t and prints it to dst (or, for a
// screenshot job, captures it), every step bounded by ctx.
func printIn(ctx context.Context, t *tab, st *site, dst string, s printSettings) error {
	job, cancel := context.WithCancel(t.ctx)
	defer cancel()
	stop := context.AfterFunc(ctx, cancel)
	defer stop()
	if d, ok := ctx.Deadline(); ok {
		var c2 context.CancelFunc
		job, c2 = context.WithDeadline(job, d)
		defer c2()
	}
	if s.shot != nil {
		if err := setViewport(job, s.shot); err != nil {
			return err
		}
	}
	if s.screen {
		// The tab's reset clears it.
		if _, err := chromedp.Call(job, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{Media: "screen"}); err != nil {
			return err
		}
	}
	err := chromedp.Do(job, chromedp.Navigate(st.start()))
	if st.remote != nil && job.Err() == nil {
		if failed := st.remote.mainResult(); failed != nil {
			return failed
		}
	}
	if err != nil {
		return err
	}
	if s.wait != nil {
		if err := s.wait.run(job); err != nil {
			return err
		}
	}
	// Wait for the fonts; a page without a title gets s.title, or
	// Chromium would title the PDF with the job's random address.
	ready := fmt.Sprintf("document.fonts.ready.then(() => { if (!document.title.trim()) document.title = %s; return true; })", jsString(s.title))
	if _, err := chromedp.Run(job, chromedp.Evaluate[bool](ready, chromedp.EvalAwaitPromise)); err != nil {
		return err
	}
	if s.shot != nil {
		return captureImage(job, dst, s.shot)
	}
	return readAndPrint(job, dst, s)
}

// readAndPrint reads what the options after the print need from the
// loaded page, lays it out on one page for single_page, and prints it.
func readAndPrint(ctx context.Context, dst string, s printSettings) error {
	if s.pdfua {
		lang, err := pageLang(ctx)
		if err != nil {
			return err
		}
		s.facts.lang = lang
	}
	if s.singlePage {
		if err := fitOnePage(ctx, &s); err != nil {
			return err
		}
	}
	return printPDF(ctx, dst, s)
}

// dismissDialogs answers alert, confirm, prompt and beforeunload, which
// would otherwise stop the page's scripts and the load event for good.
func dismissDialogs(ctx context.Context, events iter.Seq2[page.EventJavascriptDialogOpening, error]) {
	for _, err := range events {
		if err != nil {
			return
		}
		_, _ = chromedp.Call(ctx, page.HandleJavaScriptDialog, page.HandleJavaScriptDialogParams{Accept: false})
	}
}

// pdfParams are s's printToPDF params.
func (s printSettings) pdfParams() page.PrintToPDFParams {
	m := s.margins
	params := page.PrintToPDFParams{
		Landscape:         &s.landscape,
		PrintBackground:   &s.background,
		Scale:             s.scale,
		PaperWidth:        s.paper.width,
		PaperHeight:       s.paper.height,
		MarginTop:         &m[0],
		MarginRight:       &m[1],
		MarginBottom:      &m[2],
		MarginLeft:        &m[3],
		PageRanges:        s.pageRanges,
		PreferCSSPageSize: &s.cssSize,
		GenerateTaggedPDF: &s.tagged,
		// Chromium builds the outline from the structure tree
		// (outputFrom tags the PDF when asked for one).
		GenerateDocumentOutline: &s.outline,
		TransferMode:            page.PrintToPDFTransferModeReturnAsStream,
	}
	if s.header != "" || s.footer != "" {
		// An empty template would print Chromium's own (the date and
		// title, the URL and page numbers): a side left out prints
		// nothing.
		params.DisplayHeaderFooter = new(true)
		params.HeaderTemplate, params.FooterTemplate = "<span></span>", "<span></span>"
		if s.header != "" {
			params.HeaderTemplate = s.header
		}
		if s.footer != "" {
			params.FooterTemplate = s.footer
		}
	}
	return params
}

// templateError is the invalid_parameter error of a print that failed
// with a header or footer: Chromium fails the print when a template
// waits for a stylesheet or font it links (which it never loads), so the
// templates given are named.
func templateError(s printSettings) *docmill.Error {
	const msg = "could not be printed: a template loads nothing, and one that links a stylesheet or font (link, @import, @font-face) fails; use inline styles"
	e := &docmill.Error{Code: docmill.CodeInvalidParameter}
	for _, f := range []struct{ name, v string }{{paramHeaderHTML, s.header}, {paramFooterHTML, s.footer}} {
		if f.v != "" {
			e.Fields = append(e.Fields, docmill.FieldError{Field: f.name, Message: msg})
		}
	}
	e.Message = fmt.Sprintf("Parameter %q %s.", e.Fields[0].Field, msg)
	return e
}

// printPDF prints the loaded page to dst, streamed from the browser in
// chunks (a big document does not travel as one huge message) and capped
// at s.limits.PrintedPDFBytes (file_too_large past it, rather than fill
// the disk). The page's CSS @page size is ignored unless
// prefer_css_page_size.
func printPDF(ctx context.Context, dst string, s printSettings) error {
	res, err := chromedp.Call(ctx, page.PrintToPDF, s.pdfParams())
	if err != nil {
		// Chromium judges page_ranges against the page count: a
		// selection past the end is the caller's mistake.
		msg := err.Error()
		if strings.Contains(msg, "Page range") {
			return docmill.ParamError(paramPageRanges, "selects no page of the document, or cannot be read (%s)", strings.TrimSpace(msg))
		}
		if strings.Contains(msg, "Printing failed") && (s.header != "" || s.footer != "") {
			return templateError(s)
		}
		return err
	}
	// The stream is closed in the background: the job's PDF is whole
	// once EOF is read, and the answer to the close is not waited for.
	defer func() {
		go func() {
			cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
			defer cancel()
			_, _ = chromedp.Call(cctx, io.Close, io.CloseParams{Handle: res.Stream})
		}()
	}()
	f, err := os.Create(dst)
	if err != nil {
		return fmt.Errorf("create pdf: %w", err)
	}
	defer f.Close()
	buf := bufio.NewWriterSize(f, 1<<20)
	maxBytes := s.limits.WithDefaults().PrintedPDFBytes
	var n int64
	for {
		chunk, err := chromedp.Call(ctx, io.Read, io.ReadParams{Handle: res.Stream, Size: 1 << 20})
		if err != nil {
			return err
		}
		if n += int64(len(chunk.Data)); n > maxBytes {
			return docmill.Errorf(docmill.CodeFileTooLarge, "The PDF would be larger than %d MB.", maxBytes>>20)
		}
		if _, err := buf.Write(chunk.Data); err != nil {
			return fmt.Errorf("write pdf: %w", err)
		}
		if chunk.EOF {
			break
		}
	}
	if err := buf.Flush(); err != nil {
		return fmt.Errorf("write pdf: %w", err)
	}
	return f.Close()
}
