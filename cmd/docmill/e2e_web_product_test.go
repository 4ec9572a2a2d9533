package main

import (
	"archive/zip"
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	cdpbrowser "github.com/chromedp/cdproto/browser"
	"github.com/chromedp/chromedp"

	"github.com/docmill/docmill/internal/poll"
)

// artifactsDir is where TestWebProduct keeps its screenshots and the zip
// it downloads: $DOCMILL_ARTIFACTS when set (CI keeps it), else
// screenshots/product (git-ignored).
func artifactsDir(t *testing.T) string {
	dir := os.Getenv("DOCMILL_ARTIFACTS")
	if dir == "" {
		dir = filepath.Join(screenshotDir, "product")
	}
	dir, err := filepath.Abs(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshots and downloads in %s", dir)
	return dir
}

// TestWebProduct drives the web interface as a new user would, on a
// server started with no flags: sign in (a key the operator made; the
// mailed sign-up is TestWebAccounts'), see the Free plan marked on the
// plans page with Pro's price in roubles (English and Russian), compress
// three PDFs as one batch with a preview of each and download them all
// as a zip, cancel a long OCR job, find all four jobs in the history,
// use the account page (usage, chart) and the keys page, and check every page at
// 360 px in both languages. Screenshots are kept (artifactsDir).
func TestWebProduct(t *testing.T) {
	t.Parallel()
	srv := startServer(t, "")
	b := newBrowser(t)
	b.dir = artifactsDir(t)
	productClosed(b, startServer(t, "", "--signup", "closed"))
	b.run(chromedp.Navigate(srv.URL + "/"))
	b.wait(`document.body.dataset.ready === "1" && document.querySelectorAll("a.card").length > 20`, 20*time.Second)

	productSignIn(b, srv)
	productPlans(b)
	productTooLarge(b)
	productBatch(b)
	productCancel(b)
	productHistory(b)
	productAccount(b)
	productPhone(b)
}

// productClosed: on a server with sign-up closed, the page offers sign-in
// only, and says where accounts come from.
func productClosed(b *browser, closed *testServer) {
	b.run(chromedp.Navigate(closed.URL + "/"))
	b.wait(`document.body.dataset.ready === "1"`, 20*time.Second)
	if got := b.eval(`document.getElementById("signup-open").hidden + ""`); got != "true" {
		b.t.Error("sign-up is closed, and the header offers it")
	}
	b.run(chromedp.Click(chromedp.ID("signin-open")))
	if got := b.eval(`document.getElementById("signup-form").hidden + " " + document.getElementById("signup-closed").hidden + " " + document.activeElement.id`); got != "true false signin-email" {
		b.t.Errorf("closed sign-up: form hidden, note hidden, focus = %q, want true false signin-email", got)
	}
	b.shot("00-signup-closed")
}

// productSignIn: a key pasted as a developer would; the header then has
// the Account and Your keys pages and Sign out.
func productSignIn(b *browser, srv *testServer) {
	t := b.t
	b.signIn(srv.URL, newKey(t, srv.DataDir, "free"))
	b.wait(`document.querySelector("#account meter") !== null`, 10*time.Second)
	b.shot("01-signed-in")
	if got := b.eval(`document.querySelector('nav a[href="#/account"]').hidden + " " + document.querySelector('nav a[href="#/keys"]').hidden + " " + document.getElementById("signout").hidden`); got != "false false false" {
		t.Errorf("signed in: Account, Your keys, Sign out hidden = %q", got)
	}
}

// productPlans: the plans page, from GET /v1/config, marks the Free plan
// and shows the specification's prices.
func productPlans(b *browser) {
	t := b.t
	b.eval(`(() => { location.hash = "#/plans"; return ""; })()`)
	b.wait(`!document.getElementById("plans").hidden && document.querySelectorAll("#plans-list li").length === 4`, 5*time.Second)
	if got := b.eval(`[...document.querySelectorAll('#plans-list li[aria-current="true"]')].map(e => e.dataset.plan).join()`); got != "free" {
		t.Errorf("current plan marked: %q, want free", got)
	}
	price := func(plan string) string {
		return b.eval(`document.querySelector('#plans-list li[data-plan="` + plan + `"] .price').textContent`)
	}
	for plan, want := range map[string]string{"free": "0 RUB a month", "pro": "490 RUB a month", "team": "from 2,490 RUB a month", "custom": "Price on request"} {
		if got := price(plan); got != want {
			t.Errorf("%s price %q, want %q", plan, got, want)
		}
	}
	b.shot("02-plans")
	b.setLang("ru")
	if got := price("pro"); !strings.Contains(got, "490") || !strings.Contains(got, "₽") {
		t.Errorf("ru pro price %q, want 490 in roubles", got)
	}
	if got := b.eval(`document.getElementById("plans-heading").textContent + "|" + document.querySelector('#plans-list li.current .badge').textContent`); got != "Тарифы|Ваш тариф" {
		t.Errorf("ru plans page %q", got)
	}
	b.shot("03-plans-ru")
	b.setLang("en")
}

// productTooLarge: a file over the plan's size is refused on the page,
// not uploaded to be refused (a sparse file: nothing is read).
func productTooLarge(b *browser) {
	t := b.t
	big := filepath.Join(t.TempDir(), "big.pdf")
	if f, err := os.Create(big); err != nil {
		t.Fatal(err)
	} else if err := errors.Join(f.Truncate(101<<20), f.Close()); err != nil {
		t.Fatal(err)
	}
	b.openTool("compress-pdf")
	b.choose(big)
	b.wait(`document.querySelectorAll("#file-list li").length === 1`, 5*time.Second)
	b.run(chromedp.Click(chromedp.ID("start")))
	if got := b.eval(`document.getElementById("file-error").textContent + "|" + document.getElementById("tool-form").hidden`); got != "big.pdf is 101\u00a0MB; your plan takes files up to 100\u00a0MB.|false" {
		t.Errorf("a file over the plan's size: %q", got)
	}
	b.run(chromedp.Click(chromedp.CSS(`#file-list li button.remove`)))
	b.wait(`document.querySelectorAll("#file-list li").length === 0`, 5*time.Second)
}

// productBatch: three PDFs on compress-pdf run as three jobs, each shown
// to the end with its preview; "download all" gives a zip of the three.
func productBatch(b *browser) {
	t := b.t
	b.openTool("compress-pdf")
	b.choose(corpus(t, "pdf", "base64image.pdf"), corpus(t, "pdf", "cmyk-image.pdf"), corpus(t, "pdf", "pdflatex-image.pdf"))
	b.wait(`document.querySelectorAll("#file-list li").length === 3`, 5*time.Second)
	b.run(chromedp.Click(chromedp.ID("start")))
	b.wait(`document.querySelectorAll("#batch-list li").length === 3`, 5*time.Second)
	b.shot("04-batch-running")
	b.wait(`[...document.querySelectorAll("#batch-list li")].every(li => li.dataset.phase === "done")`, 120*time.Second)
	b.wait(`[...document.querySelectorAll("#batch-list img.preview")].every(i => !i.hidden && i.complete && i.naturalWidth > 0)`, 10*time.Second)
	if got := b.eval(`document.getElementById("batch-summary").textContent`); !strings.HasPrefix(got, "3 of 3 done") {
		t.Errorf("batch summary %q", got)
	}
	b.shot("05-batch-done")

	dl := filepath.Join(b.dir, "download")
	_ = os.RemoveAll(dl)
	if _, err := chromedp.Call(b.ctx, cdpbrowser.SetDownloadBehavior, cdpbrowser.SetDownloadBehaviorParams{
		Behavior: cdpbrowser.SetDownloadBehaviorBehaviorAllow, DownloadPath: dl}); err != nil {
		t.Fatal(err)
	}
	b.run(chromedp.Click(chromedp.ID("batch-zip")))
	archive := filepath.Join(dl, "docmill-results.zip")
	var data []byte
	poll.Until(t, 20*time.Second, func() (bool, string) {
		if d, err := os.ReadFile(archive); err == nil && len(d) > 0 {
			if _, err := zip.NewReader(bytes.NewReader(d), int64(len(d))); err == nil {
				data = d
			}
		}
		return data != nil, "download all gave no zip"
	})
	if data == nil {
		t.Fatal("download all gave no zip")
	}
	zr, _ := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	var names []string
	for _, f := range zr.File {
		names = append(names, f.Name)
		r, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		head := make([]byte, 5)
		_, _ = r.Read(head)
		r.Close()
		if string(head) != "%PDF-" {
			t.Errorf("zip entry %s is not a PDF", f.Name)
		}
	}
	if strings.Join(names, ",") != "base64image-compressed.pdf,cmyk-image-compressed.pdf,pdflatex-image-compressed.pdf" {
		t.Errorf("zip entries %v", names)
	}
}

// productCancel: a long OCR job shows "Processing" once it starts, and
// Cancel cancels it.
func productCancel(b *browser) {
	t := b.t
	b.run(chromedp.Click(chromedp.ID("batch-again")))
	b.openTool("ocr-pdf")
	b.choose(corpus(t, "pdf", "GeoTopo-komprimiert.pdf"))
	b.run(chromedp.Click(chromedp.ID("start")))
	b.wait(`document.getElementById("progress-text").textContent === "Processing…"`, 30*time.Second)
	b.shot("06-ocr-processing")
	b.run(chromedp.Click(chromedp.ID("cancel")))
	b.wait(`document.getElementById("tool-error").textContent === "The job was canceled."`, 10*time.Second)
	b.shot("07-ocr-canceled")
}

// productHistory: the jobs view lists the four jobs with their sizes.
func productHistory(b *browser) {
	t := b.t
	b.eval(`(() => { location.hash = "#/jobs"; return ""; })()`)
	b.wait(`document.querySelectorAll("#jobs-body tr").length === 4`, 10*time.Second)
	got := b.eval(`[...document.querySelectorAll("#jobs-body tr")].map(r => r.dataset.status + ":" + r.children[1].textContent).join(",")`)
	if got != "canceled:OCR PDF,done:Compress PDF,done:Compress PDF,done:Compress PDF" {
		t.Errorf("history %q", got)
	}
	if n := b.eval(`[...document.querySelectorAll('#jobs-body tr[data-status="done"]')].filter(r => r.querySelector(".sizes").textContent.includes("→") && r.querySelector("a[download]")).length + ""`); n != "3" {
		t.Errorf("%s done rows with sizes and a download link, want 3", n)
	}
	b.shot("08-history")
}

// productAccount: usage against the limit and operations per day; on the
// keys page a second key made (shown once) and revoked.
func productAccount(b *browser) {
	t := b.t
	b.eval(`(() => { location.hash = "#/account"; return ""; })()`)
	b.wait(`!document.getElementById("acct-body").hidden && document.querySelector("#acct-chart svg") !== null`, 10*time.Second)
	if got := b.eval(`document.getElementById("acct-used").textContent + "|" + document.getElementById("acct-meter").value + "/" + document.getElementById("acct-meter").max`); got != "3 of 100 operations this month|3/100" {
		t.Errorf("usage %q", got)
	}
	if got := b.eval(`document.querySelector("#acct-chart svg").dataset.total`); got != "3" {
		t.Errorf("chart total %q, want 3", got)
	}
	b.shot("09-account")
	b.eval(`(() => { location.hash = "#/keys"; return ""; })()`)
	b.wait(`!document.getElementById("keys-body").hidden && document.querySelectorAll("#keys-list tr").length === 1`, 10*time.Second)
	b.run(chromedp.SendKeys(chromedp.ID("key-name"), "product test"),
		chromedp.Click(chromedp.CSS(`#key-create-form button[type=submit]`)))
	b.wait(`!document.getElementById("key-new-box").hidden && document.querySelectorAll("#keys-list tr").length === 2`, 10*time.Second)
	if got := b.eval(`document.getElementById("key-new-value").textContent`); !strings.HasPrefix(got, "dm_live_") {
		t.Errorf("new key %q", got)
	}
	b.run(chromedp.Click(chromedp.CSS(`#keys-list tr:last-child button.revoke`)))
	b.wait(`document.getElementById("keys-status").textContent.endsWith("is revoked.") && document.querySelectorAll('#keys-list tr[data-revoked="true"]').length === 1`, 10*time.Second)
	b.shot("09-keys")
	checkContrast(b)
	checkLabels(b)
}

// productPhone: every page fits 360 px, in English and Russian.
func productPhone(b *browser) {
	b.resize(360, 740, true)
	for _, l := range []string{"en", "ru"} {
		b.setLang(l)
		for _, hash := range []string{"#/plans", "#/account", "#/keys", "#/jobs", "#/tool/compress-pdf", "#/"} {
			b.eval(`(() => { location.hash = "` + hash + `"; return ""; })()`)
			b.wait(`document.documentElement.scrollWidth <= window.innerWidth`, 5*time.Second)
			name := strings.NewReplacer("#/", "", "/", "-").Replace(hash)
			if name == "" {
				name = "tools"
			}
			b.shot("10-phone-" + l + "-" + name)
		}
	}
	b.setLang("en")
}
