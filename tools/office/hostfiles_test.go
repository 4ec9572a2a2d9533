package office_test

import (
	"bytes"
	"image"
	_ "image/png" // DecodeConfig of the host's PNG
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/docmill/docmill/sandbox"
	"github.com/docmill/docmill/tools/office"
	"github.com/docmill/docmill/tools/toolstest"
)

// hostImage is a PNG of the host's own, under /usr/share, which no
// engine's view holds: Debian's logo where it is installed, else the
// first usable PNG under /usr/share/pixmaps or /usr/share/icons. It
// returns the path and the image's size.
func hostImage(t *testing.T) (string, image.Point) {
	t.Helper()
	// usable: a PNG readable by all (so that the jail's uid could read it
	// were it in view, as in the control) and big enough to tell apart.
	usable := func(p string) (image.Point, bool) {
		st, err := os.Stat(p)
		if err != nil || !st.Mode().IsRegular() || st.Mode().Perm()&0o004 == 0 {
			return image.Point{}, false
		}
		f, err := os.Open(p)
		if err != nil {
			return image.Point{}, false
		}
		defer f.Close()
		cfg, format, err := image.DecodeConfig(f)
		return image.Pt(cfg.Width, cfg.Height), err == nil && format == "png" && cfg.Width >= 16 && cfg.Height >= 16
	}
	const preferred = "/usr/share/pixmaps/debian-logo.png"
	if size, ok := usable(preferred); ok {
		return preferred, size
	}
	for _, root := range []string{"/usr/share/pixmaps", "/usr/share/icons"} {
		var found string
		var size image.Point
		_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.HasSuffix(p, ".png") {
				if sz, ok := usable(p); ok {
					found, size = p, sz
					return fs.SkipAll
				}
			}
			return nil
		})
		if found != "" {
			return found, size
		}
	}
	missing(t, "no readable PNG under /usr/share/pixmaps or /usr/share/icons on this host")
	return "", image.Point{}
}

// missing skips the test for want of something on the host, or fails it
// on CI, where everything must be installed.
func missing(t *testing.T, why string) {
	t.Helper()
	toolstest.Lacking(t, "%s", why)
}

// confinedPool is a one-worker pool of real LibreOffice in the default
// jail, whose view holds office.DataPaths plus extra (read-only).
func confinedPool(t *testing.T, extra ...string) *office.Pool {
	t.Helper()
	jail := sandbox.Default()
	if !jail.Confined() {
		missing(t, "the engines' jail cannot be set up here: "+jail.Why())
	}
	view := sandbox.View{ReadOnly: append(append([]string{}, office.DataPaths...), extra...)}
	p, err := office.New(sandbox.Find("soffice", []string{"--version"}, sandbox.Options{View: view}),
		sandbox.Find("python3", nil, sandbox.Options{View: view}),
		office.Options{Workers: 1, Lazy: true, SelectPages: selectPages()})
	if err != nil {
		t.Fatal(err)
	}
	if !p.Available() {
		missing(t, "LibreOffice or python3-uno not installed")
	}
	t.Cleanup(p.Close)
	return p
}

// pdfImageSizes lists the size of every image (not soft mask) in the PDF
// at path, from `pdfimages -list`.
func pdfImageSizes(t *testing.T, path string) []image.Point {
	t.Helper()
	bin, err := exec.LookPath("pdfimages")
	if err != nil {
		missing(t, "no pdfimages")
	}
	out, err := exec.Command(bin, "-list", path).Output()
	if err != nil {
		t.Fatalf("pdfimages: %v", err)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) < 2 || !strings.HasPrefix(strings.TrimSpace(lines[0]), "page") {
		t.Fatalf("pdfimages -list: %q", out)
	}
	var sizes []image.Point
	for _, l := range lines[2:] {
		f := strings.Fields(l)
		if len(f) < 5 || f[2] != "image" {
			continue
		}
		w, _ := strconv.Atoi(f[3])
		h, _ := strconv.Atoi(f[4])
		sizes = append(sizes, image.Pt(w, h))
	}
	return sizes
}

