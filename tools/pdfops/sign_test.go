package pdfops_test

import (
	"bytes"
	"context"
	"crypto/x509"
	"crypto/x509/pkix"
	"errors"
	"math/big"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"software.sslmate.com/src/go-pkcs12"

	docmill "github.com/docmill/docmill"
	"github.com/docmill/docmill/tools/pdfops"
	"github.com/docmill/docmill/tools/toolstest"
)

// signP12 writes a PKCS#12 file of a fresh self-signed certificate (CN
// cn) and its key, RSA 2048 or ECDSA P-256, encoded by enc under
// password, and returns its path.
func signP12(t testing.TB, cn string, ecKey bool, enc *pkcs12.Encoder, password string) string {
	t.Helper()
	key := toolstest.NewKey(t, ecKey)
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(time.Now().UnixNano()), Subject: pkix.Name{CommonName: cn, Organization: []string{"Docmill Test"}},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature | x509.KeyUsageContentCommitment, BasicConstraintsValid: true,
	}
	cert := toolstest.Certificate(t, tmpl, key.Public(), key)
	p12, err := enc.Encode(key, cert, nil, password)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "signer.p12")
	if err := os.WriteFile(path, p12, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// signRun runs sign-pdf on pdf and p12 with params (validated as the API
// does).
func signRun(t testing.TB, pdf, p12 string, params map[string]string) (*docmill.RunOutput, error) {
	t.Helper()
	tl := pdfops.SignTool()
	p, err := tl.ParseParams(params)
	if err != nil {
		return nil, err
	}
	in := &docmill.RunInput{Params: p, WorkDir: t.TempDir()}
	for _, f := range []struct{ path, typ string }{{pdf, "application/pdf"}, {p12, pdfops.PKCS12ContentType}} {
		st, err := os.Stat(f.path)
		if err != nil {
			t.Fatal(err)
		}
		in.Files = append(in.Files, docmill.LocalFile{Path: f.path, Filename: filepath.Base(f.path), ContentType: f.typ, Size: st.Size()})
	}
	return tl.Invoke(context.Background(), in)
}

// signPdfsig returns pdfsig's report on the PDF at path (no certificate
// check: the certificates are self-signed), skipping t without pdfsig.
func signPdfsig(t testing.TB, path string) string {
	t.Helper()
	toolstest.Need(t, "pdfsig")
	out, err := exec.Command("pdfsig", "-nocert", path).CombinedOutput()
	if err != nil {
		t.Fatalf("pdfsig: %v\n%s", err, out)
	}
	return string(out)
}

// TestSignFormatsAndKeys signs a file with an xref stream and one with a
// classic table, with RSA and ECDSA keys from modern and legacy PKCS#12
// files, in both formats; pdfsig finds each signature valid, of its
// format, over the whole file, and the original bytes unchanged.
func TestSignFormatsAndKeys(t *testing.T) {
	corpus := pdfCorpus(t)
	for _, c := range []struct {
		name, pdf, format, subFilter string
		ec                           bool
		enc                          *pkcs12.Encoder
	}{
		{"xref stream, pades, rsa modern", "pdflatex-4-pages.pdf", "pades", "ETSI.CAdES.detached", false, pkcs12.Modern},
		{"xref stream, pkcs7, ecdsa legacy", "pdflatex-forms.pdf", "pkcs7", "adbe.pkcs7.detached", true, pkcs12.Legacy},
		{"classic, pades, ecdsa modern", "google-doc-document.pdf", "pades", "ETSI.CAdES.detached", true, pkcs12.Modern},
		{"classic, pkcs7, rsa legacy", "annotated_pdf.pdf", "pkcs7", "adbe.pkcs7.detached", false, pkcs12.Legacy},
		{"linearized", "GeoTopo-komprimiert.pdf", "pades", "ETSI.CAdES.detached", false, pkcs12.Modern},
	} {
		t.Run(c.name, func(t *testing.T) {
			p12 := signP12(t, "Unit Signer", c.ec, c.enc, "pw")
			out, err := signRun(t, corpus+c.pdf, p12, map[string]string{"certificate_password": "pw", "format": c.format,
				"reason": "Проверка", "location": "Paris", "contact": "me@example.com"})
			if err != nil {
				t.Fatal(err)
			}
			report := signPdfsig(t, out.Path)
			for _, want := range []string{"Signature Type: " + c.subFilter, "Total document signed", "Signature is Valid.", "Signer Certificate Common Name: Unit Signer"} {
				if !strings.Contains(report, want) {
					t.Errorf("pdfsig does not report %q:\n%s", want, report)
				}
			}
			orig, _ := os.ReadFile(corpus + c.pdf)
			signed, _ := os.ReadFile(out.Path)
			if !strings.HasPrefix(string(signed), string(orig)) {
				t.Error("the original bytes changed")
			}
			if out.Meta["signer"] != "Unit Signer" || out.Meta["format"] != c.subFilter || out.Meta["visible"] != false {
				t.Errorf("meta %v", out.Meta)
			}
		})
	}
}

// signByteRange returns the /ByteRange of the last signature in data.
func signByteRange(t testing.TB, data []byte) [4]int {
	t.Helper()
	all := regexp.MustCompile(`/ByteRange\s*\[\s*(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s*\]`).FindAllSubmatch(data, -1)
	if len(all) == 0 {
		t.Fatal("no /ByteRange")
	}
	var br [4]int
	for i := range br {
		br[i], _ = strconv.Atoi(string(all[len(all)-1][i+1]))
	}
	return br
}

// TestSignByteRangeAndXRef checks the appended update: its /ByteRange
// covers the whole file but the /Contents hex string (angle brackets
// included), its cross-reference section is of the original's kind and
// points back (/Prev) at the original's last startxref.
func TestSignByteRangeAndXRef(t *testing.T) {
	corpus := pdfCorpus(t)
	p12 := signP12(t, "Range Signer", false, pkcs12.Modern, "")
	for name, stream := range map[string]bool{"pdflatex-4-pages.pdf": true, "google-doc-document.pdf": false} {
		out, err := signRun(t, corpus+name, p12, nil)
		if err != nil {
			t.Fatal(err)
		}
		orig, _ := os.ReadFile(corpus + name)
		data, _ := os.ReadFile(out.Path)
		br := signByteRange(t, data)
		if br[0] != 0 || br[3]+br[2] != len(data) || data[br[1]] != '<' || data[br[2]-1] != '>' ||
			strings.Trim(string(data[br[1]+1:br[2]-1]), "0123456789abcdef") != "" {
			t.Errorf("%s: byte range %v of %d bytes", name, br, len(data))
		}
		update := string(data[len(orig):])
		starts := regexp.MustCompile(`startxref\s+(\d+)`).FindAllStringSubmatch(string(orig), -1)
		if !strings.Contains(update, "/Prev "+starts[len(starts)-1][1]) {
			t.Errorf("%s: /Prev is not the original's last startxref %s", name, starts[len(starts)-1][1])
		}
		if got := strings.Contains(update, "/Type/XRef"); got != stream || strings.Contains(update, "\ntrailer\n") == stream {
			t.Errorf("%s: xref stream %v, want %v", name, got, stream)
		}
	}
}

// TestSignTwice signs a signed file again: pdfsig finds both signatures
// valid, the first no longer over the whole file, the second over it,
// in fields of their own.
func TestSignTwice(t *testing.T) {
	first := signP12(t, "First Signer", false, pkcs12.Modern, "one")
	second := signP12(t, "Second Signer", true, pkcs12.Legacy, "two")
	out, err := signRun(t, pdfCorpus(t)+"pdflatex-forms.pdf", first, map[string]string{"certificate_password": "one", "visible": "true"})
	if err != nil {
		t.Fatal(err)
	}
	out2, err := signRun(t, out.Path, second, map[string]string{"certificate_password": "two", "format": "pkcs7"})
	if err != nil {
		t.Fatal(err)
	}
	report := signPdfsig(t, out2.Path)
	one, two, ok := strings.Cut(report, "Signature #2:")
	if !ok || strings.Count(report, "Signature is Valid.") != 2 ||
		!strings.Contains(one, "First Signer") || !strings.Contains(one, "Not total document signed") || !strings.Contains(one, "Signature1") ||
		!strings.Contains(two, "Second Signer") || !strings.Contains(two, "Total document signed") || !strings.Contains(two, "Signature2") {
		t.Errorf("pdfsig of a file signed twice:\n%s", report)
	}
}

// TestSignVisible draws a visible signature with Cyrillic text on page 2
// of a file: the widget is on that page (qpdf), at the bottom right, and
// pdftotext reads the text there; the page's pixels differ there from
// the unsigned page's.
func TestSignVisible(t *testing.T) {
	for _, tool := range []string{"qpdf", "pdftotext", "pdftoppm"} {
		toolstest.Need(t, tool)
	}
	src := fourPagesPDF(t)
	p12 := signP12(t, "Видимый Подписант", false, pkcs12.Modern, "pw")
	out, err := signRun(t, src, p12, map[string]string{"certificate_password": "pw", "visible": "true", "page": "2",
		"position": "bottom-right", "text": "Подписано: Иван\nSigned by Ivan, 100% (%p)"})
	if err != nil {
		t.Fatal(err)
	}
	if out.Meta["visible"] != true || out.Meta["signer"] != "Видимый Подписант" {
		t.Errorf("meta %v", out.Meta)
	}
	if report := signPdfsig(t, out.Path); !strings.Contains(report, "Signature is Valid.") || !strings.Contains(report, "Total document signed") {
		t.Errorf("pdfsig:\n%s", report)
	}
	text, err := exec.Command("pdftotext", "-f", "2", "-l", "2", "-x", "300", "-y", "600", "-W", "400", "-H", "300", out.Path, "-").Output()
	if err != nil || !strings.Contains(string(text), "Подписано: Иван") || !strings.Contains(string(text), "Signed by Ivan, 100% (%p)") {
		t.Errorf("pdftotext of the bottom right of page 2: %q %v", text, err)
	}
	rect := signWidgetRect(t, out.Path, 2)
	if rect[0] < 300 || rect[1] > 200 || rect[2] <= rect[0] || rect[3] <= rect[1] {
		t.Errorf("widget rect %v, want at the bottom right of the page", rect)
	}
	before, after := signRender(t, src, 2), signRender(t, out.Path, 2)
	if bytes.Equal(before, after) {
		t.Error("page 2 looks the same signed")
	}
}

// signWidgetRect returns the /Rect of the signature widget on page (1-based)
// of the PDF at path, as qpdf reads the page's /Annots (QPDFObjects).
func signWidgetRect(t testing.TB, path string, page int) [4]float64 {
	t.Helper()
	doc := toolstest.QPDFObjects(t, path)
	for i, p := range doc.Pages {
		for _, a := range doc.Annotations(p) {
			if a["/FT"] == "/Sig" {
				if i+1 != page {
					t.Errorf("the signature widget is on page %d, want %d", i+1, page)
				}
				return doc.Rect(a["/Rect"])
			}
		}
	}
	t.Fatalf("no signature widget on any page")
	return [4]float64{}
}

// signRender returns page of the PDF at path drawn by pdftoppm at 30 dpi.
func signRender(t testing.TB, path string, page int) []byte {
	t.Helper()
	p := strconv.Itoa(page)
	out, err := exec.Command("pdftoppm", "-r", "30", "-f", p, "-l", p, path).Output()
	if err != nil {
		t.Fatalf("pdftoppm: %v", err)
	}
	return out
}

// TestSignRefusals: a page beyond the document, an encrypted PDF, a
// wrong password, a file with no key, garbage, a huge file and a page
// tree that loops are refused as the client's errors.
func TestSignRefusals(t *testing.T) {
	corpus := pdfCorpus(t)
	p12 := signP12(t, "Refused", false, pkcs12.Modern, "pw")
	dir := t.TempDir()
	write := func(name string, b []byte) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, b, 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
	certOnly, err := pkcs12.Modern.EncodeTrustStore([]*x509.Certificate{signTestCert(t)}, "pw")
	if err != nil {
		t.Fatal(err)
	}
	loop := write("loop.pdf", signLoopingPDF())
	for _, c := range []struct {
		name, pdf, p12 string
		params         map[string]string
		code           docmill.Code
		says           string
	}{
		{"page beyond", corpus + "pdflatex-4-pages.pdf", p12, map[string]string{"certificate_password": "pw", "visible": "true", "page": "5"}, docmill.CodeInvalidParameter, "page"},
		{"encrypted", encryptedPDF(t), p12, map[string]string{"certificate_password": "pw"}, docmill.CodeInvalidDocument, "password"},
		{"wrong password", corpus + "pdflatex-4-pages.pdf", p12, map[string]string{"certificate_password": "nope"}, docmill.CodeInvalidParameter, "certificate_password"},
		{"no key", corpus + "pdflatex-4-pages.pdf", write("cert.p12", certOnly), map[string]string{"certificate_password": "pw"}, docmill.CodeInvalidDocument, "no private key"},
		{"garbage", corpus + "pdflatex-4-pages.pdf", write("junk.p12", append([]byte("\x30\x82\x01\x00\x02\x01\x03"), bytes.Repeat([]byte{0x30, 0x80}, 500)...)), nil, docmill.CodeInvalidDocument, "PKCS#12"},
		{"huge", corpus + "pdflatex-4-pages.pdf", write("huge.p12", make([]byte, 3<<20)), nil, docmill.CodeInvalidDocument, "certificate file"},
		{"looping page tree", loop, p12, map[string]string{"certificate_password": "pw"}, docmill.CodeInvalidDocument, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := signRun(t, c.pdf, c.p12, c.params)
			var e *docmill.Error
			if !errors.As(err, &e) || e.Code != c.code || !strings.Contains(e.Error(), c.says) {
				t.Fatalf("%v, want %s saying %q", err, c.code, c.says)
			}
		})
	}
}

