package chromium

import (
	"context"
	"net/url"
	"path/filepath"
	"strings"

	docmill "github.com/docmill/docmill"
)

// pageSettings are a URL job's page: its address and the client its
// requests go through.
type pageSettings struct {
	client Doer
	url    string
}

// pageParams are the params the URL tools add to their HTML
// counterparts': the address.
func pageParams() []docmill.Param {
	return []docmill.Param{
		{Name: paramURL, Type: docmill.TypeURL, Required: true, Example: "https://example.com/", Max: docmill.Bound(docmill.MaxURLLength),
			Description: "The page to load: an https:// address (http:// and private, loopback and link-local addresses only on a " +
				"server started with --allow-private-urls). Every request the page makes, redirects included, is held to the same rules; " +
				"other schemes (file://, ws://) and methods other than GET are blocked."},
	}
}

// pageFrom reads a URL job's address.
func pageFrom(p docmill.Params, client Doer) *pageSettings {
	return &pageSettings{client: client, url: p.String(paramURL)}
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
			Slug: "url-to-pdf",
			Lane: docmill.LaneBrowser,
			Meta: []docmill.MetaField{{Name: "blocked_requests", Type: docmill.MetaInteger, Description: "Requests the page made that were blocked (refused addresses, other schemes and methods, past the bounds)."},
				waitMeta},
			Title: "URL to PDF",
			Description: "Load a web page from its address with Chromium and print it to PDF. Takes no file: the page's address is the url param. " +
				"Every request the page makes goes through the server's outbound rules (no private addresses); a page answering an HTTP error is 400 fetch_failed.",
			Outputs:     []string{"application/pdf"},
			Params:      append(pageParams(), printParams()...),
			CheckParams: checkPrintParams,
			Engine:      engineName,
			Timeout:     timeout,
			Available:   b.urlAvailable,
			Engines:     statuses,
			Run:         b.runURL,
		},
		{
			Slug:  "url-to-image",
			Lane:  docmill.LaneBrowser,
			Meta:  append(append([]docmill.MetaField(nil), shotMeta...), waitMeta),
			Title: "URL to image",
			Description: "Load a web page from its address with Chromium and take a screenshot of it, as PNG, JPEG or WebP. Takes no file: " +
				"the page's address is the url param. Every request the page makes goes through the server's outbound rules (no private addresses).",
			Outputs: []string{"image/png", "image/jpeg", "image/webp"},
			OutputsFor: func(p docmill.Params) []string {
				return []string{shotFormats[p.String(paramFormat)].contentType}
			},
			Params:    append(append(pageParams(), waitParam()), shotParams()...),
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
	s := settingsFrom(in.Params, in.Limits, b.opts.selectorWait)
	s.page = pageFrom(in.Params, b.opts.Pages)
	s.title = s.page.url
	if _, _, err := b.outputStep(s); err != nil {
		return nil, err
	}
	dst := filepath.Join(in.WorkDir, "result.pdf")
	blocked, err := b.renderPage(ctx, in, dst, s)
	if err != nil {
		return nil, err
	}
	if dst, err = b.finishPDF(ctx, in, dst, s); err != nil {
		return nil, err
	}
	return &docmill.RunOutput{Path: dst, Filename: pageName(s.page.url) + ".pdf", ContentType: "application/pdf", Meta: pdfMeta(blocked, s)}, nil
}

// runURLImage takes the screenshot of the page at the url param.
func (b *Browser) runURLImage(ctx context.Context, in *docmill.RunInput) (*docmill.RunOutput, error) {
	shot := shotSettingsFrom(in.Params, in.Limits)
	s := printSettings{shot: shot, page: pageFrom(in.Params, b.opts.Pages), wait: waitFrom(in.Params, b.opts.selectorWait),
		limits: in.Limits.WithDefaults()}
	dst := filepath.Join(in.WorkDir, "result"+shot.format.ext)
	blocked, err := b.renderPage(ctx, in, dst, s)
	if err != nil {
		return nil, err
	}
	out := shotOutput(dst, pageName(s.page.url)+shot.format.ext, shot, blocked)
	out.Meta["wait_timed_out"] = s.wait.timedOut
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