// TestHostFilesStayOut: an RTF whose INCLUDEPICTURE field names an image
// of the host's own system directories (/usr/share/pixmaps), by path, by
// file URL, through /usr/lib/.. (a directory the jail does show) or
// through /proc/1/root, converts to a PDF without that image, and an RTF
// whose INCLUDETEXT field names /etc/hostname converts to a PDF without
// the host's name. TestNoLocalFiles covers files in the test's own
// directories and the ODT and DOCX forms of links; this covers the
// system paths a naive jail binds whole (/usr/share, /etc).
//
// The control: the same RTFs converted by a worker whose jail view also
// holds the image's directory embed the host's image (LibreOffice loads an
// RTF INCLUDEPICTURE at import, whatever its link settings), so only the
// jail keeps it out, and this test fails if the jail shows /usr/share.
// A file in the job's own directory cannot be the control: soffice sees
// only its worker's directory, where the document is staged alone.
//
// This LibreOffice (7.4), with the pool's settings, follows no
// INCLUDETEXT (RTF or DOCX) and no ODT section link even unconfined (as
// tried when this test was written), so no control can show
// /etc/hostname's text arriving: the hostname check guards against a
// LibreOffice that starts to, and TestEnginesCannotSeeTheDataDirectory
// (cmd/docmill) checks that /etc/hostname is absent from the file system
// of soffice itself.
func TestHostFilesStayOut(t *testing.T) {
	img, size := hostImage(t)
	raw, err := os.ReadFile("/etc/hostname")
	if err != nil {
		missing(t, "no /etc/hostname: "+err.Error())
	}
	hostname := strings.TrimSpace(string(raw))
	if hostname == "" {
		missing(t, "/etc/hostname is empty")
	}
	t.Logf("host image %s (%dx%d), hostname %q", img, size.X, size.Y, hostname)

	rtf := func(fields ...string) []byte {
		var b bytes.Buffer
		b.WriteString(`{\rtf1\ansi visible text\par `)
		for _, f := range fields {
			b.WriteString(`{\field{\*\fldinst ` + f + `}{\fldrslt cached}}\par `)
		}
		b.WriteString(`}`)
		return b.Bytes()
	}
	pictures := []struct{ name, field string }{
		{"path.rtf", `INCLUDEPICTURE "` + img + `"`},
		{"linked.rtf", `INCLUDEPICTURE "` + img + `" \\d`},
		{"url.rtf", `INCLUDEPICTURE "file://` + img + `"`},
		{"dotdot.rtf", `INCLUDEPICTURE "/usr/lib/..` + strings.TrimPrefix(img, "/usr") + `"`},
		{"proc.rtf", `INCLUDEPICTURE "/proc/1/root` + img + `"`},
	}
	hostnameRTF := toolstest.WriteTemp(t, "hostname.rtf", rtf(`INCLUDETEXT "/etc/hostname"`, `INCLUDETEXT "file:///etc/hostname"`))

	word := toolOf(t, confinedPool(t), "word-to-pdf")
	for _, c := range pictures {
		out, err := run(t, word, toolstest.WriteTemp(t, c.name, rtf(c.field)), nil)
		if err != nil {
			t.Errorf("%s: %v (a document naming a missing picture converts)", c.name, err)
			continue
		}
		if sizes := pdfImageSizes(t, out.Path); len(sizes) > 0 {
			t.Errorf("%s: the PDF holds image(s) %v: %s (%dx%d) reached it from the host", c.name, sizes, img, size.X, size.Y)
		}
		if txt := pdftotext(t, out.Path); !strings.Contains(txt, "visible text") {
			t.Errorf("%s: the PDF lacks the document's own text: %q", c.name, txt)
		}
	}
	out, err := run(t, word, hostnameRTF, nil)
	if err != nil {
		t.Fatalf("hostname.rtf: %v", err)
	}
	// Only the document's own words: a short hostname ("vm") could hide
	// in longer ones.
	txt := pdftotext(t, out.Path)
	for _, w := range strings.Fields(txt) {
		if w != "visible" && w != "text" && w != "cached" {
			t.Errorf("hostname.rtf: the PDF's text %q holds %q, not the document's (the host's name is %q)", txt, w, hostname)
		}
	}
	if !strings.Contains(txt, "visible text") {
		t.Errorf("hostname.rtf: the PDF lacks the document's own text: %q", txt)
	}

	// The control: with the image's directory in the view, the same
	// fields bring the host's image in (all but /proc/1/root, which is
	// bubblewrap's own root: the jail's uid may not follow it).
	shown := toolOf(t, confinedPool(t, filepath.Dir(img)), "word-to-pdf")
	for _, c := range pictures[:4] {
		out, err := run(t, shown, toolstest.WriteTemp(t, "control-"+c.name, rtf(c.field)), nil)
		if err != nil {
			t.Fatalf("control %s: %v", c.name, err)
		}
		sizes := pdfImageSizes(t, out.Path)
		if len(sizes) != 1 || sizes[0] != size {
			t.Errorf("control %s: with %s in the jail's view the PDF holds images %v, want the host image (%dx%d): this test could not see a leak",
				c.name, filepath.Dir(img), sizes, size.X, size.Y)
		}
	}
}
