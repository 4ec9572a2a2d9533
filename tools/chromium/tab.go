package chromium

import (
	"context"
	"errors"
	"net/url"
	"path"
	"sync"
	"sync/atomic"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/cdproto/storage"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"
)

// tab is a tab in a browser context of its own (like an incognito window)
// that prints one job at a time, and job after job: a new tab costs a new
// renderer process, which was most of a job's time (on a busy 2-core node
// about 0.6 s of the 1 s a table page of seven A4 pages took), so a tab
// whose job ended cleanly is reset and kept for the next job.
//
// What one job leaves cannot reach the next job of the tab:
//   - the tab serves only the current job's files (a folder of random
//     name, see stageSite), and blocks any other file://;
//   - after a job the tab goes to about:blank, its history and window.name
//     are dropped and everything stored for file:// pages is cleared
//     (Chromium keeps it under one origin, per browser context);
//   - the back-forward cache is off (flags) and the tab's HTTP cache is
//     disabled;
//   - a tab whose job failed or was canceled, or whose browser context
//     holds another target afterwards (a window the page opened lives on),
//     is closed, not reused.
type tab struct {
	ctx       context.Context
	close     context.CancelFunc
	id        target.ID
	contextID cdp.BrowserContextID
	site      atomic.Pointer[site] // the job being served; nil between jobs
}

// site is one job's files as its tab serves them.
type site struct {
	root string // the directory holding index.html, on this host
	// served is root as the jailed browser sees it: the page loads
	// file://served/index.html and reads its files there itself.
	served  string
	blocked atomic.Int64 // requests refused
	// remote, when set, makes the site a web page fetched from its own
	// address (url-to-pdf): root and served are then unused.
	remote *remote
}

// newSite returns the site of a job whose files are at root on this host
// and at served in the browser's jail (see stageSite).
func newSite(root, served string) *site {
	return &site{root: root, served: served}
}

// start is the address the job's tab loads: index.html, or the remote
// page's.
func (s *site) start() string {
	if s.remote != nil {
		return s.remote.start
	}
	return (&url.URL{Scheme: "file", Path: path.Join(s.served, "index.html")}).String()
}

// resetTimeout bounds the reset of a tab between jobs.
const resetTimeout = 5 * time.Second

