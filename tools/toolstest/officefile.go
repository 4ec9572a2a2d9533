package toolstest

import (
	"context"
	"fmt"
	"html"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// officeFiles caches OfficeFile's conversions for the test binary, by
// format, name and source: LibreOffice takes seconds to start.
var officeFiles sync.Map

// OfficeFile saves source, a file named name that LibreOffice opens (a
// CSV, a flat ODF document such as FlatPresentation's), in format (an
// extension soffice --convert-to takes: "xlsx", "pptx", "docx", "odt"),
// with soffice itself, in a profile of its own, and returns the path of
// the result in a temporary directory of t: an Office file made by the
// program that makes them, from content the test writes. An HTML source
// (.html) is read as a Writer document, not a web page, so that "pdf"
// lays it out as a printed text document. It skips t when
// soffice is not installed (fails it when CI is set).
func OfficeFile(t testing.TB, name string, source []byte, format string) string {
	t.Helper()
	key := format + "\x00" + name + "\x00" + string(source)
	base := strings.TrimSuffix(name, filepath.Ext(name)) + "." + format
	if b, ok := officeFiles.Load(key); ok {
		return WriteTemp(t, base, b.([]byte))
	}
	bin, err := exec.LookPath("soffice")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("soffice is not installed (CI is set: a missing engine fails the run)")
		}
		t.Skip("soffice is not installed: cannot make an Office file")
	}
	dir := t.TempDir()
	src := filepath.Join(dir, name)
	if err := os.WriteFile(src, source, 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	args := []string{"--headless", "--norestore", "-env:UserInstallation=file://" + filepath.Join(dir, "profile")}
	if strings.EqualFold(filepath.Ext(name), ".html") {
		args = append(args, "--infilter=HTML (StarWriter)")
	}
	out, err := exec.CommandContext(ctx, bin, append(args, "--convert-to", format, "--outdir", dir, src)...).CombinedOutput()
	b, rerr := os.ReadFile(filepath.Join(dir, base))
	if err != nil || rerr != nil {
		t.Fatalf("soffice --convert-to %s %s: %v, %v\n%s", format, name, err, rerr, out)
	}
	officeFiles.Store(key, b)
	return WriteTemp(t, base, b)
}

// FlatPresentation returns a flat ODF presentation (.fodp) of one slide
// per element of slides, each showing its text in a frame: the source
// OfficeFile turns into a .pptx or .odp.
func FlatPresentation(slides ...string) []byte {
	var b strings.Builder
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + "\n" +
		`<office:document xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" ` +
		`xmlns:draw="urn:oasis:names:tc:opendocument:xmlns:drawing:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" ` +
		`xmlns:svg="urn:oasis:names:tc:opendocument:xmlns:svg-compatible:1.0" xmlns:style="urn:oasis:names:tc:opendocument:xmlns:style:1.0" ` +
		`xmlns:presentation="urn:oasis:names:tc:opendocument:xmlns:presentation:1.0" ` +
		`office:version="1.3" office:mimetype="application/vnd.oasis.opendocument.presentation">` + "\n" +
		`<office:master-styles><style:master-page style:name="M"/></office:master-styles>` + "\n" +
		`<office:body><office:presentation>` + "\n")
	for i, s := range slides {
		fmt.Fprintf(&b, `<draw:page draw:name="Slide%d" draw:master-page-name="M"><draw:frame svg:x="2cm" svg:y="2cm" svg:width="20cm" svg:height="3cm">`+
			`<draw:text-box><text:p>%s</text:p></draw:text-box></draw:frame></draw:page>`+"\n", i+1, html.EscapeString(s))
	}
	b.WriteString("</office:presentation></office:body></office:document>\n")
	return []byte(b.String())
}
