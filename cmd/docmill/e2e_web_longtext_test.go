package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/docmill/docmill/client"
)

// TestWebLongText: a string param of a long bound is a box of several
// lines in the web form, so redact-pdf's terms, one a line, can be typed
// there: two terms typed on two lines are both blacked out; a short one
// (the regex) stays a one-line input.
func TestWebLongText(t *testing.T) {
	t.Parallel()
	s := startServer(t, "")
	b := newBrowser(t)
	b.signIn(s.URL, s.DevKey)
	b.openTool("redact-pdf")
	if got := b.eval(`document.querySelector('#params [name="terms"]').tagName + " " + document.querySelector('#params [name="regex"]').tagName`); got != "TEXTAREA INPUT" {
		t.Errorf("terms and regex controls are %s, want TEXTAREA INPUT", got)
	}
	if got := b.eval(`document.querySelector('#params [name="terms"]').getAttribute("aria-describedby")`); !strings.Contains(got, "-error") {
		t.Errorf("the terms box is described by %q, want its error slot", got)
	}
	pdf := filepath.Join(t.TempDir(), "contract.pdf")
	if err := os.WriteFile(pdf, redactocrTextPDF(redactocrLines), 0o600); err != nil {
		t.Fatal(err)
	}
	b.choose(pdf)
	b.run(chromedp.SendKeys(chromedp.CSS(`#params textarea[name="terms"]`), "Morozov\nharbor"),
		chromedp.Click(chromedp.ID("start")))
	b.wait(`!document.getElementById("result").hidden || !document.getElementById("tool-error").hidden`, 60*time.Second)
	if msg := b.eval(`document.getElementById("tool-error").textContent`); msg != "" {
		t.Fatalf("the form's job failed: %s", msg)
	}
	// The page is an image once redacted: the job's meta tells whether
	// both lines were read as terms.
	list, err := s.client(s.DevKey).ListJobs(t.Context(), client.ListOptions{Tool: "redact-pdf", Limit: 1})
	if err != nil || len(list.Jobs) != 1 {
		t.Fatalf("jobs %+v, %v", list, err)
	}
	if n := list.Jobs[0].Meta["redactions"]; n != 2.0 {
		t.Errorf("meta redactions %v, want 2 (one a line)", n)
	}
	if text := pdftotext(t, b.download()); strings.Contains(text, "Morozov") {
		t.Errorf("the redacted text %q has the term", text)
	}
}
