package chromium

import (
	"archive/zip"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	docmill "github.com/docmill/docmill"
	"github.com/docmill/docmill/tools/ziplimit"
)

// writeZip writes a zip built by fill to a temporary file.
func writeZip(t *testing.T, fill func(zw *zip.Writer)) string {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	fill(zw)
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "in.zip")
	if err := os.WriteFile(path, buf.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// extract unpacks the zip at path under l (zero: the defaults).
func extract(t *testing.T, path string, l docmill.Limits) (string, error) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "site")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	root, err := extractSite(path, dir, l)
	if err == nil {
		if rel, rerr := filepath.Rel(dir, root); rerr != nil || !filepath.IsLocal(rel) && rel != "." {
			t.Fatalf("root %s outside %s", root, dir)
		}
	}
	return root, err
}

func TestZipBomb(t *testing.T) {
	path := writeZip(t, func(zw *zip.Writer) {
		w, _ := zw.Create("index.html")
		w.Write([]byte("<p>x</p>"))
		w, _ = zw.Create("zeros.bin")
		w.Write(make([]byte, 20<<20)) // deflates about 1000 times
	})
	_, err := extract(t, path, docmill.Limits{})
	if docmill.ErrorCode(err) != docmill.CodeInvalidDocument || !strings.Contains(err.Error(), "processing limit") {
		t.Fatalf("got %v, want a zip bomb refusal", err)
	}
}

func TestZipTooManyEntries(t *testing.T) {
	path := writeZip(t, func(zw *zip.Writer) {
		for i := range 11 {
			zw.Create(fmt.Sprintf("f%d.txt", i))
		}
	})
	_, err := extract(t, path, docmill.Limits{ArchiveEntries: 10})
	if docmill.ErrorCode(err) != docmill.CodeInvalidDocument {
		t.Fatalf("got %v, want invalid_document", err)
	}
}

func TestZipTotalCap(t *testing.T) {
	// extractEntry counts the bytes it writes against the budget.
	path := writeZip(t, func(zw *zip.Writer) {
		w, _ := zw.CreateHeader(&zip.FileHeader{Name: "a.bin", Method: zip.Store})
		w.Write(make([]byte, 1000))
	})
	zr, err := zip.OpenReader(path)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	err = extractEntry(zr.File[0], filepath.Join(t.TempDir(), "a.bin"), ziplimit.NewBudget(docmill.Limits{ArchiveBytes: 999}))
	if docmill.ErrorCode(err) != docmill.CodeInvalidDocument {
		t.Fatalf("got %v, want invalid_document", err)
	}
}

func TestZipSkipsLinksAndMacMetadata(t *testing.T) {
	path := writeZip(t, func(zw *zip.Writer) {
		h := &zip.FileHeader{Name: "site/passwd"}
		h.SetMode(os.ModeSymlink | 0o777)
		w, _ := zw.CreateHeader(h)
		w.Write([]byte("/etc/passwd"))
		w, _ = zw.Create("__MACOSX/site/._index.html")
		w.Write([]byte("junk"))
		w, _ = zw.Create("site/index.html")
		w.Write([]byte("<p>x</p>"))
	})
	root, err := extract(t, path, docmill.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Base(root) != "site" {
		t.Fatalf("root %s, want the top folder", root)
	}
	if _, err := os.Lstat(filepath.Join(root, "passwd")); !os.IsNotExist(err) {
		t.Fatalf("the link was extracted: %v", err)
	}
}

func TestSiteRoot(t *testing.T) {
	for _, tc := range []struct {
		names []string
		want  string // "" for an error
	}{
		{[]string{"index.html", "a.css"}, "."},
		{[]string{"css/a.css", "index.html"}, "."},
		{[]string{"top/index.html", "top/css/a.css"}, "top"},
		{[]string{"top/sub/index.html"}, ""},
		{[]string{"a/index.html", "b/index.html"}, ""},
		{[]string{"readme.txt", "top/index.html"}, ""},
		{[]string{"INDEX.HTML"}, ""},
		{nil, ""},
	} {
		got, err := siteRoot(tc.names)
		if tc.want == "" && err == nil || tc.want != "" && got != tc.want {
			t.Errorf("%v: got %q, %v; want %q", tc.names, got, err, tc.want)
		}
	}
}

func TestOutputName(t *testing.T) {
	for in, want := range map[string]string{
		"report.html": "report.pdf", "site.zip": "site.pdf", "notes.md": "notes.pdf",
		"README": "README.pdf", `C:\x\page.htm`: "page.pdf", ".md": "document.pdf",
	} {
		if got := docmill.ResultName(in, "", ".pdf"); got != want {
			t.Errorf("ResultName(%q) = %q, want %q", in, got, want)
		}
	}
}
