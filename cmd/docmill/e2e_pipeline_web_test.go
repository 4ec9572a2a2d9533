package main

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// TestPipelineWeb drives the chain editor of the web interface in
// headless Chromium against a real server: steps added from the
// catalogue, moved and removed, a 400 naming a step's param shown next to
// that param, then the chain run to a numbered PDF.
func TestPipelineWeb(t *testing.T) {
	t.Parallel()
	srv := startServer(t, "")
	b := newBrowser(t)
	b.signIn(srv.URL, srv.DevKey)
	if got := b.eval(`document.querySelector('[data-group="chain"] a').getAttribute("href")`); got != "#/tool/pipeline" {
		t.Fatalf("the catalogue's chain group links %q", got)
	}
	b.openTool("pipeline")
	b.wait(`document.getElementById("chain-add") !== null`, 5*time.Second)
	add := func(slug string) {
		b.eval(`(() => { document.getElementById("chain-add").value = "` + slug + `"; document.querySelector(".chain-add button").click(); return ""; })()`)
	}
	order := func() string {
		return b.eval(`[...document.querySelectorAll(".chain .step-head select")].map((s) => s.value).join(",")`)
	}
	add("rotate-pdf")
	add("page-numbers")
	add("compress-pdf")
	if got := order(); got != "rotate-pdf,page-numbers,compress-pdf" {
		t.Fatalf("steps %q after adding three", got)
	}
	// Step 3 up, then step 1 away.
	b.eval(`(() => { document.querySelector('.step[data-step="2"] button[aria-label="Move step 3 up"]').click(); return ""; })()`)
	b.eval(`(() => { document.querySelector('.step[data-step="0"] button[aria-label="Remove step 1"]').click(); return ""; })()`)
	if got := order(); got != "compress-pdf,page-numbers" {
		t.Fatalf("steps %q after moving and removing", got)
	}
	b.choose(corpus(t, "pdf", fourPages))
	b.wait(`document.querySelectorAll("#file-list li").length === 1`, 5*time.Second)

	// A bad value of step 2's param: the API's 400 lands next to it.
	setStart := func(v string) {
		b.eval(`(() => { document.querySelector('[name="steps[1].params.start"]').value = "` + v + `"; return ""; })()`)
	}
	setStart("-5")
	b.run(chromedp.Click(chromedp.ID("start")))
	b.wait(`document.querySelector('.field-error[data-for="steps[1].params.start"]').textContent !== ""`, 20*time.Second)
	setStart("1")
	b.run(chromedp.Click(chromedp.ID("start")))
	b.wait(`!document.getElementById("result").hidden`, 60*time.Second)
	out := b.download()
	pages := len(pdfPages(t, out))
	if text := pageText(t, out, 2); !strings.Contains(text, fmt.Sprint(2)) || pages != len(corpusPages(t, fourPages)) {
		t.Errorf("result of %d pages, page 2:\n%s", pages, text)
	}
	// The editor speaks Russian too.
	b.run(chromedp.Click(chromedp.ID("again")))
	if got := order(); got != "" {
		t.Errorf("steps %q after starting again; want none", got)
	}
	add("merge-pdf")
	b.setLang("ru")
	if got := b.eval(`document.querySelector(".chain .step label").textContent`); got != "Шаг 1" {
		t.Errorf("step label in Russian %q", got)
	}
	if got := order(); got != "merge-pdf" {
		t.Errorf("steps %q after the language changed; want them kept", got)
	}
}
