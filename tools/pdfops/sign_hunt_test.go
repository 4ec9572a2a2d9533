package pdfops_test

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"crypto/x509/pkix"
	"errors"
	"fmt"
	"math/big"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"software.sslmate.com/src/go-pkcs12"

	docmill "github.com/docmill/docmill"
	"github.com/docmill/docmill/tools/pdfops"
	"github.com/docmill/docmill/tools/toolstest"
)

// huntP12 writes a PKCS#12 file (no password) of an ECDSA P-256 key and
// a self-signed certificate of subject (its issuer too), and returns its
// path.
func huntP12(t testing.TB, subject pkix.Name) string {
	t.Helper()
	key := toolstest.NewKey(t, true)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(3), Subject: subject,
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour)}
	cert := toolstest.Certificate(t, tmpl, key.Public(), key)
	p12, err := pkcs12.Modern.Encode(key, cert, nil, "")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "hunt.p12")
	if err := os.WriteFile(path, p12, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestSignLongIssuerName signs with a certificate whose issuer name is
// about 2.6 KB (60 organizational units of 40 letters; NSS, which
// pdfsig checks with, fails on names far longer): the CMS repeats
// the issuer twice beyond the certificate, and used to overflow the room
// reserved for it, an internal error; pdfsig now finds the signature
// valid.
func TestSignLongIssuerName(t *testing.T) {
	units := make([]string, 60)
	for i := range units {
		units[i] = strings.Repeat(string(rune('a'+i%26)), 40)
	}
	p12 := huntP12(t, pkix.Name{CommonName: "Long Issuer", OrganizationalUnit: units})
	out, err := signRun(t, fourPagesPDF(t), p12, nil)
	if err != nil {
		t.Fatal(err)
	}
	if report := signPdfsig(t, out.Path); !strings.Contains(report, "Signature is Valid.") || !strings.Contains(report, "Total document signed") {
		t.Errorf("pdfsig:\n%s", report)
	}
}

// huntQPDFCheck runs qpdf --check on the PDF at path and fails t on any
// warning or error, skipping t without qpdf.
func huntQPDFCheck(t testing.TB, path string) {
	t.Helper()
	toolstest.Need(t, "qpdf")
	out, err := exec.Command("qpdf", "--check", path).CombinedOutput()
	if err != nil || strings.Contains(string(out), "WARNING") {
		t.Errorf("qpdf --check: %v\n%s", err, out)
	}
}

// TestSignDanglingAnnots signs documents whose page's /Annots, or whose
// form's /Fields, refers to an object the file does not hold. The update used to write the new
// array as that object: one far above the trailer's /Size was past the
// /Size of the update's trailer too (qpdf reports a broken
// cross-reference section), and one just above it was a number the
// update also gave to an object of its own, so that one of the two was
// lost. The array is now written into the page: no object is written
// twice, and qpdf finds the file clean.
func TestSignDanglingAnnots(t *testing.T) {
	p12 := huntP12(t, pkix.Name{CommonName: "Dangling"})
	for name, c := range map[string]struct{ catalog, page string }{
		"annots 9":      {"", "/Annots 9 0 R"},
		"annots 999999": {"", "/Annots 999999 0 R"},
		"fields 9":      {"/AcroForm << /Fields 9 0 R >>", ""},
		"fields 999999": {"/AcroForm << /Fields 999999 0 R >>", ""},
	} {
		t.Run(name, func(t *testing.T) {
			pdf := toolstest.WriteTemp(t, "dangling.pdf", toolstest.PDF(
				"<< /Type /Catalog /Pages 2 0 R "+c.catalog+" >>",
				"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
				"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] "+c.page+" >>"))
			out, err := signRun(t, pdf, p12, map[string]string{"visible": "true"})
			if err != nil {
				t.Fatal(err)
			}
			huntQPDFCheck(t, out.Path)
			huntObjectsOnce(t, pdf, out.Path)
			if report := signPdfsig(t, out.Path); !strings.Contains(report, "Signature is Valid.") {
				t.Errorf("pdfsig:\n%s", report)
			}
			signWidgetRect(t, out.Path, 1)
		})
	}
}

// huntObjectsOnce fails t if the update appended to the PDF at orig, to
// make the PDF at signed, writes an object number twice.
func huntObjectsOnce(t testing.TB, orig, signed string) {
	t.Helper()
	a, err := os.ReadFile(orig)
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(signed)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, m := range regexp.MustCompile(`(?m)^(\d+) \d+ obj$`).FindAllSubmatch(b[len(a):], -1) {
		if seen[string(m[1])] {
			t.Errorf("the update writes object %s twice", m[1])
		}
		seen[string(m[1])] = true
	}
}

// TestSignVisibleHostileBoxes: a visible signature on a page whose box is
// not finite or far past any paper size used to be written with NaN or
// +Inf in its /Rect (no PDF numbers; qpdf reads them as unknown tokens)
// or, at 1e38, as a widget of zero size; it is now refused as the
// document's error. The same pages still sign invisibly.
func TestSignVisibleHostileBoxes(t *testing.T) {
	p12 := huntP12(t, pkix.Name{CommonName: "Boxes"})
	for _, box := range []string{"[0 0 1e308 1e308]", "[-1e308 -1e308 1e308 1e308]", "[0 0 nan 200]", "[1e38 1e38 2e38 2e38]"} {
		t.Run(box, func(t *testing.T) {
			pdf := toolstest.WriteTemp(t, "box.pdf", toolstest.PDF(
				"<< /Type /Catalog /Pages 2 0 R >>",
				"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
				"<< /Type /Page /Parent 2 0 R /MediaBox "+box+" >>"))
			_, err := signRun(t, pdf, p12, map[string]string{"visible": "true"})
			var e *docmill.Error
			if !errors.As(err, &e) || e.Code != docmill.CodeInvalidDocument || !strings.Contains(e.Message, "invisibly") {
				t.Fatalf("%v, want invalid_document", err)
			}
			if _, err := signRun(t, pdf, p12, nil); err != nil {
				t.Errorf("invisible: %v", err)
			}
		})
	}
}

// huntHugeRSA returns an RSA key of bits bits made of random odd factors
// (not primes, which would take hours to find at this size) that pass
// the consistency checks Go's parser runs: p·q = n, and d inverts e
// modulo p-1 and q-1.
func huntHugeRSA(t testing.TB, bits int) *rsa.PrivateKey {
	t.Helper()
	one, e := big.NewInt(1), big.NewInt(65537)
	for range 100 {
		p, q := huntOddFactor(t, bits/2), huntOddFactor(t, bits/2)
		p1, q1 := new(big.Int).Sub(p, one), new(big.Int).Sub(q, one)
		lcm := new(big.Int).Div(new(big.Int).Mul(p1, q1), new(big.Int).GCD(nil, nil, p1, q1))
		d := new(big.Int).ModInverse(e, lcm)
		qInv := new(big.Int).ModInverse(q, p)
		n := new(big.Int).Mul(p, q)
		if d == nil || qInv == nil || n.BitLen() != bits {
			continue
		}
		k := &rsa.PrivateKey{PublicKey: rsa.PublicKey{N: n, E: 65537}, D: d, Primes: []*big.Int{p, q}}
		k.Precomputed.Dp, k.Precomputed.Dq, k.Precomputed.Qinv = new(big.Int).Mod(d, p1), new(big.Int).Mod(d, q1), qInv
		return k
	}
	t.Fatal("no key")
	return nil
}

// huntOddFactor returns a random odd number of exactly bits bits, its two
// top bits set.
func huntOddFactor(t testing.TB, bits int) *big.Int {
	t.Helper()
	n, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), uint(bits)))
	if err != nil {
		t.Fatal(err)
	}
	return n.SetBit(n, bits-1, 1).SetBit(n, bits-2, 1).SetBit(n, 0, 1)
}

