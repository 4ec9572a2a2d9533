package chromium

import (
	"iter"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
)

// serveRequests answers every request the tab makes, until the tab
// closes. The job's page is loaded from its files (file://, site.start),
// and a GET or HEAD of a regular file under the current job's root is
// continued: Chromium reads the file itself, from the directory its jail
// sees (site.served), so that no byte of it passes through this process
// (fulfilling a request needs its whole body, base64 in one message). A
// file:// request under the root that names nothing, a directory or a
// link gets 404; anything else (another directory, another scheme such as
// http or https, a POST, any request between jobs) fails as blocked by
// the client (or aborted, for a navigation) and is counted in the job's
// blocked requests. data: and blob: URLs never reach here: they are
// inline, not requests.
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
		v, at := blocked, ""
		if s != nil {
			v, at = lookup(s.root, s.served, ev.Request.Method, ev.Request.URL)
		}
		switch v {
		case found:
			cont := fetch.ContinueRequestParams{RequestID: ev.RequestID}
			if at != ev.Request.URL {
				cont.URL = at
			}
			_, _ = chromedp.Call(t.ctx, fetch.ContinueRequest, cont)
		case missing:
			_, _ = chromedp.Call(t.ctx, fetch.FulfillRequest, fetch.FulfillRequestParams{
				RequestID:       ev.RequestID,
				ResponseCode:    404,
				ResponseHeaders: []*fetch.HeaderEntry{{Name: "Content-Type", Value: "text/plain"}},
			})
		default:
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
		}
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

// verdict is what lookup decides for a request.
type verdict int

const (
	blocked verdict = iota // fail it, counted
	missing                // answer 404
	found                  // let Chromium read the file
)

// lookup judges a request of a job's page whose files are at root on
// this host and at served as Chromium sees them (its jail's path): found
// for a GET or HEAD of a file:// URL naming a regular file under served,
// or naming one from the root of the site as an http page would
// (file:///css/x.css for served/css/x.css), at is then the file's URL
// under served; missing for one under served that names nothing, a
// directory or a symbolic link, or climbs out; blocked for anything else.
func lookup(root, served, method, raw string) (v verdict, at string) {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme != "file" || u.Host != "" || u.User != nil {
		return blocked, ""
	}
	if method != "GET" && method != "HEAD" {
		return blocked, ""
	}
	p := path.Clean(u.Path)
	rel, under := strings.CutPrefix(p, path.Clean(served)+"/")
	if !under {
		rel = strings.TrimPrefix(p, "/")
	}
	if !filepath.IsLocal(filepath.FromSlash(rel)) {
		return missing, ""
	}
	st, err := os.Lstat(filepath.Join(root, filepath.FromSlash(rel)))
	switch {
	case err == nil && st.Mode().IsRegular() && under:
		return found, raw
	case err == nil && st.Mode().IsRegular():
		at := url.URL{Scheme: "file", Path: path.Join(served, rel), RawQuery: u.RawQuery}
		return found, at.String()
	case under:
		return missing, ""
	}
	return blocked, ""
}
