package main

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf16"

	"github.com/docmill/docmill/client"
	"github.com/docmill/docmill/tools/poppler"
	"github.com/docmill/docmill/tools/toolstest"
)

// signPKCS12 returns a PKCS#12 file of a fresh self-signed certificate
// (CN commonName, O "Docmill Test") and its RSA key, made by Go's
// crypto/x509 and exported by openssl under password.
func signPKCS12(t testing.TB, commonName, password string) []byte {
	t.Helper()
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(time.Now().UnixNano()),
		Subject:               pkix.Name{CommonName: commonName, Organization: []string{"Docmill Test"}},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(24 * time.Hour),
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageContentCommitment,
		BasicConstraintsValid: true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	certPEM := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
	keyPEM := pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)})
	for name, b := range map[string][]byte{"cert.pem": certPEM, "key.pem": keyPEM, "pass": []byte(password)} {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	out := filepath.Join(dir, "signer.p12")
	cmd := exec.Command("openssl", "pkcs12", "-export", "-in", "cert.pem", "-inkey", "key.pem", "-name", commonName,
		"-passout", "file:pass", "-out", out)
	cmd.Dir = dir
	if msg, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("openssl pkcs12 -export: %v\n%s", err, msg)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// signCertOnlyPKCS12 returns a PKCS#12 file that holds a certificate and
// no private key, made by openssl under password.
func signCertOnlyPKCS12(t testing.TB, password string) []byte {
	t.Helper()
	dir := t.TempDir()
	for _, args := range [][]string{
		{"req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "key.pem", "-out", "cert.pem", "-days", "1", "-subj", "/CN=No Key"},
		{"pkcs12", "-export", "-nokeys", "-in", "cert.pem", "-out", "cert.p12", "-passout", "pass:" + password},
	} {
		cmd := exec.Command("openssl", args...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("openssl %s: %v\n%s", args[0], err, out)
		}
	}
	b, err := os.ReadFile(filepath.Join(dir, "cert.p12"))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// signPdfsig runs poppler's pdfsig (no certificate check against a trust
// store: the test's certificate is self-signed) on data and returns its
// report.
func signPdfsig(t testing.TB, data []byte) string {
	t.Helper()
	out, err := exec.Command("pdfsig", "-nocert", toolstest.WriteTemp(t, "signed.pdf", data)).CombinedOutput()
	if err != nil {
		t.Fatalf("pdfsig: %v\n%s", err, out)
	}
	return string(out)
}

// signAppendUpdate returns data with an incremental update appended by
// hand: a new Info dictionary, a classic cross-reference section for it
// and a trailer that points back (/Prev) at the signed revision's. The
// catalog and size come from qpdf's reading of the trailer.
func signAppendUpdate(t testing.TB, data []byte) []byte {
	t.Helper()
	trailer, err := exec.Command("qpdf", "--show-object=trailer", toolstest.WriteTemp(t, "t.pdf", data)).Output()
	if err != nil {
		t.Fatalf("qpdf --show-object=trailer: %v", err)
	}
	root := regexp.MustCompile(`/Root (\d+ \d+ R)`).FindSubmatch(trailer)
	size := regexp.MustCompile(`/Size (\d+)`).FindSubmatch(trailer)
	starts := regexp.MustCompile(`startxref\s+(\d+)`).FindAllSubmatch(data, -1)
	if root == nil || size == nil || len(starts) == 0 {
		t.Fatalf("trailer %s, %d startxref", trailer, len(starts))
	}
	num, _ := strconv.Atoi(string(size[1]))
	out := append([]byte{}, data...)
	if out[len(out)-1] != '\n' {
		out = append(out, '\n')
	}
	objAt := len(out)
	out = append(out, strconv.Itoa(num)+" 0 obj\n<< /Title (Changed after signing) >>\nendobj\n"...)
	xrefAt := len(out)
	out = append(out, "xref\n0 1\n0000000000 65535 f \n"+strconv.Itoa(num)+" 1\n"...)
	out = append(out, []byte(padOffset(objAt)+" 00000 n \n")...)
	out = append(out, "trailer\n<< /Size "+strconv.Itoa(num+1)+" /Root "+string(root[1])+" /Info "+strconv.Itoa(num)+
		" 0 R /Prev "+string(starts[len(starts)-1][1])+" >>\nstartxref\n"+strconv.Itoa(xrefAt)+"\n%%EOF\n"...)
	return out
}

// signUTF16Hex returns s as a PDF text string in UTF-16BE with its byte
// order mark, in lower-case hex (as poppler writes it).
func signUTF16Hex(s string) string {
	var b strings.Builder
	b.WriteString("feff")
	for _, u := range utf16.Encode([]rune(s)) {
		fmt.Fprintf(&b, "%04x", u)
	}
	return b.String()
}

// padOffset writes a cross-reference offset as its ten digits.
func padOffset(n int) string {
	s := strconv.Itoa(n)
	return strings.Repeat("0", 10-len(s)) + s
}

// signJobRecord returns the job's record as the API sends it.
func signJobRecord(t testing.TB, s *testServer, id string) string {
	t.Helper()
	req, err := http.NewRequest("GET", s.URL+"/v1/jobs/"+id, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+s.DevKey)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("GET job %s: %d %v", id, resp.StatusCode, err)
	}
	return string(b)
}

// signServerLog returns every line the server logged so far.
func signServerLog(s *testServer) string {
	s.out.mu.Lock()
	defer s.out.mu.Unlock()
	return strings.Join(s.out.lines, "\n")
}

// TestSignPDFE2E signs a generated PDF through a real server with a
// certificate made here, and checks the result with poppler's pdfsig: a
// valid SHA-256 adbe.pkcs7.detached signature by that certificate over
// the whole file, with the reason given; the password appears in no job
// record nor log line; a wrong password and a second file that is no
// PKCS#12 are refused as client errors naming what is wrong.
func TestSignPDFE2E(t *testing.T) {
	t.Parallel()
	s := startServer(t, "")
	c := s.client(s.DevKey)
	const password = "Pa55-wörd for signing"
	p12 := signPKCS12(t, "Signer E2E", password)
	const reason = "Утверждено: e2e test"

	j, signed := runTool(t, c, "sign-pdf", []client.File{pdfFile("four-pages.pdf", fourPagePDF), pdfFile("signer.p12", p12)},
		map[string]string{"certificate_password": password, "reason": reason, "format": "pkcs7"})
	if j.Result.ContentType != "application/pdf" || j.Result.Filename != "four-pages-signed.pdf" || j.Meta["pages"] != float64(4) {
		t.Fatalf("result %+v, meta %v", j.Result, j.Meta)
	}
	report := signPdfsig(t, signed)
	for _, want := range []string{
		"Signature #1:", "Signer Certificate Common Name: Signer E2E", "O=Docmill Test",
		"Signing Hash Algorithm: SHA-256", "Signature Type: adbe.pkcs7.detached",
		"Total document signed", "Signature Validation: Signature is Valid.",
	} {
		if !strings.Contains(report, want) {
			t.Errorf("pdfsig does not report %q:\n%s", want, report)
		}
	}
	if strings.Contains(report, "Signature #2") {
		t.Errorf("pdfsig reads more than one signature:\n%s", report)
	}
	// The original revision is left as it was: signing only appends.
	orig := fourPagePDF
	if len(signed) <= len(orig) || string(signed[:len(orig)]) != string(orig) {
		t.Errorf("the signed file does not start with the original's %d bytes", len(orig))
	}
	// pdfsig 22 does not print the reason: it is in the signature
	// dictionary as a UTF-16 text string, which the file holds in hex.
	if want := "/Reason <" + signUTF16Hex(reason) + ">"; !strings.Contains(string(signed), want) {
		t.Errorf("the signature dictionary lacks %s", want)
	}
	// A change appended after signing leaves the signature valid over
	// its revision, which no longer covers the whole file.
	if report := signPdfsig(t, signAppendUpdate(t, signed)); !strings.Contains(report, "Not total document signed") ||
		!strings.Contains(report, "Signature is Valid.") {
		t.Errorf("pdfsig of the file changed after signing:\n%s", report)
	}
	if rec := signJobRecord(t, s, j.JobID); strings.Contains(rec, password) || strings.Contains(rec, "certificate_password") {
		t.Errorf("the job record holds the password: %s", rec)
	}

	t.Run("wrong password", func(t *testing.T) {
		code, msg := toolRefusal(t, c, "sign-pdf", []client.File{pdfFile("four-pages.pdf", fourPagePDF), pdfFile("signer.p12", p12)},
			map[string]string{"certificate_password": "not the password"})
		if code != "invalid_parameter" || !strings.Contains(msg, "certificate_password") || strings.Contains(msg, "not the password") {
			t.Fatalf("wrong password: %s %q", code, msg)
		}
	})
	t.Run("not PKCS#12", func(t *testing.T) {
		code, msg := toolRefusal(t, c, "sign-pdf", []client.File{pdfFile("four-pages.pdf", fourPagePDF), pdfFile("signer.p12", []byte("not a certificate at all\n"))},
			map[string]string{"certificate_password": password})
		if code != "unsupported_file_type" {
			t.Fatalf("text as certificate: %s %q", code, msg)
		}
		// DER that sniffs as PKCS#12 but is not one: refused by the engine.
		fake := append([]byte("\x30\x82\x01\x00\x02\x01\x03\x30\x82\x00\xf9"), toolstest.Noise(256)...)
		code, msg = toolRefusal(t, c, "sign-pdf", []client.File{pdfFile("four-pages.pdf", fourPagePDF), pdfFile("fake.p12", fake)},
			map[string]string{"certificate_password": password})
		if code != "invalid_document" || !strings.Contains(msg, "PKCS#12") || strings.Contains(msg, "SEC_ERROR") || strings.Contains(msg, "/tmp") {
			t.Fatalf("fake PKCS#12: %s %q", code, msg)
		}
	})
	t.Run("no private key", func(t *testing.T) {
		code, msg := toolRefusal(t, c, "sign-pdf", []client.File{pdfFile("four-pages.pdf", fourPagePDF), pdfFile("cert.p12", signCertOnlyPKCS12(t, "keyless"))},
			map[string]string{"certificate_password": "keyless"})
		if code != "invalid_document" || !strings.Contains(msg, "no private key") {
			t.Fatalf("certificate without a key: %s %q", code, msg)
		}
	})
	if log := signServerLog(s); strings.Contains(log, password) || strings.Contains(log, "not the password") {
		t.Errorf("the server log holds a password")
	}
}

// signVerified is verify-pdf-signatures' report.
type signVerified struct {
	Signatures []poppler.SignatureReport `json:"signatures"`
}

// signVerify runs verify-pdf-signatures on data and decodes its report.
func signVerify(t *testing.T, c *client.Client, name string, data []byte) signVerified {
	t.Helper()
	j, body := runTool(t, c, "verify-pdf-signatures", []client.File{pdfFile(name, data)}, nil)
	if j.Result.ContentType != "application/json" || !strings.HasSuffix(j.Result.Filename, "-signatures.json") {
		t.Fatalf("result %+v", j.Result)
	}
	var r signVerified
	if err := json.Unmarshal(body, &r); err != nil {
		t.Fatalf("report %s: %v", body, err)
	}
	if r.Signatures == nil || j.Meta["signatures"] != float64(len(r.Signatures)) {
		t.Fatalf("report %s, meta %v", body, j.Meta)
	}
	return r
}

// TestVerifyPDFSignaturesE2E signs a generated PDF through the server, then
// reads the signature back with verify-pdf-signatures and checks what it
// reports against the certificate made here, against the file's size and
// against what pdfsig itself prints: a valid signature by Signer Verify,
// over the whole file, self-signed (unknown_issuer: no trust anchors offline), signed a moment
// ago; after an incremental update appended by hand, the same signature
// is still valid but no longer covers the file, and pdfsig agrees. A PDF
// without signatures gives an empty list.
func TestVerifyPDFSignaturesE2E(t *testing.T) {
	t.Parallel()
	s := startServer(t, "")
	c := s.client(s.DevKey)
	p12 := signPKCS12(t, "Signer Verify", "verify-pass")
	start := time.Now().Add(-time.Minute)
	_, signed := runTool(t, c, "sign-pdf", []client.File{pdfFile("four-pages.pdf", fourPagePDF), pdfFile("signer.p12", p12)},
		map[string]string{"certificate_password": "verify-pass", "format": "pkcs7"})

	r := signVerify(t, c, "signed.pdf", signed)
	if len(r.Signatures) != 1 {
		t.Fatalf("%d signatures, want 1: %+v", len(r.Signatures), r)
	}
	sig := r.Signatures[0]
	when, err := time.Parse(time.RFC3339, sig.SigningTime)
	if err != nil || when.Before(start) || when.After(time.Now().Add(time.Minute)) {
		t.Errorf("signing time %q (%v), want about now", sig.SigningTime, err)
	}
	if sig.Signer.CommonName != "Signer Verify" || !strings.Contains(sig.Signer.DistinguishedName, "O=Docmill Test") ||
		!sig.SignatureValid || sig.SignatureStatus != "valid" || sig.CertificateStatus != "unknown_issuer" ||
		sig.HashAlgorithm != "SHA-256" || sig.SignatureType != "adbe.pkcs7.detached" ||
		!sig.CoversWholeDocument || sig.ModifiedAfterSigning {
		t.Errorf("signature %+v", sig)
	}
	if n := len(sig.SignedRanges); n != 2 || sig.SignedRanges[0][0] != 0 || sig.SignedRanges[1][1] != int64(len(signed)) {
		t.Errorf("signed ranges %v of a %d-byte file", sig.SignedRanges, len(signed))
	}
	if report := signPdfsig(t, signed); !strings.Contains(report, "Signer Certificate Common Name: "+sig.Signer.CommonName) ||
		!strings.Contains(report, "Signature Field Name: "+sig.FieldName) {
		t.Errorf("pdfsig reads otherwise:\n%s", report)
	}

	t.Run("modified after signing", func(t *testing.T) {
		changed := signAppendUpdate(t, signed)
		if report := signPdfsig(t, changed); !strings.Contains(report, "Not total document signed") {
			t.Fatalf("pdfsig does not see the change:\n%s", report)
		}
		r := signVerify(t, c, "changed.pdf", changed)
		if len(r.Signatures) != 1 {
			t.Fatalf("%d signatures, want 1", len(r.Signatures))
		}
		sig := r.Signatures[0]
		if !sig.ModifiedAfterSigning || sig.CoversWholeDocument || !sig.SignatureValid || sig.SignedRanges[1][1] != int64(len(signed)) {
			t.Errorf("changed file's signature %+v", sig)
		}
	})
	t.Run("unsigned", func(t *testing.T) {
		if r := signVerify(t, c, "plain.pdf", fourPagePDF); len(r.Signatures) != 0 {
			t.Errorf("unsigned file: %+v", r)
		}
	})
}