// TestSignHugeRSAKey: a PKCS#12 file of 90 KB whose key is a 131,072-bit
// RSA key (the file may be 1 MB: its key, some 1.4 million bits) is
// refused from the size of its key bag, before the decoder parses the
// key. Go checks a key's numbers on parsing, in time that grows faster
// than the square of their size: some seconds at this size, 8 s at
// 262,144 bits, past the tool's timeout at 1 MB; the key was refused as
// too large only after that.
//
// Keys of the sizes sign-pdf takes, up to 8192 bits, in files of either
// encoding, pass the bound (these then fail to sign: their factors are
// not primes).
func TestSignHugeRSAKey(t *testing.T) {
	ca, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	run := func(bits int, enc *pkcs12.Encoder) error {
		key := huntHugeRSA(t, bits)
		tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "Huge"}, NotBefore: time.Now(), NotAfter: time.Now().Add(time.Hour)}
		der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, ca)
		if err != nil {
			t.Fatal(err)
		}
		cert, err := x509.ParseCertificate(der)
		if err != nil {
			t.Fatal(err)
		}
		p12, err := enc.Encode(key, cert, nil, "pw")
		if err != nil {
			t.Fatal(err)
		}
		_, err = signRun(t, fourPagesPDF(t), toolstest.WriteTemp(t, "huge.p12", p12), map[string]string{"certificate_password": "pw"})
		return err
	}
	err = run(131072, pkcs12.Modern)
	var e *docmill.Error
	if !errors.As(err, &e) || e.Code != docmill.CodeInvalidDocument || !strings.Contains(e.Message, "key takes") {
		t.Fatalf("%v, want invalid_document on the key's size", err)
	}
	for _, enc := range []*pkcs12.Encoder{pkcs12.Modern, pkcs12.Legacy} {
		// Past the bound, the key's factors fail the signature: the
		// certificate file's error, never the size's nor an internal one.
		err := run(8192, enc)
		var e *docmill.Error
		if !errors.As(err, &e) || e.Code != docmill.CodeInvalidDocument || !strings.Contains(e.Message, "private key could not sign") {
			t.Errorf("an 8192-bit key of random factors: %v, want invalid_document on its private key", err)
		}
	}
}

