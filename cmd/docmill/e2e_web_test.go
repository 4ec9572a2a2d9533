package main

import (
	"cmp"
	"context"
	"encoding/json"
	"github.com/docmill/docmill/tools/chromium"
	"image"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/docmill/docmill/tools/toolstest"
)

// screenshotDir is where the web test saves the screenshots of the main
// states for a reviewer (git-ignored).
const screenshotDir = "../../screenshots"

// browser drives headless Chromium through one page of the interface.
type browser struct {
	t   *testing.T
	ctx context.Context
	// width is the viewport's width; phone is set when it emulates one.
	width int64
	phone bool
	// dir is where shot saves screenshots; "" is screenshotDir.
	dir string
}

func newBrowser(t *testing.T) *browser {
	t.Helper()
	exe := chromium.ExecPath()
	toolstest.NeedAt(t, "chromium", exe)
	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(),
		chromedp.ExecPath(exe), chromedp.UserDataDir(t.TempDir()), chromedp.Headless, chromedp.NoSandbox,
		chromedp.DisableGPU, chromedp.NoFirstRun, chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("lang", "en-US"))
	ctx, cancel := chromedp.NewContext(alloc)
	t.Cleanup(func() { cancel(); cancelAlloc() })
	b := &browser{t: t, ctx: ctx}
	b.resize(1280, 900, false)
	return b
}

// resize sets the viewport (a phone's is a touch screen at twice the
// density).
func (b *browser) resize(width, height int64, phone bool) {
	b.t.Helper()
	b.width, b.phone = width, phone
	opts := []chromedp.EmulateViewportOption{}
	if phone {
		opts = append(opts, chromedp.EmulateScale(2), chromedp.EmulateMobile)
	}
	b.run(chromedp.EmulateViewport(width, height, opts...))
}

func (b *browser) run(actions ...chromedp.Action[chromedp.Void]) {
	b.t.Helper()
	if err := chromedp.Do(b.ctx, actions...); err != nil {
		b.t.Fatal(err)
	}
}

// wait polls a JavaScript condition.
func (b *browser) wait(expr string, timeout time.Duration) {
	b.t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		_, err := chromedp.Run(b.ctx, chromedp.Poll[bool](expr, chromedp.WithPollingTimeout(time.Until(deadline))))
		if err == nil {
			return
		}
		// A reload or navigation replaces the page's JavaScript context
		// while the poll runs in the old one; the poll starts again in
		// the new one, within the same deadline.
		if contextReplaced(err) && time.Now().Before(deadline) {
			continue
		}
		b.t.Fatalf("waiting for %s: %v\npage error: %s", expr, err, b.eval(`document.getElementById("tool-error").textContent`))
	}
}

// contextReplaced reports whether err says the page's execution context
// went away under a call, as it does when the page navigates.
func contextReplaced(err error) bool {
	msg := err.Error()
	return strings.Contains(msg, "Cannot find context with specified id") ||
		strings.Contains(msg, "Execution context was destroyed")
}

func (b *browser) eval(expr string) string {
	b.t.Helper()
	s, err := chromedp.Run(b.ctx, chromedp.Evaluate[string](expr))
	if err != nil {
		b.t.Fatalf("%s: %v", expr, err)
	}
	return s
}

// shot saves a screenshot of the whole page as name.png.
func (b *browser) shot(name string) {
	b.t.Helper()
	// Chromium paints beyond the viewport poorly, so the viewport grows to
	// the page's height for the shot.
	height, err := strconv.ParseInt(b.eval(`document.documentElement.scrollHeight + ""`), 10, 64)
	if err != nil {
		b.t.Fatal(err)
	}
	width, phone := b.width, b.phone
	b.resize(width, height, phone)
	png, err := chromedp.Run(b.ctx, chromedp.FullScreenshot(100))
	if err != nil {
		b.t.Fatal(err)
	}
	b.resize(width, 900, phone)
	dir := cmp.Or(b.dir, screenshotDir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		b.t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name+".png"), png, 0o644); err != nil {
		b.t.Fatal(err)
	}
}

