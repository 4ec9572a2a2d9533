package chromium

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/cdproto/network"

	docmill "github.com/docmill/docmill"
)

// Doer sends the requests of the URL tools' pages. The server gives an
// outbound client, which holds every connection to its address rules at
// dial time (no private address unless --allow-private-urls); it must
// follow no redirects, so that each hop goes back through the tab's
// interception and these rules.
type Doer interface {
	Do(req *http.Request) (*http.Response, error)
}

// Bounds of the fetches of one URL job beside the job's limits
// (FetchRequests, FetchBytes, FetchResponseBytes). The whole job is also
// bounded by the tool's timeout.
const (
	// remoteRequestTimeout bounds one request, its body included.
	remoteRequestTimeout = 20 * time.Second
	// remoteParallel bounds the requests of a job in flight at once.
	remoteParallel = 6
)

// forwardedRequestHeaders are the headers of the page's requests sent on:
// content negotiation only. Cookies, credentials and the page's own
// headers are not (the client sends its own User-Agent).
var forwardedRequestHeaders = []string{"Accept", "Accept-Language"}

// forwardedResponseHeaders are the headers of an answer given to
// Chromium: the type, the redirect target and what cross-origin fonts and
// scripts need. Set-Cookie is not: the page's requests carry no cookies
// (nothing is sent but forwardedRequestHeaders), so a cookie could only
// hand one job's state to the page; nor is Content-Disposition, which
// would make a document a download.
var forwardedResponseHeaders = []string{
	"Content-Type", "Location", "Content-Language",
	"Access-Control-Allow-Origin", "Access-Control-Allow-Credentials", "Access-Control-Allow-Headers",
	"Access-Control-Allow-Methods", "Access-Control-Expose-Headers",
}

// remote is the web page of a URL job as its tab fetches it: every
// request the page makes (the document, each hop of a redirect, every
// subresource) is a GET sent through client within the job's bounds.
type remote struct {
	ctx    context.Context // the job's; its end stops every fetch
	client Doer
	start  string // the page's address
	sem    chan struct{}
	// maxResponse bounds one response's body, decoded (it also travels
	// base64 over the DevTools pipe, so it is held about three times
	// while it is given to Chromium); maxBytes the bodies of all the
	// job's responses, charged as they are read: what its fetches hold
	// in memory at once, before the copies made to hand them over;
	// maxRequests its requests, redirects included.
	maxResponse, maxBytes, maxRequests int64

	requests atomic.Int64 // requests sent
	bytes    atomic.Int64 // body bytes received

	mu sync.Mutex
	// status is the HTTP status of the main frame's last document
	// (redirects included); failure, why its last fetch got no answer.
	status  int
	failure string
}

// newRemote returns the remote site of a job that loads start, within
// the Fetch fields of the job's limits l (a zero field: its default).
func newRemote(ctx context.Context, client Doer, start string, l docmill.Limits) *remote {
	l = l.WithDefaults()
	return &remote{ctx: ctx, client: client, start: start, sem: make(chan struct{}, remoteParallel),
		maxResponse: l.FetchResponseBytes, maxBytes: l.FetchBytes, maxRequests: int64(l.FetchRequests)}
}

// answer is a fetched response as Chromium gets it.
type answer struct {
	status  int64
	headers []*fetch.HeaderEntry
	body    []byte
}

// errBlocked marks a request the rules refuse; its text is the reason,
// safe to show.
type errBlocked string

func (e errBlocked) Error() string { return string(e) }

// fetch answers one request of the page: a GET of an http or https URL
// without user information, within the job's request and byte budgets,
// sent through the client; its answer is given back as it is, a redirect
// too (Chromium follows its Location, which comes back here). Any other
// request, a refused address, a failed connection and a body past the
// bounds give an errBlocked. main says the request is the main frame's
// document, whose status and failure the job reports (mainResult).
func (r *remote) fetch(method, raw string, headers network.Headers, main bool) (answer, error) {
	a, err := r.fetchOne(method, raw, headers)
	if main {
		r.mu.Lock()
		if err != nil {
			r.failure = err.Error()
		} else {
			r.status, r.failure = int(a.status), ""
		}
		r.mu.Unlock()
	}
	return a, err
}

