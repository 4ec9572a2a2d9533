package chromium

import (
	"iter"
	"mime"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
)

// maxServedFile bounds one file served to the page (it travels base64
// over the DevTools pipe); a larger one is answered 404.
const maxServedFile = 64 << 20

// serveRequests answers every request the tab makes, until the tab
// closes: a GET for a file under the current job's root on the job's own
// host (site) is fulfilled from disk, a missing one gets 404, and anything
// else (another host, another scheme such as file:// or https, a POST, any
// request between jobs) fails as blocked by the client (or aborted, for a
// navigation) and is counted in the job's blocked requests. data: and
// blob: URLs never reach here: they are inline, not requests.
func (t *tab) serveRequests(events iter.Seq2[fetch.EventRequestPaused, error]) {
	for ev, err := range events {
		if err != nil {
			return
		}
		s := t.site.Load()
		if s != nil && s.remote != nil {
			go t.serveRemote(s, ev)
			continue
		}
		var res response
		ok := false
		if s != nil {
			res, ok = lookup(s.root, s.host, ev.Request.Method, ev.Request.URL)
		}
		if !ok {
			if s != nil {
				s.blocked.Add(1)
			}
			// A blocked navigation (a form, a script setting location, an
			// iframe) is aborted: Chromium then keeps the page it had
			// instead of committing an error page that would be printed.
			reason := network.ErrorReasonBlockedByClient
			if ev.ResourceType == network.ResourceTypeDocument {
				reason = network.ErrorReasonAborted
			}
			_, _ = chromedp.Call(t.ctx, fetch.FailRequest, fetch.FailRequestParams{RequestID: ev.RequestID, ErrorReason: reason})
			continue
		}
		_, _ = chromedp.Call(t.ctx, fetch.FulfillRequest, fetch.FulfillRequestParams{
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

// serveRemote answers a request of a URL job's page by fetching it
// (remote.fetch), or fails it as blocked and counts it.
func (t *tab) serveRemote(s *site, ev fetch.EventRequestPaused) {
	main := ev.ResourceType == network.ResourceTypeDocument && string(ev.FrameID) == string(t.id)
	a, err := s.remote.fetch(ev.Request.Method, ev.Request.URL, ev.Request.Headers, main)
	if err == nil {
		_, err = chromedp.Call(t.ctx, fetch.FulfillRequest, fetch.FulfillRequestParams{
			RequestID: ev.RequestID, ResponseCode: a.status, ResponseHeaders: a.headers, Body: a.body,
		})
		if err == nil || t.ctx.Err() != nil {
			return
		}
		// An answer Chromium refuses (a status or header it does not
		// take) must not leave the request paused until the job's end.
	}
	s.blocked.Add(1)
	reason := network.ErrorReasonBlockedByClient
	if ev.ResourceType == network.ResourceTypeDocument {
		reason = network.ErrorReasonAborted
	}
	_, _ = chromedp.Call(t.ctx, fetch.FailRequest, fetch.FailRequestParams{RequestID: ev.RequestID, ErrorReason: reason})
}

// response is what the virtual origin answers.
type response struct {
	status      int64
	contentType string
	body        []byte
}

// lookup maps a request to a file under root. ok is false when the request
// must be blocked: not a GET or HEAD, or not on http://host/. A path
// that leaves root, names a directory or a symbolic link, or is too big
// gets 404, as a missing file does.
func lookup(root, host, method, raw string) (response, bool) {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme != "http" || u.Host != host || u.User != nil {
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