// throttleUpload limits the browser's upload rate to bytesPerSec (-1: none),
// so that the upload progress can be seen.
func (b *browser) throttleUpload(bytesPerSec float64) {
	b.t.Helper()
	if _, err := chromedp.Call(b.ctx, network.Enable, network.EnableParams{}); err != nil {
		b.t.Fatal(err)
	}
	_, err := chromedp.Call(b.ctx, network.EmulateNetworkConditionsByRule, network.EmulateNetworkConditionsByRuleParams{
		MatchedNetworkConditions: []*network.Conditions{{DownloadThroughput: -1, UploadThroughput: bytesPerSec}},
	})
	if err != nil {
		b.t.Fatal(err)
	}
}

// setLang picks a language in the header's switch.
func (b *browser) setLang(l string) {
	b.eval(`(() => { const s = document.getElementById("lang"); s.value = "` + l + `"; s.dispatchEvent(new Event("change")); return ""; })()`)
}

// signIn opens the web interface at base with key stored, as after a
// developer pasted it on the keys page, and waits until it is ready.
func (b *browser) signIn(base, key string) {
	b.run(chromedp.Navigate(base + "/"))
	b.eval(`(() => { localStorage.setItem("docmill.key", "` + key + `"); return ""; })()`)
	b.run(chromedp.Reload())
	b.wait(`document.body.dataset.ready === "1"`, 20*time.Second)
}

func (b *browser) openTool(slug string) {
	b.eval(`(() => { location.hash = "#/tool/` + slug + `"; return ""; })()`)
	b.wait(`!document.getElementById("tool").hidden && document.querySelector("#params") !== null`, 10*time.Second)
}

// choose sets the files of the tool's file input, as picking them would.
func (b *browser) choose(paths ...string) {
	abs := make([]string, len(paths))
	for i, p := range paths {
		a, err := filepath.Abs(p)
		if err != nil {
			b.t.Fatal(err)
		}
		abs[i] = a
	}
	b.run(chromedp.SetUploadFiles(chromedp.ID("file-input"), abs))
}

// download fetches the result link of the result panel.
func (b *browser) download() []byte {
	b.t.Helper()
	return download(b.t, b.eval(`document.getElementById("result-link").href`))
}

// TestWebInterface drives the real interface in headless Chromium against
// a real server: the catalogue before a sign-in, a pasted key, compress-pdf, merge-pdf with reordered files, a
// 400 shown next to its control, Russian, a phone-width screen, labels and
// contrast, the jobs view. It saves screenshots of the main states in screenshots/.
func TestWebInterface(t *testing.T) {
	t.Parallel()
	// --allow-private-urls: webJobs' long job loads a page on loopback.
	srv := startServer(t, "", "--signup", "open", "--allow-private-urls")
	b := newBrowser(t)
	b.run(chromedp.Navigate(srv.URL + "/"))
	b.wait(`document.body.dataset.ready === "1" && document.querySelectorAll("a.card").length > 20`, 20*time.Second)
	b.shot("1-tools")

	webCatalogue(b, srv.URL)
	webBrowseCatalogue(b, srv.URL)
	webSignIn(b, srv)
	webCompress(b)
	webMerge(b)
	webFieldError(b)
	webRussian(b)
	webPhone(b)
	webJobs(b, srv.URL)
}

// webCatalogue: a card for every tool of the catalogue, every tool, param
// and choice translated, and text contrast.
func webCatalogue(b *browser, base string) {
	t := b.t
	// Every tool of the catalogue has a card.
	var catalog struct {
		Tools []struct {
			Slug   string
			Params []struct {
				Name string
				Enum []string
			}
		} `json:"tools"`
	}
	res, err := http.Get(base + "/v1/tools")
	if err != nil {
		t.Fatal(err)
	}
	_ = json.NewDecoder(res.Body).Decode(&catalog)
	res.Body.Close()
	if got := b.eval(`document.querySelectorAll(".card").length + ""`); got != strconv.Itoa(len(catalog.Tools)) {
		t.Errorf("%s cards for %d tools", got, len(catalog.Tools))
	}
	checkContrast(b)

	// Every tool, param and choice has its words in both languages.
	var dict map[string]map[string]string
	raw, err := os.ReadFile("../../web/static/i18n.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &dict); err != nil {
		t.Fatal(err)
	}
	for _, tool := range catalog.Tools {
		keys := []string{"tool." + tool.Slug + ".title", "tool." + tool.Slug + ".desc"}
		for _, p := range tool.Params {
			keys = append(keys, "param."+tool.Slug+"."+p.Name, "help."+tool.Slug+"."+p.Name)
			for _, v := range p.Enum {
				keys = append(keys, "enum."+tool.Slug+"."+p.Name+"."+v)
			}
		}
		for _, k := range keys {
			for _, l := range []string{"en", "ru"} {
				if dict[l][k] == "" {
					t.Errorf("i18n.json: %s has no %q", l, k)
				}
			}
		}
	}

}