// TestSignKDFBomb: a PKCS#12 file of a few kilobytes whose MAC and
// encrypted parts ask for 8,388,607 key-derivation rounds each (a file
// the library spends minutes of CPU on before it can tell a wrong
// password) is refused at once, as a document error naming the rounds.
func TestSignKDFBomb(t *testing.T) {
	corpus := pdfCorpus(t)
	data, err := os.ReadFile(signP12(t, "Bomb", false, pkcs12.Modern.WithIterations(54321), "pw"))
	if err != nil {
		t.Fatal(err)
	}
	// 54321 is the DER INTEGER 02 03 00 d4 31; 0x7fffff has the same length.
	count := []byte{0x02, 0x03, 0x00, 0xd4, 0x31}
	if n := bytes.Count(data, count); n < 3 {
		t.Fatalf("the encoder wrote the count %d times, want the MAC's, the certificates' and the key's", n)
	}
	bomb := filepath.Join(t.TempDir(), "bomb.p12")
	if err := os.WriteFile(bomb, bytes.ReplaceAll(data, count, []byte{0x02, 0x03, 0x7f, 0xff, 0xff}), 0o600); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, err = signRun(t, corpus+"pdflatex-4-pages.pdf", bomb, map[string]string{"certificate_password": "pw"})
	var e *docmill.Error
	if !errors.As(err, &e) || e.Code != docmill.CodeInvalidDocument || !strings.Contains(e.Message, "8388607") {
		t.Fatalf("%v, want invalid_document naming 8388607 rounds", err)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("refused after %v: the rounds were run", d)
	}
}

