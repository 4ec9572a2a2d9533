package toolstest

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"testing"
)

// NewKey returns a fresh ECDSA P-256 key when ec, else an RSA 2048 one.
func NewKey(t testing.TB, ec bool) crypto.Signer {
	t.Helper()
	var key crypto.Signer
	var err error
	if ec {
		key, err = ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	} else {
		key, err = rsa.GenerateKey(rand.Reader, 2048)
	}
	if err != nil {
		t.Fatal(err)
	}
	return key
}

// Certificate returns the certificate tmpl describes, for the public
// key pub, issued by tmpl itself and signed by issuer (pub's own private
// key for a self-signed certificate).
func Certificate(t testing.TB, tmpl *x509.Certificate, pub crypto.PublicKey, issuer crypto.Signer) *x509.Certificate {
	t.Helper()
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, pub, issuer)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	return cert
}