// TestSignKeyOfNoPrimes: an RSA key whose factors are not primes, but
// whose numbers agree as Go's parser checks them, cannot sign (Go checks
// each signature it makes). That failure used to be an internal error,
// retried; it is the certificate file's error now.
func TestSignKeyOfNoPrimes(t *testing.T) {
	key := huntHugeRSA(t, 2048)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "No Primes"}, NotBefore: time.Now(), NotAfter: time.Now().Add(time.Hour)}
	cert := toolstest.Certificate(t, tmpl, &key.PublicKey, toolstest.NewKey(t, true))
	p12, err := pkcs12.Modern.Encode(key, cert, nil, "")
	if err != nil {
		t.Fatal(err)
	}
	_, err = signRun(t, fourPagesPDF(t), toolstest.WriteTemp(t, "noprimes.p12", p12), nil)
	var e *docmill.Error
	if !errors.As(err, &e) || e.Code != docmill.CodeInvalidDocument || !strings.Contains(e.Message, "private key") {
		t.Fatalf("%v, want invalid_document on the key", err)
	}
}

// TestSignVisibleLongSignerName draws the default text of a visible
// signature whose certificate's common name is 200 lines (a name of any
// length, with line breaks, is a valid certificate). The name used to be
// drawn whole, a box of 2,000 points on a page of 842, and a file of
// 1 MB could make it tens of thousands of lines; it is now drawn on one
// line of at most 64 characters, and the widget fits the page.
func TestSignVisibleLongSignerName(t *testing.T) {
	p12 := huntP12(t, pkix.Name{CommonName: strings.Repeat("Line\n", 200)})
	out, err := signRun(t, fourPagesPDF(t), p12, map[string]string{"visible": "true"})
	if err != nil {
		t.Fatal(err)
	}
	toolstest.Need(t, "qpdf")
	if r := signWidgetRect(t, out.Path, 1); r[3]-r[1] > 60 || r[2]-r[0] > 400 {
		t.Errorf("widget rect %v, want a box of a few lines", r)
	}
}

