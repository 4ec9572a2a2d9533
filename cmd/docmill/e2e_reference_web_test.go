package main

import (
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
)

// referenceInBrowser opens /docs in Chromium and records every request
// the page makes and every console message: all requests go to the
// server's own origin, nothing is written at error level (a blocked
// inline script or style would be), the language buttons show one
// language's examples, and a copy button copies.
func referenceInBrowser(t *testing.T, base string) {
	b := newBrowser(t)
	if _, err := chromedp.Call(b.ctx, network.Enable, network.EnableParams{}); err != nil {
		t.Fatal(err)
	}
	var (
		mu       sync.Mutex
		urls     []string
		messages []chromedp.ConsoleMessage
	)
	requests := chromedp.Events(b.ctx, network.RequestWillBeSent)
	console := chromedp.Console(b.ctx)
	go func() { // both end when the browser's context does
		for ev, err := range requests {
			if err != nil {
				return
			}
			mu.Lock()
			urls = append(urls, ev.Request.URL)
			mu.Unlock()
		}
	}()
	go func() {
		for m, err := range console {
			if err != nil {
				return
			}
			mu.Lock()
			messages = append(messages, m)
			mu.Unlock()
		}
	}()
	b.run(chromedp.Navigate(base + "/docs"))
	b.wait(`document.body.dataset.lang === "curl" && document.readyState === "complete"`, 20*time.Second)

	visible := `[...document.querySelectorAll("#tool-merge-pdf .sample")].filter((f) => getComputedStyle(f).display !== "none").map((f) => f.dataset.lang).join()`
	if got := b.eval(visible); got != "curl" {
		t.Errorf("examples shown at first: %q, want curl", got)
	}
	b.run(chromedp.Click(chromedp.CSS(`.lang-button[data-lang="python"]`)))
	if got := b.eval(visible); got != "python" {
		t.Errorf("examples shown after choosing Python: %q", got)
	}
	b.run(chromedp.Click(chromedp.CSS(`#tool-merge-pdf .sample[data-lang="python"] button.copy`)))
	b.wait(`document.querySelector('#tool-merge-pdf .sample[data-lang="python"] button.copy').textContent !== "Copy"`, 5*time.Second)
	if n := b.eval(`String(document.querySelectorAll("article.tool").length)`); n < "2" {
		t.Errorf("%s tools on the page", n)
	}
	b.run(chromedp.Navigate(base + "/docs")) // the choice is kept
	b.wait(`document.body.dataset.lang === "python"`, 10*time.Second)

	// A sentinel request, made after everything above: the browser
	// reports requests in order, so once it is seen every earlier request
	// of the page has been too.
	b.eval(`fetch("/healthz?sentinel"); "sent"`)
	eventually(t, 10*time.Second, "the sentinel request", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return slices.ContainsFunc(urls, func(u string) bool { return strings.HasSuffix(u, "/healthz?sentinel") })
	})
	own, _ := url.Parse(base)
	mu.Lock()
	defer mu.Unlock()
	if len(urls) < 6 {
		t.Errorf("requests seen: %v", urls)
	}
	for _, u := range urls {
		if p, err := url.Parse(u); err != nil || p.Host != own.Host || p.Scheme != own.Scheme {
			t.Errorf("the page requested %s", u)
		}
	}
	for _, m := range messages {
		if m.Type == chromedp.ConsoleError || m.IsException() {
			t.Errorf("console: %s (%s)", m, m.URL)
		}
	}
}
