package chromium

import (
	"context"
	"errors"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/chromedp/chromedp"

	docmill "github.com/docmill/docmill"
)

// Bounds of wait_for: bounds on a param, within the tool's timeout,
// not costs a node sets.
const (
	// maxWaitMillis bounds a wait given in milliseconds.
	maxWaitMillis = 30000
	// maxSelectorWait is how long a wait for a selector lasts at most;
	// past it the page is printed as it is, and meta.wait_timed_out says
	// so.
	maxSelectorWait = 30 * time.Second
	// maxSelectorLength bounds a wait_for selector.
	maxSelectorLength = 500
	// selectorPoll is how often the page is asked for the selector.
	selectorPoll = 100 * time.Millisecond
)

// pageSettings are a URL job's validated params: the page's address,
// the client its requests go through, and what to wait for once it
// loaded.
type pageSettings struct {
	client   Doer
	url      string
	waitMS   int    // a fixed wait, in milliseconds
	selector string // a CSS selector to wait for
	// timedOut is what wait found: the selector did not appear in time.
	timedOut bool
}

// pageParams are the params the URL tools add to their HTML
// counterparts': the address and what to wait for.
func pageParams() []docmill.Param {
	return []docmill.Param{
		{Name: paramURL, Type: docmill.TypeURL, Required: true, Example: "https://example.com/", Max: docmill.Bound(docmill.MaxURLLength),
			Description: "The page to load: an https:// address (http:// and private, loopback and link-local addresses only on a " +
				"server started with --allow-private-urls). Every request the page makes, redirects included, is held to the same rules; " +
				"other schemes (file://, ws://) and methods other than GET are blocked."},
		{Name: paramWaitFor, Type: docmill.TypeString, Max: docmill.Bound(maxSelectorLength), Check: checkWaitFor,
			Description: "Once the page loaded, wait for this before printing: a number of milliseconds (0 to " + strconv.Itoa(maxWaitMillis) +
				"), or a CSS selector that must match an element (waited for up to " + strconv.Itoa(int(maxSelectorWait/time.Second)) +
				" s; if it never does, the page is printed as it is and meta.wait_timed_out is true)."},
	}
}

// pageMeta declares the meta the URL tools add.
var pageMeta = []docmill.MetaField{
	{Name: "wait_timed_out", Type: docmill.MetaBoolean, Description: "true when wait_for's selector matched nothing within the wait, and the page was printed as it was."},
}

// checkWaitFor validates wait_for: milliseconds within bounds, or a
// selector (whose syntax the page's browser judges, at run time).
func checkWaitFor(v string) error {
	if _, isNumber, ok := waitMillis(v); isNumber && !ok {
		return docmill.ParamError(paramWaitFor, "must be a number of milliseconds from 0 to %d, or a CSS selector", maxWaitMillis)
	}
	return nil
}

// waitMillis reads wait_for as milliseconds: isNumber when it is all
// digits, ok when it is within bounds.
func waitMillis(v string) (ms int, isNumber, ok bool) {
	if v == "" || strings.Trim(v, "0123456789") != "" {
		return 0, false, false
	}
	n, err := strconv.Atoi(v)
	return n, true, err == nil && n <= maxWaitMillis
}

// pageFrom reads a URL job's params.
func pageFrom(p docmill.Params, client Doer) *pageSettings {
	s := &pageSettings{client: client, url: p.String(paramURL)}
	if w := p.String(paramWaitFor); w != "" {
		if ms, isNumber, _ := waitMillis(w); isNumber {
			s.waitMS = ms
		} else {
			s.selector = w
		}
	}
	return s
}