// TestSignInvisiblePageParam: an invisible signature's widget is on page
// 1, as the tool says, whatever the page param (which places a visible
// one). It used to go on that page, and a page past the document's end
// was reported as a damaged document.
func TestSignInvisiblePageParam(t *testing.T) {
	p12 := huntP12(t, pkix.Name{CommonName: "Invisible"})
	for _, page := range []string{"3", "9"} {
		out, err := signRun(t, fourPagesPDF(t), p12, map[string]string{"page": page})
		if err != nil {
			t.Fatalf("page %s: %v", page, err)
		}
		toolstest.Need(t, "qpdf")
		signWidgetRect(t, out.Path, 1)
	}
}

// huntXRefStreamPDF returns a one-page PDF whose cross-reference stream
// (object 4, not compressed) declares /W w and /Index index, its data
// written for /W [1 2 1] /Index [0 5].
func huntXRefStreamPDF(w, index string) []byte {
	objects := []string{"<< /Type /Catalog /Pages 2 0 R >>", "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] >>"}
	var b bytes.Buffer
	b.WriteString("%PDF-1.7\n")
	data := []byte{0, 0, 0, 0xff}
	for i, o := range objects {
		data = append(data, 1, byte(b.Len()>>8), byte(b.Len()), 0)
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", i+1, o)
	}
	at := b.Len()
	data = append(data, 1, byte(at>>8), byte(at), 0)
	fmt.Fprintf(&b, "4 0 obj\n<< /Type /XRef /Size 5 /W %s /Index %s /Root 1 0 R /Length %d >>\nstream\n", w, index, len(data))
	b.Write(data)
	fmt.Fprintf(&b, "\nendstream\nendobj\nstartxref\n%d\n%%%%EOF\n", at)
	return b.Bytes()
}

// TestSignDamagedXRefStream: a file whose last cross-reference stream
// cannot be read as ISO 32000 says (/W or /Index impossible, or more
// entries than its data holds) is read by pdfcpu, which then scans the
// file for its objects; the update used to be appended anyway, with a
// /Prev to that stream, and qpdf and poppler then found the signed file
// damaged (poppler: no page tree). It is now unreadable, so that the
// server repairs it and signs the repair. A sound stream still signs.
func TestSignDamagedXRefStream(t *testing.T) {
	p12 := huntP12(t, pkix.Name{CommonName: "XRef Stream"})
	out, err := signRun(t, toolstest.WriteTemp(t, "sound.pdf", huntXRefStreamPDF("[1 2 1]", "[0 5]")), p12, nil)
	if err != nil {
		t.Fatalf("a sound stream: %v", err)
	}
	huntQPDFCheck(t, out.Path)
	for name, c := range map[string][2]string{
		"index of 1e9 entries":     {"[1 2 1]", "[0 1000000000]"},
		"index past int32":         {"[1 2 1]", "[2147483000 5]"},
		"negative index":           {"[1 2 1]", "[-5 5]"},
		"100,000 subsections":      {"[1 2 1]", "[" + strings.Repeat("0 5 ", 100000) + "]"},
		"field of 2e9 bytes":       {"[1 2000000000 1]", "[0 5]"},
		"field of 9 bytes":         {"[1 9 1]", "[0 5]"},
		"entries of no bytes":      {"[0 0 0]", "[0 5]"},
		"negative width":           {"[1 -2 1]", "[0 5]"},
		"two widths":               {"[1 2]", "[0 5]"},
		"index of an odd length":   {"[1 2 1]", "[0 5 7]"},
		"widths that are no ints ": {"[1 2.5 1]", "[0 5]"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := signRun(t, toolstest.WriteTemp(t, "xref.pdf", huntXRefStreamPDF(c[0], c[1])), p12, nil)
			if !errors.Is(err, docmill.ErrUnreadable) {
				t.Fatalf("%v, want an unreadable document", err)
			}
		})
	}
}