// webSignIn uses the interface with a key the operator made, pasted as a
// developer would (the mailed sign-up and the session are TestWebAccounts').
func webSignIn(b *browser, srv *testServer) {
	t := b.t
	b.signIn(srv.URL, newKey(t, srv.DataDir, "free"))
	b.wait(`document.querySelector("#account meter") !== null`, 10*time.Second)
	if got := b.eval(`document.getElementById("account").textContent`); !strings.Contains(got, "Plan: Free") || !strings.Contains(got, "0 of 100 operations") {
		t.Errorf("account %q", got)
	}
	if got := b.eval(`document.getElementById("signin-open").hidden + " " + document.getElementById("signout").hidden`); got != "true false" {
		t.Errorf("signed in: Sign in hidden, Sign out hidden = %q, want true false", got)
	}
}

// webPicturesPDF is a generated PDF of two pages of pictures at 650 dpi,
// about 2.2 MB: an upload long enough to show progress when throttled,
// which compress-pdf makes much smaller.
var webPicturesPDF = sync.OnceValue(func() []byte {
	return toolstest.ImagePDF([]image.Image{toolstest.Picture(1300, 1300, 1)}, []image.Image{toolstest.Picture(1300, 1300, 2)})
})

// webCompress runs compress-pdf on a generated file and checks the result.
func webCompress(b *browser) {
	t := b.t
	in := webPicturesPDF()
	// compress-pdf: upload (throttled, so that the progress shows), wait,
	// download a smaller PDF with the same pages.
	b.openTool("compress-pdf")
	b.choose(toolstest.WriteTemp(t, "pictures.pdf", in))
	b.wait(`document.querySelectorAll("#file-list li").length === 1`, 5*time.Second)
	mb := strconv.FormatFloat(math.Round(float64(len(in))/(1<<20)*10)/10, 'f', -1, 64) // as fmtSize shows it
	if got := b.eval(`document.querySelector("#file-list li").textContent`); !strings.Contains(got, "pictures.pdf") || !strings.Contains(got, mb+"\u00a0MB") {
		t.Errorf("file item %q", got)
	}
	if got := b.eval(`[...document.querySelectorAll('[data-param="preset"] label')].map(l => l.textContent).join("|")`); got == "" {
		t.Error("preset is not a segmented control")
	}
	b.shot("2-tool-files")
	b.throttleUpload(1 << 20)
	b.run(chromedp.Click(chromedp.ID("start")))
	b.wait(`/\d+%.*\/s/.test(document.getElementById("progress-text").textContent)`, 20*time.Second)
	b.shot("3-progress")
	b.throttleUpload(-1)
	b.wait(`!document.getElementById("result").hidden`, 60*time.Second)
	b.shot("4-result")
	saved := b.eval(`document.getElementById("result-saved").textContent`)
	if !strings.Contains(saved, "→") || !strings.Contains(saved, "% smaller") {
		t.Errorf("saving %q", saved)
	}
	if got := b.eval(`document.getElementById("result-expiry").textContent`); !strings.HasPrefix(got, "Available until") {
		t.Errorf("expiry %q", got)
	}
	out := b.download()
	if !strings.HasPrefix(string(out), "%PDF-") || len(out) >= len(in) {
		t.Errorf("compressed result: %d bytes from %d", len(out), len(in))
	}
	if got, want := len(pdfPages(t, out)), len(pdfPages(t, in)); got != want {
		t.Errorf("compressed result has %d pages, want %d", got, want)
	}
	b.wait(`document.getElementById("account").textContent.includes("1 of 100")`, 5*time.Second)

}