// wait waits, on the loaded page, for what wait_for asked. A selector
// the browser cannot parse is invalid_parameter.
func (s *pageSettings) wait(ctx context.Context) error {
	if s.waitMS > 0 {
		select {
		case <-time.After(time.Duration(s.waitMS) * time.Millisecond):
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	if s.selector == "" {
		return nil
	}
	query := "document.querySelector(" + jsString(s.selector) + ") !== null"
	deadline := time.Now().Add(maxSelectorWait)
	for {
		found, err := chromedp.Run(ctx, chromedp.Evaluate[bool](query))
		var exc *chromedp.ExceptionError
		switch {
		case errors.As(err, &exc):
			return docmill.ParamError(paramWaitFor, "is not a valid CSS selector")
		case err != nil && ctx.Err() != nil:
			return err
		case err != nil:
			// The page is between documents (a script navigated it):
			// it is asked again, until the deadline.
		case found:
			return nil
		}
		if time.Now().After(deadline) {
			s.timedOut = true
			return nil
		}
		select {
		case <-time.After(selectorPoll):
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// urlAvailable reports whether the URL tools work: Chromium, and a client
// for the pages' requests.
func (b *Browser) urlAvailable() bool { return b.opts.Pages != nil && b.Available() }

// urlTools declares url-to-pdf and url-to-image: html-to-pdf's and
// html-to-image's params, with the page's address and wait_for instead
// of a file.
func (b *Browser) urlTools(statuses func() []docmill.EngineStatus) []*docmill.Tool {
	return []*docmill.Tool{
		{
			Slug:  "url-to-pdf",
			Lane:  docmill.LaneBrowser,
			Meta:  append([]docmill.MetaField{{Name: "blocked_requests", Type: docmill.MetaInteger, Description: "Requests the page made that were blocked (refused addresses, other schemes and methods, past the bounds)."}}, pageMeta...),
			Title: "URL to PDF",
			Description: "Load a web page from its address with Chromium and print it to PDF. Takes no file: the page's address is the url param. " +
				"Every request the page makes goes through the server's outbound rules (no private addresses); a page answering an HTTP error is 400 fetch_failed.",
			Outputs:   []string{"application/pdf"},
			Params:    append(pageParams(), printParams()...),
			Engine:    engineName,
			Timeout:   timeout,
			Available: b.urlAvailable,
			Engines:   statuses,
			Run:       b.runURL,
		},
		{
			Slug:  "url-to-image",
			Lane:  docmill.LaneBrowser,
			Meta:  append(append([]docmill.MetaField(nil), shotMeta...), pageMeta...),
			Title: "URL to image",
			Description: "Load a web page from its address with Chromium and take a screenshot of it, as PNG, JPEG or WebP. Takes no file: " +
				"the page's address is the url param. Every request the page makes goes through the server's outbound rules (no private addresses).",
			Outputs: []string{"image/png", "image/jpeg", "image/webp"},
			OutputsFor: func(p docmill.Params) []string {
				return []string{shotFormats[p.String(paramFormat)].contentType}
			},
			Params:    append(pageParams(), shotParams()...),
			Engine:    engineName,
			Timeout:   timeout,
			Available: b.urlAvailable,
			Engines:   statuses,
			Run:       b.runURLImage,
		},
	}
}

// runURL prints the page at the url param.
func (b *Browser) runURL(ctx context.Context, in *docmill.RunInput) (*docmill.RunOutput, error) {
	s := settingsFrom(in.Params, in.Limits)
	s.page = pageFrom(in.Params, b.opts.Pages)
	s.title = s.page.url
	dst := filepath.Join(in.WorkDir, "result.pdf")
	blocked, err := b.renderPage(ctx, in, dst, s)
	if err != nil {
		return nil, err
	}
	return &docmill.RunOutput{Path: dst, Filename: pageName(s.page.url) + ".pdf", ContentType: "application/pdf",
		Meta: map[string]any{"blocked_requests": blocked, "wait_timed_out": s.page.timedOut}}, nil
}

// runURLImage takes the screenshot of the page at the url param.
func (b *Browser) runURLImage(ctx context.Context, in *docmill.RunInput) (*docmill.RunOutput, error) {
	shot := shotSettingsFrom(in.Params, in.Limits)
	s := printSettings{shot: shot, page: pageFrom(in.Params, b.opts.Pages), limits: in.Limits.WithDefaults()}
	dst := filepath.Join(in.WorkDir, "result"+shot.format.ext)
	blocked, err := b.renderPage(ctx, in, dst, s)
	if err != nil {
		return nil, err
	}
	out := shotOutput(dst, pageName(s.page.url)+shot.format.ext, shot, blocked)
	out.Meta["wait_timed_out"] = s.page.timedOut
	return out, nil
}

// renderPage renders a URL job (render, with no files of the job's).
func (b *Browser) renderPage(ctx context.Context, in *docmill.RunInput, dst string, s printSettings) (int64, error) {
	if b.opts.Pages == nil {
		return 0, docmill.Errorf(docmill.CodeEngineUnavailable, "Loading web pages is not available on this server.")
	}
	return b.render(ctx, in.WorkDir, dst, s)
}

// pageName names a URL job's result after the page's host
// ("example.com.pdf"), in letters, digits, dots and hyphens.
func pageName(raw string) string {
	host := "page"
	if u, err := url.Parse(raw); err == nil && u.Hostname() != "" {
		host = u.Hostname()
	}
	return strings.Map(func(r rune) rune {
		if r == '.' || r == '-' || ('a' <= r && r <= 'z') || ('A' <= r && r <= 'Z') || ('0' <= r && r <= '9') {
			return r
		}
		return '-'
	}, host)
}
