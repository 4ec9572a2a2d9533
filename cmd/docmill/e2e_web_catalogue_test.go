package main

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// webBrowseCatalogue: before a sign-in, the page built from the real
// server's catalogue has its groups, filters its cards by a search,
// switches to Russian and back, and builds a tool's controls from the
// tool's params, with a notice asking for a key.
func webBrowseCatalogue(b *browser, base string) {
	t := b.t
	total := b.eval(`document.querySelectorAll(".card").length + ""`)
	if got := b.eval(`[...document.querySelectorAll(".group h2")].map(h => h.textContent).join("|")`); !strings.Contains(got, "|PDF|") || !strings.Contains(got, "|Convert from PDF|") {
		t.Errorf("groups %q, want PDF and Convert from PDF among them", got)
	}

	// Search filters the cards: merge-pdf stays, and every card left
	// names merging, on the card or in the catalogue's description.
	described := map[string]string{}
	for _, x := range getJSON(t, base+"/v1/tools", 200)["tools"].([]any) {
		m := x.(map[string]any)
		described[m["slug"].(string)] = strings.ToLower(m["title"].(string) + " " + m["description"].(string))
	}
	search := func(q string) {
		b.eval(`(() => { const s = document.getElementById("search"); s.value = "` + q + `"; s.dispatchEvent(new Event("input")); return ""; })()`)
	}
	search("merge")
	b.wait(`document.querySelectorAll(".card").length < `+total+` && document.querySelector('.card[data-slug="merge-pdf"]') !== null`, 10*time.Second)
	for _, slug := range strings.Split(b.eval(`[...document.querySelectorAll(".card")].filter(c => !(c.dataset.slug + c.textContent).toLowerCase().includes("merge")).map(c => c.dataset.slug).join(",")`), ",") {
		if slug != "" && !strings.Contains(described[slug], "merge") {
			t.Errorf("card %s does not match the search", slug)
		}
	}
	search("")
	b.wait(`document.querySelectorAll(".card").length === `+total, 10*time.Second)

	b.setLang("ru")
	if got := b.eval(`document.querySelector("#catalog h1").textContent`); got != "Все инструменты" {
		t.Errorf("ru heading %q", got)
	}
	if got := b.eval(`document.querySelector('.group[data-group="from-pdf"] h2').textContent`); got != "Конвертировать из PDF" {
		t.Errorf("ru group %q", got)
	}
	b.setLang("en")

	// A tool page: controls generated from the server's params of
	// pdf-to-jpg.
	var dpi struct {
		Min, Max float64
		Default  string
	}
	for _, p := range getJSON(t, base+"/v1/tools/pdf-to-jpg", 200)["params"].([]any) {
		if m := p.(map[string]any); m["name"] == "dpi" {
			dpi.Min, dpi.Max, dpi.Default = m["min"].(float64), m["max"].(float64), m["default"].(string)
		}
	}
	b.openTool("pdf-to-jpg")
	if got := b.eval(`document.getElementById("tool-title").textContent`); got != "PDF to JPG" {
		t.Errorf("tool title %q", got)
	}
	want := "range " + strconv.FormatFloat(dpi.Min, 'f', -1, 64) + "-" + strconv.FormatFloat(dpi.Max, 'f', -1, 64) + " " + dpi.Default
	if got := b.eval(`(() => { const r = document.querySelector('input[name="dpi"]'); return r.type + " " + r.min + "-" + r.max + " " + r.value; })()`); got != want {
		t.Errorf("dpi control %q, want %q", got, want)
	}
	if got := b.eval(`document.querySelector('input[name="pages"]').placeholder`); got != "e.g. 1-3,5,8-" {
		t.Errorf("pages placeholder %q", got)
	}
	if got := b.eval(`document.getElementById("tool-needkey").hidden + ""`); got != "false" {
		t.Error("no key, and no notice asking for one")
	}
	b.eval(`(() => { location.hash = "#/"; return ""; })()`)
}

// TestWebUnavailableTools: on a server whose engines cannot run (no
// jail: bubblewrap's path points at nothing), every card is disabled,
// is no link, and says which engines are missing, as the catalogue
// lists them.
func TestWebUnavailableTools(t *testing.T) {
	t.Parallel()
	srv := startServer(t, "", "--bwrap", "/nonexistent/bwrap")
	b := newBrowser(t)
	b.run(chromedp.Navigate(srv.URL + "/"))
	b.wait(`document.body.dataset.ready === "1" && document.querySelectorAll(".card").length > 20`, 20*time.Second)
	if got := b.eval(`document.querySelectorAll("a.card").length + ""`); got != "0" {
		t.Errorf("%s unavailable tools are links", got)
	}
	var missing []string
	for _, e := range getJSON(t, srv.URL+"/v1/tools/compress-pdf", 200)["engines"].([]any) {
		if m := e.(map[string]any); m["available"] == false {
			missing = append(missing, m["name"].(string))
		}
	}
	want := "Unavailable: " + strings.Join(missing, ", ") + " not installed on this server"
	if got := b.eval(`document.querySelector('.card.disabled[data-slug="compress-pdf"] .reason').textContent`); len(missing) == 0 || got != want {
		t.Errorf("compress-pdf's reason %q, want %q", got, want)
	}
}
