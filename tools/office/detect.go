package office

import (
	"bufio"
	"bytes"
	"io"
	"os"
	"strconv"
	"strings"
	"unicode/utf16"

	docmill "github.com/docmill/docmill"
	"github.com/docmill/docmill/tools/ziplimit"
)

// family is what kind of office document a file is, and so which tool and
// which LibreOffice module converts it.
type family int

const (
	text family = iota + 1
	spreadsheet
	presentation
)

func (f family) String() string {
	return [...]string{"", "a text document", "a spreadsheet", "a presentation"}[f]
}

// toolFor names the tool that converts documents of f.
func (f family) toolFor() string {
	return [...]string{"", "word-to-pdf", "excel-to-pdf", "powerpoint-to-pdf"}[f]
}

// kind is a detected input format: its family, the extension LibreOffice
// is shown (its type detection also reads the content), and an import
// filter where detection cannot be left to LibreOffice (plain text and
// CSV, which it would otherwise open in whichever module it likes).
type kind struct {
	fam     family
	ext     string
	filter  string
	options string
}

// The content types httpapi's sniff gives office files: OOXML and ODF are
// zip archives, legacy OLE2 files (doc, xls, ppt) are unknown to
// http.DetectContentType, and RTF, plain text and CSV are text.
const (
	ctZip   = "application/zip"
	ctOLE   = "application/octet-stream"
	ctText  = "text/plain"
	ctRTF   = "text/rtf"
	ctRTF2  = "application/rtf"
	maxPart = 1 << 20 // bound on the [Content_Types].xml or mimetype read: a fact of the formats, whose parts are a few KB
)

// accepts is the Tool.Accepts of family f.
func accepts(f family) []string {
	if f == presentation {
		return []string{ctZip, ctOLE}
	}
	return []string{ctZip, ctOLE, ctText, ctRTF, ctRTF2}
}

// detect reads the file at path and tells what it is, by content only.
// want is the tool's family: text is read as plain text by word-to-pdf and
// as CSV by excel-to-pdf. A file of another family is refused with
// unsupported_file_type naming the right tool; a damaged archive is
// invalid_document.
func detect(path string, want family, limits docmill.Limits) (kind, error) {
	k, err := sniff(path, want, limits)
	if err != nil {
		return kind{}, err
	}
	if k.fam != want {
		return kind{}, docmill.Errorf(docmill.CodeUnsupportedFileType,
			"The file is %s (%s); use %s for it.", k.fam, k.ext, k.fam.toolFor())
	}
	return k, nil
}

// sniff tells what the file at path is, by content only, whatever its
// family; a text file is read as the family text hints (plain text for
// text, CSV for spreadsheet).
func sniff(path string, hint family, limits docmill.Limits) (kind, error) {
	f, err := os.Open(path)
	if err != nil {
		return kind{}, docmill.Internal(err)
	}
	defer f.Close()
	head := make([]byte, 8)
	n, _ := io.ReadFull(f, head)
	head = head[:n]
	var k kind
	switch {
	case bytes.HasPrefix(head, []byte("PK\x03\x04")):
		k, err = detectZip(path, limits)
	case bytes.HasPrefix(head, []byte("\xD0\xCF\x11\xE0\xA1\xB1\x1A\xE1")):
		k, err = detectOLE(f)
	case bytes.HasPrefix(head, []byte(`{\rtf`)):
		k = kind{fam: text, ext: "rtf"}
	case bytes.HasPrefix(head, word2Magic):
		k = kind{fam: text, ext: "doc", filter: "MS WinWord 5"}
	default:
		k, err = detectText(f, hint)
	}
	return k, err
}

// word2Magic starts a Word for Windows 2.0 document, which is not a
// compound file: its FIB's wIdent 0xA5DB and nFib 0x002D, little-endian.
// LibreOffice reads it with its "MS WinWord 5" filter ("Microsoft WinWord
// 1/2/5"), named here since its type detection looks for compound files.
var word2Magic = []byte{0xDB, 0xA5, 0x2D, 0x00}

// detectZip tells OOXML and ODF documents apart by the parts every one of
// them has: [Content_Types].xml names the main part's type, ODF's first
// entry "mimetype" holds the document's MIME type. Only the first entry
// of each name is read: thousands of entries named [Content_Types].xml,
// each inflating to maxPart, would otherwise cost gigabytes of inflating.
func detectZip(path string, limits docmill.Limits) (kind, error) {
	// A zip bomb is refused here, before its directory is loaded.
	z, err := ziplimit.Open(path, limits)
	if err != nil {
		return kind{}, err
	}
	defer z.Close()
	seen := map[string]bool{}
	for _, zf := range z.File {
		if zf.Name != "mimetype" && zf.Name != "[Content_Types].xml" || seen[zf.Name] {
			continue
		}
		seen[zf.Name] = true
		rc, err := zf.Open()
		if err != nil {
			return kind{}, docmill.Errorf(docmill.CodeInvalidDocument, "The document's archive is damaged.")
		}
		b, err := io.ReadAll(io.LimitReader(rc, maxPart))
		rc.Close()
		if err != nil {
			return kind{}, docmill.Errorf(docmill.CodeInvalidDocument, "The document's archive is damaged.")
		}
		if k, ok := zipKind(string(b)); ok {
			return k, nil
		}
	}
	return kind{}, docmill.Errorf(docmill.CodeUnsupportedFileType, "The zip archive is not a Word, Excel, PowerPoint or OpenDocument file.")
}