// webMerge merges two PDFs after reordering them.
func webMerge(b *browser) {
	t := b.t
	// merge-pdf: two files, reordered by dragging the second above the
	// first, then the pages of the result are in the new order.
	b.run(chromedp.Click(chromedp.ID("again")))
	b.openTool("merge-pdf")
	b.choose(toolstest.WriteTemp(t, "four-pages.pdf", fourPagePDF), toolstest.WriteTemp(t, "one-page.pdf", onePagePDF()))
	b.wait(`document.querySelectorAll("#file-list li").length === 2`, 5*time.Second)
	b.eval(`(() => {
		const items = document.querySelectorAll("#file-list li");
		const dt = new DataTransfer();
		items[1].dispatchEvent(new DragEvent("dragstart", { dataTransfer: dt, bubbles: true }));
		items[0].dispatchEvent(new DragEvent("dragover", { dataTransfer: dt, bubbles: true, cancelable: true }));
		items[0].dispatchEvent(new DragEvent("drop", { dataTransfer: dt, bubbles: true, cancelable: true }));
		return "";
	})()`)
	order := `[...document.querySelectorAll("#file-list .name")].map(e => e.textContent).join(",")`
	if got := b.eval(order); got != "one-page.pdf,four-pages.pdf" {
		t.Fatalf("order after dragging: %s", got)
	}
	// The buttons do the same from the keyboard: down, then back up.
	b.run(chromedp.Click(chromedp.CSS(`#file-list li:first-child button.down`)))
	if got := b.eval(order); got != "four-pages.pdf,one-page.pdf" {
		t.Fatalf("order after moving down: %s", got)
	}
	if got := b.eval(`document.activeElement.className + " " + document.activeElement.closest("li").dataset.index`); got != "icon up 1" {
		t.Errorf("focus after moving down: %q", got)
	}
	b.run(chromedp.KeyEvent(kb.Enter))
	if got := b.eval(order); got != "one-page.pdf,four-pages.pdf" {
		t.Fatalf("order after moving up: %s", got)
	}
	b.run(chromedp.Click(chromedp.ID("start")))
	b.wait(`!document.getElementById("result").hidden`, 60*time.Second)
	merged := b.download()
	if n := len(pdfPages(t, merged)); n != 5 {
		t.Fatalf("merged %d pages, want 5", n)
	}
	if got, want := firstWords(pageText(t, merged, 1)), firstWords(pageText(t, onePagePDF(), 1)); got != want {
		t.Errorf("merged page 1 %q, want one-page's %q", got, want)
	}
	if got, want := firstWords(pageText(t, merged, 2)), firstWords(pageText(t, fourPagePDF, 1)); got != want {
		t.Errorf("merged page 2 %q, want four-pages' first %q", got, want)
	}

}

// webFieldError: a 400 about one param shows next to its control.
func webFieldError(b *browser) {
	t := b.t
	// A 400 about one parameter shows the API's detail next to its control.
	b.run(chromedp.Click(chromedp.ID("again")))
	b.openTool("watermark-pdf")
	b.choose(toolstest.WriteTemp(t, "one-page.pdf", onePagePDF()))
	// The colour is a picker and cannot be wrong; text the stamp font
	// cannot draw is refused by the API.
	b.run(chromedp.SendKeys(chromedp.ID("p-text"), "DRAFT 草稿"),
		chromedp.Click(chromedp.ID("start")))
	b.wait(`document.querySelector('.field-error[data-for="text"]').textContent !== ""`, 20*time.Second)
	b.shot("5-error")
	detail := b.eval(`document.querySelector('.field-error[data-for="text"]').textContent`)
	if !strings.Contains(detail, "cannot draw") {
		t.Errorf("text error %q", detail)
	}
	if got := b.eval(`document.getElementById("p-text").getAttribute("aria-invalid") + " " + document.activeElement.id`); got != "true p-text" {
		t.Errorf("invalid control state and focus: %q", got)
	}
	if got := b.eval(`document.getElementById("p-color").type + " " + document.getElementById("p-color").value`); got != "color #808080" {
		t.Errorf("colour control %q, want a colour picker at the default", got)
	}
	// A page selection is checked as it is typed, before any request.
	b.run(chromedp.SetValue(chromedp.ID("p-pages"), "1-x"))
	b.eval(`(() => { document.getElementById("p-pages").dispatchEvent(new Event("input")); return ""; })()`)
	if got := b.eval(`document.querySelector('.field-error[data-for="pages"]').textContent`); got == "" {
		t.Error("an invalid page selection shows no error")
	}
	checkContrast(b)
	checkLabels(b)

}