// takeTab returns a tab for a job: an idle one; else a new one while
// fewer than maxTabs are open; else the next one whose reset ends (a
// reset takes a fraction of a tab's opening). A job canceled meanwhile
// gets ctx's error at once; a tab it was opening is closed in the
// background once open.
func (i *instance) takeTab(ctx context.Context, maxTabs int) (*tab, error) {
	for {
		i.tabsMu.Lock()
		if n := len(i.idle); n > 0 {
			t := i.idle[n-1]
			i.idle = i.idle[:n-1]
			i.tabsMu.Unlock()
			if t.ctx.Err() == nil {
				return t, nil
			}
			i.dropTab(t, true)
			continue
		}
		if i.tabs < maxTabs || i.resetting == 0 {
			i.tabs++
			i.tabsMu.Unlock()
			return i.openTabFor(ctx)
		}
		done := i.resetDone
		i.tabsMu.Unlock()
		select {
		case <-done:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// openTabFor opens a tab counted in i.tabs, uncounting it if the opening
// fails or ctx ends first.
func (i *instance) openTabFor(ctx context.Context) (*tab, error) {
	open := func() (*tab, error) {
		t, err := i.openTab()
		if err != nil {
			i.uncount()
		}
		return t, err
	}
	return unlessDone(ctx, open, func(t *tab) { i.dropTab(t, false) })
}

// uncount forgets a tab in i.tabs.
func (i *instance) uncount() {
	i.tabsMu.Lock()
	i.tabs--
	i.tabsMu.Unlock()
}

// dropTab closes t, in the background or not.
func (i *instance) dropTab(t *tab, background bool) {
	i.uncount()
	if background {
		go t.close()
	} else {
		t.close()
	}
}

// openTab opens a tab in a new browser context, with every request it
// makes intercepted (serveRequests), its dialogs dismissed and its HTTP
// cache disabled. The tab lives until its close is called or the browser
// dies; it has no deadline (a deadline on a context's first Run would
// bind the tab's life to it). Tabs are not opened ahead of jobs: on a
// small node the background opening slows the running jobs more than it
// saves.
func (i *instance) openTab() (*tab, error) {
	ctx, cancel := chromedp.NewContext(i.ctx, chromedp.WithNewBrowserContext())
	if err := chromedp.Do(ctx); err != nil {
		cancel()
		return nil, err
	}
	i.opened.Add(1)
	c := chromedp.FromContext(ctx)
	t := &tab{ctx: ctx, close: cancel, id: c.Target.TargetID, contextID: c.BrowserContextID}
	go t.serveRequests(chromedp.Events(ctx, fetch.RequestPaused))
	go dismissDialogs(ctx, chromedp.Events(ctx, page.JavascriptDialogOpening))
	enable := fetch.EnableParams{Patterns: []*fetch.RequestPattern{{URLPattern: "*"}}}
	if _, err := chromedp.Call(ctx, fetch.Enable, enable); err != nil {
		cancel()
		return nil, err
	}
	if _, err := chromedp.Call(ctx, network.SetCacheDisabled, network.SetCacheDisabledParams{CacheDisabled: true}); err != nil {
		cancel()
		return nil, err
	}
	return t, nil
}

// crashTimeout bounds the wait for the answer to Page.crash, which a
// renderer that crashed may never give.
const crashTimeout = 500 * time.Millisecond

// crash ends the renderer process of t's page at once, with the frames
// and the windows of the page that live in it: CDP's Page.crash, which
// the renderer carries out on its I/O thread, so a script that never
// yields cannot hold it off. It is for a job that ran out of time or was
// canceled, before its tab is closed: closing alone leaves the renderer
// to Chromium's own shutdown of the tab's browser context, which lets it
// run on for a while (seconds on a busy node). Each tab is a browser
// context of its own, and Chromium never shares a renderer process
// between browser contexts, so no other job's page is in that process.
func (t *tab) crash() {
	ctx, cancel := context.WithTimeout(t.ctx, crashTimeout)
	defer cancel()
	_, _ = chromedp.Call(ctx, page.Crash, cdp.Empty{})
}

// putBack starts the reset of t after job s, in the background: a tab
// that resets cleanly joins inst's idle tabs; any other is closed.
func (i *instance) putBack(t *tab, s *site) {
	i.tabsMu.Lock()
	i.resetting++
	i.tabsMu.Unlock()
	go func() {
		err := t.reset(s)
		i.tabsMu.Lock()
		i.resetting--
		ok := err == nil && !i.dead()
		if ok {
			i.idle = append(i.idle, t)
		}
		close(i.resetDone)
		i.resetDone = make(chan struct{})
		i.tabsMu.Unlock()
		if !ok {
			i.dropTab(t, false)
		}
	}()
}

// fileOrigin is the origin Chromium stores the data of file:// pages
// under: every job's page, one after the other in a tab (each tab is a
// browser context of its own, so pages of two tabs never share it).
const fileOrigin = "file://"

// errOtherTarget reports a tab whose browser context holds a target
// beside the tab, such as a window its page opened.
var errOtherTarget = errors.New("chromium: the tab's browser context holds another target")

// reset readies t for another job after job s: about:blank, no history,
// no viewport size or emulated media, no window.name, nothing stored for s's origin, and no target of a page in t's browser
// context but the tab.
func (t *tab) reset(s *site) error {
	ctx, cancel := context.WithTimeout(t.ctx, resetTimeout)
	defer cancel()
	// The page's renderer caches its origin's storage, which
	// ClearDataForOrigin below was seen to reach only after the next
	// page of the origin read it (TestJobsIsolated, on a busy node): the
	// page's storage is emptied from the page first as well. A page may
	// replace clear in its own world; ClearDataForOrigin still runs.
	if _, err := chromedp.Call(ctx, runtime.Evaluate, runtime.EvaluateParams{
		Expression: `try { localStorage.clear(); sessionStorage.clear() } catch (e) {}`,
	}); err != nil {
		return err
	}
	if err := chromedp.Do(ctx, chromedp.Navigate("about:blank")); err != nil {
		return err
	}
	// The four commands that follow the navigation are sent at once, not
	// one after another's answer: they are independent, and a job that
	// finds no idle tab waits for a reset, so on a busy node its round
	// trips would be that job's time. The targets are listed after all
	// of them, as long after the page's end as before.
	var history, metrics, name, stored error
	var wg sync.WaitGroup
	wg.Go(func() { _, history = chromedp.Call(ctx, page.ResetNavigationHistory, cdp.Empty{}) })
	// A screenshot job sized the viewport (setViewport).
	// A PDF job with media=screen set the emulated media; "" ends it.
	wg.Go(func() {
		_, metrics = chromedp.Call(ctx, emulation.ClearDeviceMetricsOverride, cdp.Empty{})
		if metrics == nil {
			_, metrics = chromedp.Call(ctx, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{})
		}
	})
	// window.name belongs to the tab, not to a page: it outlives the
	// navigation to about:blank, whose document has no script of the
	// job's to stop this.
	wg.Go(func() {
		_, name = chromedp.Call(ctx, runtime.Evaluate, runtime.EvaluateParams{Expression: `window.name = ""`})
	})
	wg.Go(func() {
		clear := storage.ClearDataForOriginParams{Origin: fileOrigin, StorageTypes: "all"}
		_, stored = chromedp.Call(ctx, storage.ClearDataForOrigin, clear)
	})
	wg.Wait()
	if err := errors.Join(history, metrics, name, stored); err != nil {
		return err
	}
	targets, err := chromedp.CallBrowser(ctx, target.GetTargets, target.GetTargetsParams{})
	if err != nil {
		return err
	}
	for _, info := range targets.TargetInfos {
		// The browser's own window parts (browser_ui, such as the
		// omnibox popup of the tab's window) are not the page's.
		if info.BrowserContextID == t.contextID && info.TargetID != t.id && info.Type != "browser_ui" {
			return errOtherTarget
		}
	}
	return nil
}