// zipKind maps the content of an ODF mimetype entry or an OOXML
// [Content_Types].xml to a kind. Macro-enabled and template variants are
// taken too: macros never run.
func zipKind(s string) (kind, bool) {
	for _, m := range []struct {
		marker string
		k      kind
	}{
		{"application/vnd.oasis.opendocument.text", kind{fam: text, ext: "odt"}},
		{"application/vnd.oasis.opendocument.spreadsheet", kind{fam: spreadsheet, ext: "ods"}},
		{"application/vnd.oasis.opendocument.presentation", kind{fam: presentation, ext: "odp"}},
		{"wordprocessingml.document.main+xml", kind{fam: text, ext: "docx"}},
		{"wordprocessingml.template.main+xml", kind{fam: text, ext: "dotx"}},
		{"ms-word.document.macroEnabled.main+xml", kind{fam: text, ext: "docm"}},
		{"spreadsheetml.sheet.main+xml", kind{fam: spreadsheet, ext: "xlsx"}},
		{"spreadsheetml.template.main+xml", kind{fam: spreadsheet, ext: "xltx"}},
		{"ms-excel.sheet.macroEnabled.main+xml", kind{fam: spreadsheet, ext: "xlsm"}},
		{"presentationml.presentation.main+xml", kind{fam: presentation, ext: "pptx"}},
		{"presentationml.slideshow.main+xml", kind{fam: presentation, ext: "ppsx"}},
		{"presentationml.template.main+xml", kind{fam: presentation, ext: "potx"}},
		{"ms-powerpoint.presentation.macroEnabled.main+xml", kind{fam: presentation, ext: "pptm"}},
	} {
		if strings.Contains(s, m.marker) {
			return m.k, true
		}
	}
	return kind{}, false
}

// detectOLE tells Word, Excel and PowerPoint compound files apart by the
// name of their main stream, found in the directory: entries are 128
// bytes, sectors 512 or 4096, so a real entry name starts at a multiple of
// 128. Names are matched without case, as compound files compare them
// (writers differ: "Workbook", "WORKBOOK"). An encrypted OOXML file is an
// OLE2 file with an EncryptedPackage stream.
func detectOLE(r io.ReadSeeker) (kind, error) {
	names := []struct {
		name string
		k    kind
	}{
		{"WordDocument", kind{fam: text, ext: "doc"}},
		{"Workbook", kind{fam: spreadsheet, ext: "xls"}},
		{"Book", kind{fam: spreadsheet, ext: "xls"}},
		{"PowerPoint Document", kind{fam: presentation, ext: "ppt"}},
		{"EncryptedPackage", kind{}},
	}
	if _, err := r.Seek(0, io.SeekStart); err != nil {
		return kind{}, docmill.Internal(err)
	}
	br := bufio.NewReaderSize(r, 1<<16)
	entry := make([]byte, 128)
	for {
		if _, err := io.ReadFull(br, entry); err != nil {
			break
		}
		name := entryName(entry)
		for _, n := range names {
			if strings.EqualFold(name, n.name) {
				if n.k.fam == 0 {
					return kind{}, docmill.Errorf(docmill.CodeInvalidDocument, "The document is password-protected; remove the password first.")
				}
				return n.k, nil
			}
		}
	}
	return kind{}, docmill.Errorf(docmill.CodeUnsupportedFileType, "The file is not a Word, Excel or PowerPoint document.")
}

// entryName is the name of a compound file's directory entry: UTF-16LE
// up to its terminating zero, within the entry's 64 name bytes ("" when
// unterminated, as no real entry is).
func entryName(entry []byte) string {
	u := make([]uint16, 0, 32)
	for i := 0; i+1 < 64; i += 2 {
		c := uint16(entry[i]) | uint16(entry[i+1])<<8
		if c == 0 {
			return string(utf16.Decode(u))
		}
		u = append(u, c)
	}
	return ""
}

// utf16z is s in UTF-16LE with its terminating zero, as a directory
// entry stores its name.
func utf16z(s string) []byte {
	b := make([]byte, 0, 2*len(s)+2)
	for _, c := range s {
		b = append(b, byte(c), 0)
	}
	return append(b, 0, 0)
}

// detectText takes a text file as plain text for word-to-pdf and as CSV
// for excel-to-pdf, with the separator its first line uses most.
func detectText(r io.ReadSeeker, want family) (kind, error) {
	if _, err := r.Seek(0, io.SeekStart); err != nil {
		return kind{}, docmill.Internal(err)
	}
	head := make([]byte, 4096)
	n, _ := io.ReadFull(r, head)
	head = head[:n]
	if bytes.IndexByte(head, 0) >= 0 && !bytes.HasPrefix(head, []byte("\xFF\xFE")) && !bytes.HasPrefix(head, []byte("\xFE\xFF")) {
		return kind{}, docmill.Errorf(docmill.CodeUnsupportedFileType, "The file is not a document LibreOffice can read.")
	}
	switch want {
	case text:
		return kind{fam: text, ext: "txt", filter: "Text (encoded)", options: "UTF8"}, nil
	case spreadsheet:
		line, _, _ := bytes.Cut(head, []byte("\n"))
		sep := ","
		best := bytes.Count(line, []byte(","))
		for _, s := range []string{";", "\t", "|"} {
			if c := bytes.Count(line, []byte(s)); c > best {
				sep, best = s, c
			}
		}
		// Filter options: separator, text delimiter ("), character set
		// 76 (UTF-8), first line 1.
		return kind{fam: spreadsheet, ext: "csv", filter: "Text - txt - csv (StarCalc)", options: strconv.Itoa(int(sep[0])) + ",34,76,1"}, nil
	}
	return kind{fam: text, ext: "txt"}, nil
}