// webRussian switches to Russian and opens a tool with the keyboard.
func webRussian(b *browser) {
	t := b.t
	// Russian: the switch translates the page, tools and their controls.
	b.setLang("ru")
	if got := b.eval(`document.getElementById("tool-title").textContent + "|" + document.querySelector('label[for="p-opacity"]').textContent + "|" + document.getElementById("start").textContent`); got != "Добавить водяной знак|Непрозрачность|Запустить" {
		t.Errorf("ru tool page %q", got)
	}
	b.eval(`(() => { location.hash = "#/"; return ""; })()`)
	b.wait(`!document.getElementById("catalog").hidden`, 5*time.Second)
	if got := b.eval(`document.getElementById("catalog-heading").textContent + "|" + document.querySelector('.card[data-slug="compress-pdf"] h3').textContent + "|" + document.documentElement.lang`); got != "Все инструменты|Сжать PDF|ru" {
		t.Errorf("ru catalogue %q", got)
	}
	b.shot("6-russian")
	// Keyboard: a card opens with Enter.
	b.eval(`(() => { document.querySelector('a.card[data-slug="rotate-pdf"]').focus(); return ""; })()`)
	b.run(chromedp.KeyEvent(kb.Enter))
	b.wait(`location.hash === "#/tool/rotate-pdf" && !document.getElementById("tool").hidden`, 5*time.Second)
	if got := b.eval(`document.activeElement.id`); got != "tool-title" {
		t.Errorf("focus after opening a tool: %q", got)
	}
	b.setLang("en")

}

// webPhone checks a phone-width screen.
func webPhone(b *browser) {
	// Phone width: nothing scrolls sideways.
	b.resize(375, 740, true)
	for _, hash := range []string{"#/", "#/tool/watermark-pdf"} {
		b.eval(`(() => { location.hash = "` + hash + `"; return ""; })()`)
		b.wait(`document.documentElement.scrollWidth <= window.innerWidth`, 5*time.Second)
	}
	b.shot("7-phone-tool")
	b.eval(`(() => { location.hash = "#/"; return ""; })()`)
	b.shot("8-phone-tools")
}

// checkContrast fails for visible text whose contrast with its background
// is below WCAG AA (4.5:1, or 3:1 for large text); disabled controls are
// exempt, as WCAG allows.
func checkContrast(b *browser) {
	b.t.Helper()
	bad := b.eval(`(() => {
	  const rgb = (s) => (s.match(/[\d.]+/g) || []).map(Number);
	  const lum = ([r, g, b]) => [r, g, b].map((v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; })
	    .reduce((a, v, i) => a + v * [0.2126, 0.7152, 0.0722][i], 0);
	  const bg = (e) => {
	    for (; e; e = e.parentElement) {
	      const c = rgb(getComputedStyle(e).backgroundColor);
	      if (c.length === 3 || c[3] > 0) return c.slice(0, 3);
	    }
	    return [255, 255, 255];
	  };
	  const out = [];
	  for (const e of document.querySelectorAll("body *")) {
	    if (![...e.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim())) continue;
	    if (!e.getClientRects().length || e.closest("[hidden],:disabled,.visually-hidden,.skip,option")) continue;
	    const st = getComputedStyle(e);
	    if (st.visibility === "hidden") continue;
	    const a = lum(rgb(st.color)), c = lum(bg(e));
	    const ratio = (Math.max(a, c) + 0.05) / (Math.min(a, c) + 0.05);
	    const size = parseFloat(st.fontSize), large = size >= 24 || (size >= 18.66 && Number(st.fontWeight) >= 700);
	    if (ratio < (large ? 3 : 4.5)) out.push(e.tagName + "." + e.className + " '" + e.textContent.trim().slice(0, 30) + "' " + ratio.toFixed(2));
	  }
	  return out.join("\n");
	})()`)
	if bad != "" {
		b.t.Errorf("text below WCAG AA contrast:\n%s", bad)
	}
}

// checkLabels fails for a visible form control without an accessible name.
func checkLabels(b *browser) {
	b.t.Helper()
	bad := b.eval(`[...document.querySelectorAll("input,select,button,textarea")]
	  .filter((e) => e.type !== "hidden" && !e.closest("[hidden]"))
	  .filter((e) => !((e.labels && e.labels.length) || e.getAttribute("aria-label") || e.getAttribute("aria-labelledby") || (e.tagName === "BUTTON" && e.textContent.trim())))
	  .map((e) => e.tagName + "#" + e.id + "[" + e.name + "]").join(", ")`)
	if bad != "" {
		b.t.Errorf("controls without a label: %s", bad)
	}
}
