package toolstest

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// ChromiumPDF prints page, an HTML document the test writes, to a PDF
// with headless Chromium itself (no header or footer) and returns its
// path in a temporary directory of t: a PDF as browsers and html-to-pdf
// make them. Chromium's headless shell prints as the browser does and
// starts in a fraction of its time, so it is preferred, as the product
// prefers it (chromium.ExecPath, which this package cannot import: the
// chromium package's tests import this one). It skips t when neither is
// installed (fails it when CI is set).
func ChromiumPDF(t testing.TB, name string, page []byte) string {
	t.Helper()
	bin := ""
	for _, p := range []string{"/usr/lib/chromium/chromium-headless-shell", "chromium", "chromium-browser"} {
		if found, err := exec.LookPath(p); err == nil {
			bin = found
			break
		}
	}
	if bin == "" {
		Lacking(t, "chromium is not installed: cannot print a page to PDF")
	}
	dir := t.TempDir()
	src := filepath.Join(dir, name)
	if err := os.WriteFile(src, page, 0o600); err != nil {
		t.Fatal(err)
	}
	pdf := filepath.Join(dir, "printed.pdf")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, bin, "--headless", "--no-sandbox", "--disable-gpu", "--user-data-dir="+filepath.Join(dir, "profile"),
		"--no-pdf-header-footer", "--print-to-pdf="+pdf, "file://"+src).CombinedOutput()
	if _, serr := os.Stat(pdf); err != nil || serr != nil {
		t.Fatalf("chromium --print-to-pdf %s: %v, %v\n%s", name, err, serr, out)
	}
	return pdf
}
