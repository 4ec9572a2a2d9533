package office

import (
	"archive/zip"
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	docmill "github.com/docmill/docmill"
)

// fuzzSecret is in every seed archive's entry names: no message may show it.
const fuzzSecret = "secret-part"

// officeZip returns an archive of name, content pairs.
func officeZip(tb testing.TB, pairs ...string) []byte {
	tb.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for i := 0; i+1 < len(pairs); i += 2 {
		h := &zip.FileHeader{Name: pairs[i], Method: zip.Deflate}
		if pairs[i] == "mimetype" {
			h.Method = zip.Store
		}
		w, err := zw.CreateHeader(h)
		if err != nil {
			tb.Fatal(err)
		}
		if _, err := w.Write([]byte(pairs[i+1])); err != nil {
			tb.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		tb.Fatal(err)
	}
	return buf.Bytes()
}

// contentTypes is an OOXML [Content_Types].xml naming main as its main part.
func contentTypes(main string) string {
	return `<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">` +
		`<Default Extension="xml" ContentType="application/xml"/><Override PartName="/` + fuzzSecret + `.xml" ContentType="application/vnd.openxmlformats-officedocument.` +
		main + `"/></Types>`
}

// ole returns a compound file whose directory holds an entry named stream.
func ole(stream string, sector int) []byte {
	b := make([]byte, 3*sector)
	copy(b, "\xD0\xCF\x11\xE0\xA1\xB1\x1A\xE1")
	copy(b[sector+128:], utf16z("Root Entry"))
	copy(b[sector+256:], utf16z(stream))
	return b
}

// detectSeeds are real and hostile inputs of each kind detect tells apart.
func detectSeeds(tb testing.TB) [][]byte {
	docx := officeZip(tb, "[Content_Types].xml", contentTypes("wordprocessingml.document.main+xml"), fuzzSecret+"/document.xml", "<w:document/>")
	return [][]byte{
		nil,
		[]byte("PK\x03\x04"),
		[]byte("PK\x03\x04\x14\x00\x00\x00\x08\x00 truncated"),
		[]byte("\xD0\xCF\x11\xE0\xA1\xB1\x1A\xE1"),
		[]byte("\xD0\xCF\x11\xE0\xA1\xB1\x1A"),
		[]byte(`{\rtf1\ansi{\fonttbl\f0\fswiss Helvetica;}\f0\pard Hello}`),
		[]byte(`{\rtf`),
		[]byte("Hello, world.\nSecond line.\n"),
		[]byte("name;age;city\nada;36;London\n"),
		[]byte("a\tb\tc\n1\t2\t3\n"),
		[]byte("a|b|c,d\n"),
		[]byte("\xff\xfeh\x00i\x00\n\x00"),
		[]byte("\xfe\xff\x00h\x00i"),
		[]byte("text\x00with a NUL"),
		[]byte("\xef\xbb\xbf;;;\n"),
		docx,
		docx[:len(docx)/2],
		officeZip(tb, "[Content_Types].xml", contentTypes("spreadsheetml.sheet.main+xml")),
		officeZip(tb, "[Content_Types].xml", contentTypes("presentationml.slideshow.main+xml")),
		officeZip(tb, "[Content_Types].xml", contentTypes("ms-word.document.macroEnabled.main+xml")),
		officeZip(tb, "mimetype", "application/vnd.oasis.opendocument.text", "content.xml", "<office:document-content/>"),
		officeZip(tb, "mimetype", "application/vnd.oasis.opendocument.spreadsheet"),
		officeZip(tb, "mimetype", "application/vnd.oasis.opendocument.presentation"),
		officeZip(tb, "mimetype", "application/epub+zip", "[Content_Types].xml", "<Types/>"),
		officeZip(tb, fuzzSecret+"/index.html", "<html/>"),
		officeZip(tb, "[Content_Types].xml", "<Types/>", "[Content_Types].xml", contentTypes("presentationml.presentation.main+xml")),
		officeZip(tb, "a", "", "b", "", "c", "", "d", "", "e", "", "f", "", "mimetype", "application/vnd.oasis.opendocument.text"),
		ole("WordDocument", 512),
		ole("Workbook", 512),
		ole("Book", 4096),
		ole("PowerPoint Document", 512),
		ole("EncryptedPackage", 512),
		ole("WordDocumen", 512),
		ole("WORKBOOK", 512),
		append(append([]byte{}, word2Magic...), make([]byte, 600)...),
		append(ole("Root", 512), utf16z("Workbook")...),
	}
}

// FuzzDetect runs detect on fuzzed files for each family: it never
// panics; it refuses only with invalid_document or unsupported_file_type,
// in a message that shows neither the file's path nor an entry's name
// and, for a file of another family, names that family's tool; what it
// takes is of the family asked for, with an extension LibreOffice knows,
// and found by the file's magic (zip, compound file, RTF) or else read as
// text (CSV with its separator for spreadsheets); and the same bytes are
// never taken as two families, except text, which both word-to-pdf and
// excel-to-pdf read.
func FuzzDetect(f *testing.F) {
	for i, s := range detectSeeds(f) {
		f.Add(s, uint8(i))
	}
	f.Fuzz(func(t *testing.T, data []byte, lim uint8) {
		dir := t.TempDir()
		path := filepath.Join(dir, "input-0.docx")
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		// The default limits, or 1 to 7 entries.
		limits := docmill.Limits{ArchiveEntries: int(lim % 8)}
		var taken []kind
		for _, want := range []family{text, spreadsheet, presentation} {
			k, err := detect(path, want, limits)
			if err != nil {
				checkDetectError(t, data, want, err, dir)
				continue
			}
			checkKind(t, data, want, k)
			taken = append(taken, k)
		}
		switch {
		case len(taken) == 3:
			t.Fatalf("%q taken by every family: %+v", data, taken)
		case len(taken) == 2 && (taken[0].ext != "txt" || taken[1].ext != "csv"):
			t.Fatalf("%q taken by two families: %+v", data, taken)
		}
	})
}

// checkDetectError checks detect's refusal of data as want.
func checkDetectError(t *testing.T, data []byte, want family, err error, dir string) {
	t.Helper()
	var e *docmill.Error
	if !errors.As(err, &e) || e.Code != docmill.CodeInvalidDocument && e.Code != docmill.CodeUnsupportedFileType || e.Message == "" {
		t.Fatalf("detect(%q, %v): %#v, want invalid_document or unsupported_file_type", data, want, err)
	}
	for _, leak := range []string{dir, "input-0", fuzzSecret} {
		if strings.Contains(e.Message, leak) {
			t.Fatalf("detect(%q, %v): message %q shows %q", data, want, e.Message, leak)
		}
	}
	if strings.Contains(e.Error(), fuzzSecret) {
		t.Fatalf("detect(%q, %v): %q names an entry", data, want, e.Error())
	}
	// A file of another family is sent to that family's tool.
	if e.Code == docmill.CodeUnsupportedFileType && strings.HasPrefix(e.Message, "The file is a") {
		if strings.Contains(e.Message, want.toolFor()) {
			t.Fatalf("detect(%q, %v): %q sends it to the tool it came to", data, want, e.Message)
		}
		named := 0
		for _, other := range []family{text, spreadsheet, presentation} {
			if strings.Contains(e.Message, "use "+other.toolFor()+" ") {
				named++
			}
		}
		if named != 1 {
			t.Fatalf("detect(%q, %v): %q names %d tools", data, want, e.Message, named)
		}
	}
}

// checkKind checks what detect took data as, for want.
func checkKind(t *testing.T, data []byte, want family, k kind) {
	t.Helper()
	exts := map[string]bool{}
	switch {
	case bytes.HasPrefix(data, []byte("PK\x03\x04")):
		for _, e := range []string{"odt", "ods", "odp", "docx", "dotx", "docm", "xlsx", "xltx", "xlsm", "pptx", "ppsx", "potx", "pptm"} {
			exts[e] = true
		}
	case bytes.HasPrefix(data, []byte("\xD0\xCF\x11\xE0\xA1\xB1\x1A\xE1")):
		exts = map[string]bool{"doc": true, "xls": true, "ppt": true}
	case bytes.HasPrefix(data, []byte(`{\rtf`)):
		exts = map[string]bool{"rtf": true}
	case bytes.HasPrefix(data, word2Magic):
		exts = map[string]bool{"doc": true}
	default:
		exts = map[string]bool{"txt": want == text, "csv": want == spreadsheet}
	}
	if k.fam != want || !exts[k.ext] {
		t.Fatalf("detect(%q, %v) = %+v", data, want, k)
	}
	if k.ext == "csv" {
		sep, rest, _ := strings.Cut(k.options, ",")
		n, err := strconv.Atoi(sep)
		if err != nil || !strings.ContainsRune(",;\t|", rune(n)) || rest != "34,76,1" || k.filter == "" {
			t.Fatalf("detect(%q, %v) = %+v: bad CSV options", data, want, k)
		}
	}
	if (k.ext == "txt" || k.ext == "csv") && bytes.IndexByte(data[:min(len(data), 4096)], 0) >= 0 &&
		!bytes.HasPrefix(data, []byte("\xFF\xFE")) && !bytes.HasPrefix(data, []byte("\xFE\xFF")) {
		t.Fatalf("detect(%q, %v) = %+v: binary taken as text", data, want, k)
	}
}

// TestDetectZipReadsEachNameOnce: only the first [Content_Types].xml (and
// mimetype) of an archive is read, so that thousands of entries of that
// name, each inflating to maxPart, cannot make detection inflate
// gigabytes: a later one that would match is not looked at.
func TestDetectZipReadsEachNameOnce(t *testing.T) {
	pairs := []string{"[Content_Types].xml", "<Types/>"}
	for range 3 {
		pairs = append(pairs, "[Content_Types].xml", strings.Repeat(" ", maxPart))
	}
	pairs = append(pairs, "[Content_Types].xml", contentTypes("wordprocessingml.document.main+xml"))
	path := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(path, officeZip(t, pairs...), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := detect(path, text, docmill.Limits{}); docmill.ErrorCode(err) != docmill.CodeUnsupportedFileType {
		t.Fatalf("got %v, want unsupported_file_type from the first [Content_Types].xml", err)
	}
}
