package pdfops

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rsa"
	"crypto/x509"
	"errors"
	"fmt"
	"math/big"
	"os"
	"strings"

	"software.sslmate.com/src/go-pkcs12"

	docmill "github.com/docmill/docmill"
)

// maxPKCS12Bytes bounds the PKCS#12 file sign-pdf reads: a key and a
// certificate chain take a few kilobytes, a long chain some tens.
const maxPKCS12Bytes = 1 << 20

// Public messages of the PKCS#12 file's refusals.
const (
	badPKCS12 = "The second file could not be read as a PKCS#12 certificate file (.p12, .pfx)."
	noKey     = "The certificate file holds no private key to sign with."
)

// readSigner reads the key and certificates of the PKCS#12 file at path,
// opened with password. The key stays in this process's memory only. A
// wrong password is an invalid_parameter error naming passwordParam; a
// file that is no PKCS#12, that holds no key, or a key that is neither
// RSA (2048 bits or more) nor ECDSA on P-256, P-384 or P-521 is an
// invalid_document error.
func readSigner(path, password, passwordParam string) (*signer, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("pdfops: stat certificate file: %w", err)
	}
	if st.Size() > maxPKCS12Bytes {
		return nil, docmill.Errorf(docmill.CodeInvalidDocument, "The certificate file is %s; a PKCS#12 file of a key and its certificates takes far less than 1 MB.", megabytes(st.Size()))
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("pdfops: read certificate file: %w", err)
	}
	if err := checkPKCS12Work(data); err != nil {
		return nil, err
	}
	key, cert, cas, err := decodePKCS12(data, password)
	switch {
	case errors.Is(err, pkcs12.ErrIncorrectPassword):
		e := docmill.ParamError(passwordParam, "does not open the certificate file")
		e.Err = err
		return nil, e
	case err != nil && strings.Contains(err.Error(), "private key missing"):
		return nil, docmill.InvalidDocument(err, "%s", noKey)
	case err != nil:
		return nil, docmill.InvalidDocument(err, "%s", badPKCS12)
	}
	s, ok := key.(crypto.Signer)
	if !ok || !supportedKey(s) {
		return nil, docmill.InvalidDocument(fmt.Errorf("pdfops: key %T", key),
			"The certificate file's key is of a kind this tool does not sign with; RSA keys of 2048 bits or more and ECDSA keys on P-256, P-384 or P-521 are supported.")
	}
	// The leaf is the certificate of the key, wherever the file put it.
	all := append([]*x509.Certificate{cert}, cas...)
	for i, c := range all {
		if pub, ok := c.PublicKey.(interface{ Equal(crypto.PublicKey) bool }); ok && pub.Equal(s.Public()) {
			chain := append(append([]*x509.Certificate{}, all[:i]...), all[i+1:]...)
			return &signer{key: s, cert: c, chain: chain}, nil
		}
	}
	return nil, docmill.InvalidDocument(nil, "The certificate file holds no certificate for its private key.")
}

// decodePKCS12 is pkcs12.DecodeChain, with a panic on a malformed file
// (the library parses hostile DER) turned into an error.
func decodePKCS12(data []byte, password string) (key any, cert *x509.Certificate, cas []*x509.Certificate, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("pdfops: pkcs12 panic: %v", r)
		}
	}()
	return pkcs12.DecodeChain(data, password)
}

// supportedKey reports whether key is one sign-pdf signs with.
func supportedKey(key crypto.Signer) bool {
	switch k := key.(type) {
	case *rsa.PrivateKey:
		return k.N.BitLen() >= 2048 && k.N.BitLen() <= 8192
	case *ecdsa.PrivateKey:
		return k.Curve == elliptic.P256() || k.Curve == elliptic.P384() || k.Curve == elliptic.P521()
	}
	return false
}

// scrub overwrites the private numbers of an RSA key, once it signed,
// and drops the key: it lives for the job only, and a helper process
// serves many jobs. This is best effort: an ECDSA key's scalar and the
// copies the crypto packages keep inside a key (precomputed values) are
// not writable through their API and go with the key, for the collector;
// the helper process's memory is its own, and it is jailed.
func (s *signer) scrub() {
	if k, ok := s.key.(*rsa.PrivateKey); ok {
		zeroInt(k.D)
		for _, p := range k.Primes {
			zeroInt(p)
		}
		k.Precomputed = rsa.PrecomputedValues{}
	}
	s.key = nil
}

// zeroInt overwrites n's words, then sets it to 0.
func zeroInt(n *big.Int) {
	if n == nil {
		return
	}
	clear(n.Bits())
	n.SetInt64(0)
}