// signTestCert returns a fresh self-signed certificate.
func signTestCert(t testing.TB) *x509.Certificate {
	t.Helper()
	key := toolstest.NewKey(t, true)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(7), Subject: pkix.Name{CommonName: "Cert Only"}, NotBefore: time.Now(), NotAfter: time.Now().Add(time.Hour)}
	return toolstest.Certificate(t, tmpl, key.Public(), key)
}

// signLoopingPDF returns a PDF whose page tree node lists itself as a
// kid, beside its one page.
func signLoopingPDF() []byte {
	return toolstest.PDF(
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R 2 0 R] /Count 2 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] >>",
	)
}

// TestSignVisibleRotated draws a visible signature on a page shown turned
// (habibi-rotated.pdf): pdfsig finds it valid and pdftotext reads its
// text upright.
func TestSignVisibleRotated(t *testing.T) {
	toolstest.Need(t, "pdftotext")
	p12 := signP12(t, "Rotated Signer", true, pkcs12.Modern, "")
	out, err := signRun(t, pdfCorpus(t)+"habibi-rotated.pdf", p12, map[string]string{"visible": "true", "text": "Upright signature"})
	if err != nil {
		t.Fatal(err)
	}
	if report := signPdfsig(t, out.Path); !strings.Contains(report, "Signature is Valid.") {
		t.Errorf("pdfsig:\n%s", report)
	}
	text, err := exec.Command("pdftotext", "-l", "1", out.Path, "-").Output()
	if err != nil || !strings.Contains(string(text), "Upright signature") {
		t.Errorf("pdftotext: %q %v", text, err)
	}
}

// TestSignDamagedXRef: a file whose last startxref points nowhere is
// unreadable (docmill.ErrUnreadable), which makes the server repair it
// and sign the repair.
func TestSignDamagedXRef(t *testing.T) {
	orig, err := os.ReadFile(pdfCorpus(t) + "google-doc-document.pdf")
	if err != nil {
		t.Fatal(err)
	}
	broken := regexp.MustCompile(`startxref\s+\d+`).ReplaceAll(orig, []byte("startxref\n12"))
	path := filepath.Join(t.TempDir(), "broken.pdf")
	if err := os.WriteFile(path, broken, 0o600); err != nil {
		t.Fatal(err)
	}
	_, err = signRun(t, path, signP12(t, "Damaged", false, pkcs12.Modern, ""), nil)
	if !errors.Is(err, docmill.ErrUnreadable) {
		t.Fatalf("%v, want an unreadable document", err)
	}
}