// TestSignTextControlCharacters: control characters in a visible
// signature's text, but its line breaks, are refused as the text's
// error. A NUL, which the stamp font maps to a glyph, was accepted and
// cut the line it was in.
func TestSignTextControlCharacters(t *testing.T) {
	tl := pdfops.SignTool()
	for _, text := range []string{"a\x00b", "a\x7fb", "a\u0085b"} {
		_, err := tl.ParseParams(map[string]string{"visible": "true", "text": text})
		var e *docmill.Error
		if !errors.As(err, &e) || e.Code != docmill.CodeInvalidParameter || !strings.Contains(e.Error(), "text") {
			t.Errorf("%q: %v, want invalid_parameter on text", text, err)
		}
	}
	if _, err := tl.ParseParams(map[string]string{"visible": "true", "text": "one\ntwo\r\nthree"}); err != nil {
		t.Errorf("line breaks: %v", err)
	}
}

// TestSignVisibleTooLarge: a visible signature larger than its page, even
// at the smallest letters (a line of 400 letters; the default text on a
// page of 40 points), is refused, naming the text, or the page when the
// text is the default; it used to be drawn partly off the page.
func TestSignVisibleTooLarge(t *testing.T) {
	p12 := huntP12(t, pkix.Name{CommonName: "Too Large"})
	small := toolstest.WriteTemp(t, "small.pdf", toolstest.PDF(
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 40 40] >>"))
	for _, c := range []struct{ pdf, text, field string }{
		{fourPagesPDF(t), strings.Repeat("W", 400), "text"},
		{small, "", "page"},
	} {
		_, err := signRun(t, c.pdf, p12, map[string]string{"visible": "true", "text": c.text})
		var e *docmill.Error
		if !errors.As(err, &e) || e.Code != docmill.CodeInvalidParameter || !strings.Contains(e.Error(), c.field) {
			t.Errorf("%v, want invalid_parameter on %s", err, c.field)
		}
	}
	if _, err := signRun(t, small, p12, map[string]string{"visible": "true", "text": "OK"}); err != nil {
		t.Errorf("a short text on the small page: %v", err)
	}
}

// TestSignGenerationPastTwoBytes signs a document whose cross-reference
// stream gives its page generation 70,000 (in 4-byte fields). The update
// rewrites the page under its generation, and its own stream held
// generations in 2 bytes: the entry said 4,464, and qpdf and poppler
// found no page. The field is now as wide as the values need.
func TestSignGenerationPastTwoBytes(t *testing.T) {
	objects := []string{"<< /Type /Catalog /Pages 2 0 R >>", "<< /Type /Pages /Kids [3 70000 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] >>"}
	var b bytes.Buffer
	b.WriteString("%PDF-1.7\n")
	data := []byte{0, 0, 0, 0, 0, 0, 0xff}
	for i, o := range objects {
		gen := 0
		if i == 2 {
			gen = 70000
		}
		data = append(data, 1, byte(b.Len()>>8), byte(b.Len()), 0, byte(gen>>16), byte(gen>>8), byte(gen))
		fmt.Fprintf(&b, "%d %d obj\n%s\nendobj\n", i+1, gen, o)
	}
	at := b.Len()
	data = append(data, 1, byte(at>>8), byte(at), 0, 0, 0, 0)
	fmt.Fprintf(&b, "4 0 obj\n<< /Type /XRef /Size 5 /W [1 2 4] /Root 1 0 R /Length %d >>\nstream\n", len(data))
	b.Write(data)
	fmt.Fprintf(&b, "\nendstream\nendobj\nstartxref\n%d\n%%%%EOF\n", at)
	out, err := signRun(t, toolstest.WriteTemp(t, "gen.pdf", b.Bytes()), huntP12(t, pkix.Name{CommonName: "Generation"}), map[string]string{"visible": "true"})
	if err != nil {
		t.Fatal(err)
	}
	huntQPDFCheck(t, out.Path)
	if report := signPdfsig(t, out.Path); !strings.Contains(report, "Signature is Valid.") || strings.Contains(report, "Syntax Error") {
		t.Errorf("pdfsig:\n%s", report)
	}
}
