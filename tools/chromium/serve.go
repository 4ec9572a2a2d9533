package chromium

import (
	"context"
	"iter"
	"mime"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync/atomic"

	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
)

const (
	// originHost is the virtual host the job's files are served from. The
	// .invalid top-level domain never resolves (RFC 2606), so if a
	// request for it ever escaped interception it would go nowhere.
	originHost = "docmill.invalid"
	// origin is the page's address prefix: index.html is origin+"index.html".
	origin = "http://" + originHost + "/"
	// maxServedFile bounds one file served to the page (it travels base64
	// over the DevTools pipe); a larger one is answered 404.
	maxServedFile = 64 << 20
)

// serveRequests answers every request the tab makes, until ctx ends: a GET
// for a file under root on the virtual origin is fulfilled from disk, a
// missing one gets 404, and anything else (another host, another scheme
// such as file:// or https, a POST) fails as blocked by the client (or
// aborted, for a navigation) and is counted in blocked. data: and blob: URLs never reach here: they are
// inline, not requests.
func serveRequests(ctx context.Context, events iter.Seq2[fetch.EventRequestPaused, error], root string, blocked *atomic.Int64) {
	for ev, err := range events {
		if err != nil {
			return
		}
		res, ok := lookup(root, ev.Request.Method, ev.Request.URL)
		if !ok {
			blocked.Add(1)
			// A blocked navigation (a form, a script setting location, an
			// iframe) is aborted: Chromium then keeps the page it had
			// instead of committing an error page that would be printed.
			reason := network.ErrorReasonBlockedByClient
			if ev.ResourceType == network.ResourceTypeDocument {
				reason = network.ErrorReasonAborted
			}
			_, _ = chromedp.Call(ctx, fetch.FailRequest, fetch.FailRequestParams{RequestID: ev.RequestID, ErrorReason: reason})
			continue
		}
		_, _ = chromedp.Call(ctx, fetch.FulfillRequest, fetch.FulfillRequestParams{
			RequestID:    ev.RequestID,
			ResponseCode: res.status,
			ResponseHeaders: []*fetch.HeaderEntry{
				{Name: "Content-Type", Value: res.contentType},
				{Name: "Cache-Control", Value: "no-store"},
			},
			Body: res.body,
		})
	}
}

// response is what the virtual origin answers.
type response struct {
	status      int64
	contentType string
	body        []byte
}

// lookup maps a request to a file under root. ok is false when the request
// must be blocked: not a GET or HEAD, or not on the virtual origin. A path
// that leaves root, names a directory or a symbolic link, or is too big
// gets 404, as a missing file does.
func lookup(root, method, raw string) (response, bool) {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme != "http" || u.Host != originHost || u.User != nil {
		return response{}, false
	}
	if method != "GET" && method != "HEAD" {
		return response{}, false
	}
	notFound := response{status: 404, contentType: "text/plain"}
	rel := strings.TrimPrefix(path.Clean("/"+u.Path), "/")
	if rel == "" {
		rel = "index.html"
	}
	if !filepath.IsLocal(rel) {
		return notFound, true
	}
	full := filepath.Join(root, filepath.FromSlash(rel))
	st, err := os.Lstat(full)
	if err != nil || !st.Mode().IsRegular() || st.Size() > maxServedFile {
		return notFound, true
	}
	body, err := os.ReadFile(full)
	if err != nil {
		return notFound, true
	}
	return response{status: 200, contentType: contentType(rel), body: body}, true
}

// contentType names a served file's type from its extension, without a
// charset, so that an HTML page's own <meta charset> (or Chromium's
// detection) decides its encoding.
func contentType(name string) string {
	ext := strings.ToLower(filepath.Ext(name))
	switch ext {
	case ".woff":
		return "font/woff"
	case ".woff2":
		return "font/woff2"
	case ".ttf":
		return "font/ttf"
	case ".otf":
		return "font/otf"
	case ".htm", ".html":
		return "text/html"
	}
	if ct := mime.TypeByExtension(ext); ct != "" {
		ct, _, _ = strings.Cut(ct, ";")
		return strings.TrimSpace(ct)
	}
	return "application/octet-stream"
}
