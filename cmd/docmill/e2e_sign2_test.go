package main

import (
	"bytes"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"fmt"
	"math/big"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"software.sslmate.com/src/go-pkcs12"

	"github.com/docmill/docmill/client"
	"github.com/docmill/docmill/tools/toolstest"
)

// sign2PKCS12 returns a PKCS#12 file of a fresh self-signed certificate
// (CN commonName) and its key, ECDSA P-256 when ecKey, else RSA 2048,
// made by Go's crypto/x509 and encoded by enc under password.
func sign2PKCS12(t testing.TB, commonName string, ecKey bool, enc *pkcs12.Encoder, password string) []byte {
	t.Helper()
	key := toolstest.NewKey(t, ecKey)
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(time.Now().UnixNano()),
		Subject:      pkix.Name{CommonName: commonName, Organization: []string{"Docmill Test"}},
		NotBefore:    time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageContentCommitment,
		BasicConstraintsValid: true,
	}
	cert := toolstest.Certificate(t, tmpl, key.Public(), key)
	p12, err := enc.Encode(key, cert, nil, password)
	if err != nil {
		t.Fatal(err)
	}
	return p12
}

// sign2SigDicts returns the signature dictionaries of a PDF as qpdf
// --json (version 1) reads them, strings as text.
func sign2SigDicts(t testing.TB, data []byte) []map[string]any {
	t.Helper()
	raw, err := exec.Command("qpdf", "--json=1", "--json-key=objects", toolstest.WriteTemp(t, "sig.pdf", data)).Output()
	if err != nil {
		t.Fatalf("qpdf --json: %v", err)
	}
	var doc struct {
		Objects map[string]json.RawMessage `json:"objects"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	var out []map[string]any
	for _, o := range doc.Objects {
		var d map[string]any
		if json.Unmarshal(o, &d) == nil && d["/Type"] == "/Sig" {
			out = append(out, d)
		}
	}
	return out
}

// sign2WidgetRect returns the page (1-based) and /Rect of the PDF's
// signature widget, as qpdf reads the pages' /Annots (QPDFObjects).
func sign2WidgetRect(t testing.TB, data []byte) (int, [4]float64) {
	t.Helper()
	doc := toolstest.QPDFObjects(t, toolstest.WriteTemp(t, "w.pdf", data))
	for i, p := range doc.Pages {
		for _, a := range doc.Annotations(p) {
			if a["/FT"] == "/Sig" {
				return i + 1, doc.Rect(a["/Rect"])
			}
		}
	}
	t.Fatal("no signature widget on any page")
	return 0, [4]float64{}
}

// sign2Render returns page of a PDF drawn by pdftoppm at 30 dpi.
func sign2Render(t testing.TB, data []byte, page int) []byte {
	t.Helper()
	p := strconv.Itoa(page)
	out, err := exec.Command("pdftoppm", "-r", "30", "-f", p, "-l", p, toolstest.WriteTemp(t, "r.pdf", data)).Output()
	if err != nil {
		t.Fatalf("pdftoppm: %v", err)
	}
	return out
}

// TestSignPAdESE2E signs, through a real server, a file with an xref
// stream and one with a classic table, in both formats, with an RSA key
// from a modern (AES) PKCS#12 file and an ECDSA one from a legacy (3DES)
// file: pdfsig finds each signature valid, of its SubFilter, over the
// whole document; verify-pdf-signatures agrees; the reason, location and
// contact are in the signature dictionary; a change appended afterwards
// is reported by both; the password is in no job record nor log line.
func TestSignPAdESE2E(t *testing.T) {
	t.Parallel()
	s := startServer(t, "")
	c := s.client(s.DevKey)
	const password = "sign2-пароль"
	rsaP12 := sign2PKCS12(t, "Signer RSA", false, pkcs12.Modern, password)
	ecP12 := sign2PKCS12(t, "Signer ECDSA", true, pkcs12.Legacy, password)
	params := map[string]string{"certificate_password": password, "reason": "Согласовано", "location": "Москва", "contact": "signer@example.com"}
	for _, tc := range []struct {
		pdf, format, subFilter string
		p12                    []byte
		cn                     string
	}{
		{fourPages, "pades", "ETSI.CAdES.detached", rsaP12, "Signer RSA"},
		{fourPages, "pkcs7", "adbe.pkcs7.detached", ecP12, "Signer ECDSA"},
		{"google-doc-document.pdf", "pades", "ETSI.CAdES.detached", ecP12, "Signer ECDSA"},
		{"google-doc-document.pdf", "pkcs7", "adbe.pkcs7.detached", rsaP12, "Signer RSA"},
	} {
		t.Run(tc.pdf+" "+tc.format+" "+tc.cn, func(t *testing.T) {
			p := map[string]string{"format": tc.format}
			for k, v := range params {
				p[k] = v
			}
			j, signed := runTool(t, c, "sign-pdf", []client.File{file(t, "pdf", tc.pdf), pdfFile("signer.p12", tc.p12)}, p)
			if j.Meta["signer"] != tc.cn || j.Meta["format"] != tc.subFilter || j.Meta["visible"] != false {
				t.Errorf("meta %v", j.Meta)
			}
			report := signPdfsig(t, signed)
			for _, want := range []string{"Signer Certificate Common Name: " + tc.cn, "Signature Type: " + tc.subFilter,
				"Signing Hash Algorithm: SHA-256", "Total document signed", "Signature Validation: Signature is Valid."} {
				if !strings.Contains(report, want) {
					t.Errorf("pdfsig does not report %q:\n%s", want, report)
				}
			}
			r := signVerify(t, c, "signed.pdf", signed)
			if len(r.Signatures) != 1 || !r.Signatures[0].SignatureValid || r.Signatures[0].SignatureType != tc.subFilter ||
				!r.Signatures[0].CoversWholeDocument || r.Signatures[0].Signer.CommonName != tc.cn {
				t.Errorf("verify-pdf-signatures: %+v", r)
			}
			dicts := sign2SigDicts(t, signed)
			if len(dicts) != 1 || dicts[0]["/Reason"] != "Согласовано" || dicts[0]["/Location"] != "Москва" ||
				dicts[0]["/ContactInfo"] != "signer@example.com" || dicts[0]["/SubFilter"] != "/"+tc.subFilter {
				t.Errorf("signature dictionaries %v", dicts)
			}
			changed := signAppendUpdate(t, signed)
			if report := signPdfsig(t, changed); !strings.Contains(report, "Not total document signed") {
				t.Errorf("pdfsig of the file changed after signing:\n%s", report)
			}
			if r := signVerify(t, c, "changed.pdf", changed); len(r.Signatures) != 1 || !r.Signatures[0].ModifiedAfterSigning {
				t.Errorf("verify-pdf-signatures of the changed file: %+v", r)
			}
			if rec := signJobRecord(t, s, j.JobID); strings.Contains(rec, password) {
				t.Errorf("the job record holds the password: %s", rec)
			}
		})
	}
	if log := signServerLog(s); strings.Contains(log, password) {
		t.Error("the server log holds the password")
	}
}

// TestSignVisibleE2E draws a visible signature with Cyrillic text at the
// top left of page 3 and signs the result again invisibly: the widget is
// on page 3, at the top left; pdftotext reads the text there; the page's
// pixels differ from the unsigned page's; pdfsig finds both signatures
// valid, the first no longer over the whole document.
func TestSignVisibleE2E(t *testing.T) {
	t.Parallel()
	s := startServer(t, "")
	c := s.client(s.DevKey)
	p12 := sign2PKCS12(t, "Анна Подписантова", true, pkcs12.Modern, "pw")
	const text = "Подписано Анной\nСогласовано"
	j, signed := runTool(t, c, "sign-pdf", []client.File{file(t, "pdf", fourPages), pdfFile("signer.p12", p12)},
		map[string]string{"certificate_password": "pw", "visible": "true", "page": "3", "position": "top-left", "text": text})
	if j.Meta["visible"] != true || j.Meta["pages"] != float64(4) {
		t.Errorf("meta %v", j.Meta)
	}
	page, rect := sign2WidgetRect(t, signed)
	if page != 3 || rect[0] > 100 || rect[3] < 700 || rect[2]-rect[0] < 30 || rect[3]-rect[1] < 10 {
		t.Errorf("widget on page %d at %v, want page 3 top left", page, rect)
	}
	out, err := exec.Command("pdftotext", "-f", "3", "-l", "3", "-x", "0", "-y", "0", "-W", "300", "-H", "150",
		toolstest.WriteTemp(t, "v.pdf", signed), "-").Output()
	if err != nil || !strings.Contains(string(out), "Подписано Анной") || !strings.Contains(string(out), "Согласовано") {
		t.Errorf("pdftotext of page 3's top left: %q %v", out, err)
	}
	if bytes.Equal(sign2Render(t, toolstest.ReadCorpus(t, "pdf", fourPages), 3), sign2Render(t, signed, 3)) {
		t.Error("page 3 looks the same signed")
	}
	_, twice := runTool(t, c, "sign-pdf", []client.File{pdfFile("signed.pdf", signed), pdfFile("signer.p12", p12)},
		map[string]string{"certificate_password": "pw"})
	report := signPdfsig(t, twice)
	first, second, ok := strings.Cut(report, "Signature #2:")
	if !ok || strings.Count(report, "Signature is Valid.") != 2 || !strings.Contains(first, "Not total document signed") ||
		!strings.Contains(second, "Total document signed") || strings.Contains(second, "Not total") {
		t.Errorf("pdfsig of the file signed twice:\n%s", report)
	}
}

// TestSignHostileE2E: a page beyond the document, a huge PKCS#12 file, a
// PDF whose page tree loops and an encrypted PDF are refused as the
// client's errors; a PDF whose cross-reference data is damaged is
// repaired, then signed; and the server stays up.
func TestSignHostileE2E(t *testing.T) {
	t.Parallel()
	s := startServer(t, "")
	c := s.client(s.DevKey)
	p12 := sign2PKCS12(t, "Hostile", false, pkcs12.Modern, "pw")
	huge := append([]byte("\x30\x84\x00\x20\x00\x00\x02\x01\x03\x30"), toolstest.Noise(2<<20)...)
	var loop bytes.Buffer
	loop.WriteString("%PDF-1.7\n")
	var offs []int
	for i, o := range []string{"<< /Type /Catalog /Pages 2 0 R >>", "<< /Type /Pages /Kids [3 0 R 2 0 R] /Count 2 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] >>"} {
		offs = append(offs, loop.Len())
		fmt.Fprintf(&loop, "%d 0 obj\n%s\nendobj\n", i+1, o)
	}
	at := loop.Len()
	loop.WriteString("xref\n0 4\n0000000000 65535 f \n")
	for _, o := range offs {
		loop.WriteString(padOffset(o) + " 00000 n \n")
	}
	fmt.Fprintf(&loop, "trailer\n<< /Size 4 /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n", at)
	for _, tc := range []struct {
		name   string
		files  []client.File
		params map[string]string
		code   string
		says   string
	}{
		{"page beyond", []client.File{file(t, "pdf", fourPages), pdfFile("s.p12", p12)},
			map[string]string{"certificate_password": "pw", "visible": "true", "page": "9"}, "invalid_parameter", "page"},
		{"huge p12", []client.File{file(t, "pdf", fourPages), pdfFile("huge.p12", huge)}, nil, "invalid_document", "certificate file"},
		{"encrypted", []client.File{file(t, "pdf", "libreoffice-writer-password.pdf"), pdfFile("s.p12", p12)},
			map[string]string{"certificate_password": "pw"}, "invalid_document", "password"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, msg := toolRefusal(t, c, "sign-pdf", tc.files, tc.params)
			if code != tc.code || !strings.Contains(msg, tc.says) || strings.Contains(msg, "/tmp") {
				t.Fatalf("%s %q, want %s saying %q", code, msg, tc.code, tc.says)
			}
		})
	}
	// A looping page tree, which qpdf's repair leaves unreadable to
	// pdfcpu, is rewritten by Ghostscript (the repair chain's next step),
	// and the rewrite is signed.
	j, looped := runTool(t, c, "sign-pdf", []client.File{pdfFile("loop.pdf", loop.Bytes()), pdfFile("s.p12", p12)},
		map[string]string{"certificate_password": "pw"})
	if report := signPdfsig(t, looped); j.Meta["repaired"] != true || !strings.Contains(report, "Signature is Valid.") {
		t.Errorf("looping page tree: meta %v, pdfsig:\n%s", j.Meta, report)
	}
	// A file whose last startxref points nowhere is repaired (rewritten)
	// by the server, and the repair signed.
	broken := regexp.MustCompile(`startxref\s+\d+`).ReplaceAll(toolstest.ReadCorpus(t, "pdf", "google-doc-document.pdf"), []byte("startxref\n12"))
	j, repaired := runTool(t, c, "sign-pdf", []client.File{pdfFile("broken.pdf", broken), pdfFile("s.p12", p12)},
		map[string]string{"certificate_password": "pw"})
	if report := signPdfsig(t, repaired); j.Meta["repaired"] != true || !strings.Contains(report, "Signature is Valid.") ||
		!strings.Contains(report, "Total document signed") {
		t.Errorf("damaged file: meta %v, pdfsig:\n%s", j.Meta, report)
	}
	// The server still signs.
	if _, signed := runTool(t, c, "sign-pdf", []client.File{file(t, "pdf", fourPages), pdfFile("s.p12", p12)},
		map[string]string{"certificate_password": "pw"}); !strings.Contains(signPdfsig(t, signed), "Signature is Valid.") {
		t.Error("signing after the hostile inputs failed")
	}
}
