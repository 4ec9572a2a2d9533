package pdfops_test

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"software.sslmate.com/src/go-pkcs12"
)

// huntP12 writes a PKCS#12 file (no password) of an ECDSA P-256 key and
// a self-signed certificate of subject (its issuer too), and returns its
// path.
func huntP12(t testing.TB, subject pkix.Name) string {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(3), Subject: subject,
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour)}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, key.Public(), key)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
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
	out, err := signRun(t, pdfCorpus(t)+"pdflatex-4-pages.pdf", p12, nil)
	if err != nil {
		t.Fatal(err)
	}
	if report := signPdfsig(t, out.Path); !strings.Contains(report, "Signature is Valid.") || !strings.Contains(report, "Total document signed") {
		t.Errorf("pdfsig:\n%s", report)
	}
}
