package web

import (
	"context"
	"github.com/docmill/docmill/tools/chromium"
	"github.com/docmill/docmill/tools/toolstest"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// stubTools is the catalogue the browser test serves in place of the API: the
// page's only other boundary.
const stubTools = `{"tools":[
 {"slug":"merge-pdf","title":"Merge PDF","description":"Combine PDFs.","accepts":["application/pdf"],"min_files":2,"max_files":50,
  "params":[],"long":false,"engine":"pdfcpu","available":true,"endpoint":"/v1/merge-pdf/process"},
 {"slug":"compress-pdf","title":"Compress PDF","accepts":["application/pdf"],"min_files":1,"max_files":1,
  "params":[{"name":"preset","type":"string","required":false,"enum":["low","recommended","extreme"],"default":"recommended"},
            {"name":"quality","type":"integer","required":false,"min":1,"max":100}],
  "long":false,"engine":"ghostscript","available":false,"engines":[{"name":"gs","available":false}],"endpoint":"/v1/compress-pdf/process"},
 {"slug":"pdf-to-jpg","title":"PDF to JPG","accepts":["application/pdf"],"min_files":1,"max_files":1,
  "params":[{"name":"dpi","type":"integer","required":false,"min":72,"max":600,"default":"150"},
            {"name":"pages","type":"pages","required":false}],
  "long":false,"engine":"poppler","available":true,"endpoint":"/v1/pdf-to-jpg/process"}]}`

func TestBrowser(t *testing.T) {
	exe := chromium.ExecPath()
	toolstest.NeedAt(t, "chromium", exe)
	mux := http.NewServeMux()
	mux.Handle("GET /{$}", Handler())
	mux.Handle("GET /static/", Handler())
	mux.HandleFunc("GET /v1/tools", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(stubTools))
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()

	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(),
		chromedp.ExecPath(exe), chromedp.UserDataDir(t.TempDir()), chromedp.Headless, chromedp.NoSandbox,
		chromedp.DisableGPU, chromedp.NoFirstRun, chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("lang", "en-US"))
	defer cancelAlloc()
	ctx, cancel := chromedp.NewContext(alloc)
	defer cancel()
	if err := chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/")); err != nil {
		t.Fatal(err)
	}
	wait := func(expr string) {
		t.Helper()
		if _, err := chromedp.Run(ctx, chromedp.Poll[bool](expr, chromedp.WithPollingTimeout(10*time.Second))); err != nil {
			t.Fatalf("waiting for %s: %v", expr, err)
		}
	}
	eval := func(expr string) string {
		t.Helper()
		s, err := chromedp.Run(ctx, chromedp.Evaluate[string](expr))
		if err != nil {
			t.Fatalf("%s: %v", expr, err)
		}
		return s
	}

	wait(`document.querySelectorAll(".card").length === 3`)
	if got := eval(`[...document.querySelectorAll(".group h2")].map(h => h.textContent).join("|")`); got != "PDF|Convert from PDF" {
		t.Errorf("groups %q", got)
	}
	if got := eval(`document.querySelector('.card.disabled[data-slug="compress-pdf"] .reason').textContent`); got != "Unavailable: gs not installed on this server" {
		t.Errorf("unavailable reason %q", got)
	}
	if got := eval(`document.querySelectorAll('a.card[data-slug="compress-pdf"]').length + ""`); got != "0" {
		t.Error("the unavailable tool is a link")
	}

	// Search filters the cards.
	eval(`(() => { const s = document.getElementById("search"); s.value = "merge"; s.dispatchEvent(new Event("input")); return ""; })()`)
	wait(`document.querySelectorAll(".card").length === 1`)
	eval(`(() => { const s = document.getElementById("search"); s.value = ""; s.dispatchEvent(new Event("input")); return ""; })()`)

	// Russian.
	eval(`(() => { const l = document.getElementById("lang"); l.value = "ru"; l.dispatchEvent(new Event("change")); return ""; })()`)
	if got := eval(`document.querySelector("#catalog h1").textContent`); got != "Все инструменты" {
		t.Errorf("ru heading %q", got)
	}
	if got := eval(`document.querySelector('.group[data-group="from-pdf"] h2').textContent`); got != "Конвертировать из PDF" {
		t.Errorf("ru group %q", got)
	}
	eval(`(() => { const l = document.getElementById("lang"); l.value = "en"; l.dispatchEvent(new Event("change")); return ""; })()`)

	// A tool page: controls generated from the params.
	eval(`(() => { location.hash = "#/tool/pdf-to-jpg"; return ""; })()`)
	wait(`!document.getElementById("tool").hidden`)
	if got := eval(`document.getElementById("tool-title").textContent`); got != "PDF to JPG" {
		t.Errorf("tool title %q", got)
	}
	if got := eval(`(() => { const r = document.querySelector('input[name="dpi"]'); return r.type + " " + r.min + "-" + r.max + " " + r.value; })()`); got != "range 72-600 150" {
		t.Errorf("dpi control %q", got)
	}
	if got := eval(`document.querySelector('input[name="pages"]').placeholder`); got != "e.g. 1-3,5,8-" {
		t.Errorf("pages placeholder %q", got)
	}
	if got := eval(`document.getElementById("tool-needkey").hidden + ""`); got != "false" {
		t.Error("no key, and no notice asking for one")
	}
}