func (r *remote) fetchOne(method, raw string, headers network.Headers) (answer, error) {
	u, err := url.Parse(raw)
	switch {
	case err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "":
		return answer{}, errBlocked("only http:// and https:// addresses are fetched")
	case u.User != nil:
		return answer{}, errBlocked("an address with a user name or password is refused")
	case method != http.MethodGet:
		return answer{}, errBlocked("only GET requests are sent")
	case r.requests.Add(1) > r.maxRequests:
		return answer{}, errBlocked(fmt.Sprintf("the page made more than %d requests", r.maxRequests))
	}
	select {
	case r.sem <- struct{}{}:
		defer func() { <-r.sem }()
	case <-r.ctx.Done():
		return answer{}, errBlocked("the job ended")
	}
	ctx, cancel := context.WithTimeout(r.ctx, remoteRequestTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, raw, nil)
	if err != nil {
		return answer{}, errBlocked("the address is malformed")
	}
	for _, name := range forwardedRequestHeaders {
		for k, v := range headers {
			if s, ok := v.(string); ok && strings.EqualFold(k, name) {
				req.Header.Set(name, s)
			}
		}
	}
	resp, err := r.client.Do(req)
	if err != nil {
		return answer{}, errBlocked(fetchReason(err))
	}
	defer resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 599 {
		return answer{}, errBlocked(fmt.Sprintf("the server answered HTTP %d", resp.StatusCode))
	}
	if resp.ContentLength > r.maxResponse {
		return answer{}, errBlocked(fmt.Sprintf("a response was larger than %d bytes", r.maxResponse))
	}
	overBudget := errBlocked(fmt.Sprintf("the page's responses came to more than %d bytes", r.maxBytes))
	if resp.ContentLength > 0 && r.bytes.Load()+resp.ContentLength > r.maxBytes {
		return answer{}, overBudget
	}
	body, err := io.ReadAll(io.LimitReader(&budgetReader{r: resp.Body, used: &r.bytes, max: r.maxBytes}, r.maxResponse+1))
	switch {
	case errors.Is(err, errOverBudget):
		return answer{}, overBudget
	case err != nil:
		return answer{}, errBlocked("the transfer broke off or took too long")
	case int64(len(body)) > r.maxResponse:
		return answer{}, errBlocked(fmt.Sprintf("a response was larger than %d bytes", r.maxResponse))
	}
	a := answer{status: int64(resp.StatusCode), body: body}
	for _, name := range forwardedResponseHeaders {
		for _, v := range resp.Header.Values(name) {
			a.headers = append(a.headers, &fetch.HeaderEntry{Name: name, Value: v})
		}
	}
	a.headers = append(a.headers, &fetch.HeaderEntry{Name: "Cache-Control", Value: "no-store"})
	return a, nil
}

// errOverBudget is budgetReader's error once the job's bytes are spent.
var errOverBudget = errors.New("chromium: the page's byte budget is spent")

// budgetReader charges every byte it reads to a job's budget (used, at
// most max) as it reads, not once a body is whole, so that the requests
// a page has in flight at once cannot together hold more than the budget
// in memory.
type budgetReader struct {
	r    io.Reader
	used *atomic.Int64
	max  int64
}

func (b *budgetReader) Read(p []byte) (int, error) {
	n, err := b.r.Read(p)
	if b.used.Add(int64(n)) > b.max {
		return n, errOverBudget
	}
	return n, err
}

// fetchReason says why a request got no answer, without the details of
// this node's network (resolver addresses, local ports).
func fetchReason(err error) string {
	var t interface{ Timeout() bool }
	switch {
	case errors.Is(err, docmill.ErrInternalAddress):
		return "its address is private, loopback, link-local or otherwise internal, and is refused"
	case errors.Is(err, docmill.ErrInsecureURL):
		return "only https:// addresses are fetched"
	case errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &t) && t.Timeout()):
		return fmt.Sprintf("the server did not answer within %v", remoteRequestTimeout)
	case errors.Is(err, context.Canceled):
		return "the job ended"
	}
	return "the connection failed"
}

// mainResult is the job's error when the page itself could not be had:
// fetch_failed (field url) when its document got no answer or an HTTP
// error status (4xx, 5xx), with the reason; nil otherwise.
func (r *remote) mainResult() error {
	r.mu.Lock()
	status, failure := r.status, r.failure
	r.mu.Unlock()
	switch {
	case failure != "":
		return pageFailed(failure)
	case status >= 400:
		return pageFailed(fmt.Sprintf("the server answered HTTP %d", status))
	case status == 0:
		return pageFailed("the page was not loaded")
	}
	return nil
}

// pageFailed is the fetch_failed error of a page that could not be had.
func pageFailed(reason string) *docmill.Error {
	return &docmill.Error{
		Code:    docmill.CodeFetchFailed,
		Message: "Could not load the page at url: " + reason + ".",
		Fields:  []docmill.FieldError{{Field: paramURL, Message: reason}},
	}
}
