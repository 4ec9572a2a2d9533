package office_test

import (
	"archive/zip"
	"bufio"
	"bytes"
	"compress/flate"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	docmill "github.com/docmill/docmill"
	"github.com/docmill/docmill/tools/office"
	"github.com/docmill/docmill/tools/toolstest"
)

// part is one entry of a test archive: head, then fill bytes of 'A' (or
// of noise, which does not compress), then tail.
type part struct {
	name       string
	head, tail string
	fill       int64
	noise      bool
	store      bool
}

// The parts that make detect take an archive for each format.
var (
	docxTypes = part{name: "[Content_Types].xml", head: `<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>`}
	xlsxTypes = part{name: "[Content_Types].xml", head: `<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/></Types>`}
	pptxTypes = part{name: "[Content_Types].xml", head: `<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Override PartName="/ppt/presentation.xml" ContentType="application/vnd.openxmlformats-officedocument.presentationml.presentation.main+xml"/></Types>`}
	odtType   = part{name: "mimetype", head: "application/vnd.oasis.opendocument.text", store: true}
)

// bombXML is an XML part whose text runs fill bytes long.
func bombXML(name string, fill int64) part {
	return part{name: name, head: `<?xml version="1.0" encoding="UTF-8"?><doc><t>`, fill: fill, tail: `</t></doc>`}
}

// manyParts is n tiny parts.
func manyParts(n int) []part {
	ps := make([]part, n)
	for i := range ps {
		ps[i] = part{name: fmt.Sprintf("ppt/media/m%d.xml", i), head: "<m/>", store: true}
	}
	return ps
}

// writeArchive writes the parts as a zip named name, streaming each fill
// through the compressor so that a 1.6 GB part costs no memory.
func writeArchive(t testing.TB, name string, parts ...part) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	buf := bufio.NewWriterSize(f, 1<<20)
	zw := zip.NewWriter(buf)
	zw.RegisterCompressor(zip.Deflate, func(w io.Writer) (io.WriteCloser, error) {
		return flate.NewWriter(w, flate.BestSpeed) // 1.6 GB of 'A' in about a second
	})
	chunk := bytes.Repeat([]byte("A"), 1<<20)
	noise := toolstest.Noise(1 << 20)
	for _, p := range parts {
		method := zip.Deflate
		if p.store {
			method = zip.Store
		}
		w, err := zw.CreateHeader(&zip.FileHeader{Name: p.name, Method: method})
		if err != nil {
			t.Fatal(err)
		}
		io.WriteString(w, p.head)
		src := chunk
		if p.noise {
			src = noise
		}
		for left := p.fill; left > 0; left -= int64(len(src)) {
			if _, err := w.Write(src[:min(left, int64(len(src)))]); err != nil {
				t.Fatal(err)
			}
		}
		io.WriteString(w, p.tail)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := buf.Flush(); err != nil {
		t.Fatal(err)
	}
	return path
}

type bomb struct {
	name, slug string
	parts      []part
	want       string // part of the refusal's message
}

// refuseBombs runs each bomb through a lazy pool and checks it is refused
// as invalid_document, quickly, without starting LibreOffice; then a real
// document still converts.
func refuseBombs(t *testing.T, limits docmill.Limits, bombs []bomb) {
	p := newPool(t, office.Options{Workers: 1, Lazy: true, Limits: limits})
	for _, b := range bombs {
		t.Run(b.name, func(t *testing.T) {
			path := writeArchive(t, b.name, b.parts...)
			st, _ := os.Stat(path)
			start := time.Now()
			_, err := run(t, toolOf(t, p, b.slug), path, nil)
			took := time.Since(start)
			t.Logf("%s: %d KB refused in %s: %v", b.name, st.Size()>>10, took.Round(time.Millisecond), err)
			if code(err) != docmill.CodeInvalidDocument {
				t.Fatalf("got %v, want invalid_document", err)
			}
			msg := err.(*docmill.Error).Message
			if !strings.Contains(msg, "processing limit") || !strings.Contains(msg, b.want) {
				t.Errorf("message %q, want a processing limit naming %q", msg, b.want)
			}
			if took > 2*time.Second {
				t.Errorf("refused after %s, want under 2s", took)
			}
			if n := p.Starts(); n != 0 {
				t.Fatalf("soffice started %d times for a bomb", n)
			}
		})
	}
	out, err := run(t, toolOf(t, p, "word-to-pdf"), writeDocx(t, "A document within the limits."), nil)
	if err != nil {
		t.Fatalf("a real document under the same limits: %v", err)
	}
	if txt := pdftotext(t, out.Path); !strings.Contains(txt, "A document within the limits.") {
		t.Errorf("text %q", txt)
	}
	if n := p.Starts(); n != 1 {
		t.Errorf("%d soffice starts after one conversion, want 1", n)
	}
}

// TestZipBombs: at the default limits, a reported document (a 1.5 MB
// .docx whose word/document.xml inflates to 1.6 GB) and bombs of the
// other zip formats are refused before LibreOffice sees them.
func TestZipBombs(t *testing.T) {
	if testing.Short() {
		t.Skip("writes a 1.6 GB stream")
	}
	refuseBombs(t, docmill.Limits{}, []bomb{
		{"bomb.docx", "word-to-pdf", []part{docxTypes, bombXML("word/document.xml", 1600<<20)}, "times its compressed size"},
		{"bomb.xlsx", "excel-to-pdf", []part{xlsxTypes, bombXML("xl/worksheets/sheet1.xml", 64<<20)}, "times its compressed size"},
		{"bomb.pptx", "powerpoint-to-pdf", append([]part{pptxTypes}, manyParts(10_000)...), "more than 10000 archive entries"},
		{"bomb.odt", "word-to-pdf", []part{odtType, bombXML("content.xml", 64<<20)}, "times its compressed size"},
	})
}

// TestZipLimits: lowered limits apply to every check, and a real
// document within them converts.
func TestZipLimits(t *testing.T) {
	refuseBombs(t, docmill.Limits{ArchiveEntries: 30, ArchiveBytes: 4 << 20, ArchiveRatio: 20}, []bomb{
		{"entries.docx", "word-to-pdf", append([]part{docxTypes}, manyParts(30)...), "more than 30 archive entries"},
		{"total.xlsx", "excel-to-pdf", []part{xlsxTypes, {name: "xl/media/image1.bin", fill: 5 << 20, noise: true, store: true}}, "expands to more than 4 MB"},
		{"ratio.pptx", "powerpoint-to-pdf", []part{pptxTypes, bombXML("ppt/slides/slide1.xml", 2<<20)}, "more than 20 times"},
		{"ratio.odt", "word-to-pdf", []part{odtType, bombXML("content.xml", 2<<20)}, "more than 20 times"},
	})
}
