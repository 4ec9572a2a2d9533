package pdfops

import (
	"encoding/asn1"
	"errors"
	"fmt"
	"math"
	"math/big"

	docmill "github.com/docmill/docmill"
)

// Bounds of the key-derivation work a PKCS#12 file may ask for. The
// file names its own iteration counts (for the MAC and for each
// encrypted part), and the decoder runs them before it can tell a
// wrong password: a 2 KB file asking for 2^31 iterations holds a
// helper for hours. Real files use 2,048 (OpenSSL) to some 600,000.
const (
	maxKDFIterations      = 1_000_000
	maxKDFIterationsTotal = 4_000_000
	// maxKDFDepth and maxKDFValues bound the walk itself.
	maxKDFDepth  = 32
	maxKDFValues = 100_000
)

// maxKeyBagBytes bounds the DER of a PKCS#12 bag that holds a private
// key (keyBag, or pkcs8ShroudedKeyBag: the key encrypted). The decoder
// parses the key it holds before sign-pdf can refuse an RSA key of more
// than 8192 bits, and Go checks an RSA key's numbers on parsing in time
// that grows faster than the square of their size: a 131,072-bit key
// takes some seconds, one of 262,144 bits 8 s, and the 1.4 million bits
// a 1 MB file holds past the tool's timeout. An 8192-bit key's bag takes
// about 5 KB, an ECDSA key's a few hundred bytes.
const maxKeyBagBytes = 16 << 10

// Object identifiers of the PKCS#12 bags that hold a private key.
var (
	oidPKCS12KeyBag         = asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 12, 10, 1, 1}
	oidPKCS12ShroudedKeyBag = asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 12, 10, 1, 2}
)

// errKDFWalk is a PKCS#12 file nested too deep or made of too many
// values to walk.
var errKDFWalk = errors.New("pdfops: pkcs12 structure past the walk's bounds")

// checkPKCS12Work refuses a PKCS#12 file whose iteration counts are past
// the bounds above, before anything derives a key from them, or whose
// key bag is larger than maxKeyBagBytes, before the key is parsed.
//
// The walk is over the DER, not over the PKCS#12 grammar, so no
// nesting hides a count from it: every iteration count PKCS#12 knows
// (MacData's, the PKCS#12 PBE parameters', PBKDF2's) is an INTEGER
// that follows the salt, an OCTET STRING, in the same SEQUENCE. The
// walk reads every constructed value, and every OCTET STRING whose
// bytes are one DER value (the safe contents are wrapped in them), as
// leniently as encoding/asn1, which the decoder uses: what follows a
// value it cannot read inside a SEQUENCE is skipped by both.
//
// What the walk cannot see is a count or a key bag inside an encrypted
// part, read only once the part is decrypted with the right password
// (encoders put the certificates there, and the key bag, encrypted on
// its own, beside it); a file that hides one is bounded by the tool's
// timeout, at which its helper process is killed.
func checkPKCS12Work(data []byte) error {
	w := kdfWalk{}
	if err := w.values(data, 0); err != nil {
		return docmill.InvalidDocument(err, "%s", badPKCS12)
	}
	if w.keyBag > 0 {
		return docmill.InvalidDocument(fmt.Errorf("pdfops: pkcs12 key bag of %d bytes", w.keyBag),
			"The certificate file's private key takes %d bytes; this tool signs with keys that take at most %d (an RSA key of 8192 bits takes about 5,000).",
			w.keyBag, maxKeyBagBytes)
	}
	if w.refused != "" {
		return docmill.InvalidDocument(fmt.Errorf("pdfops: pkcs12 kdf: %s", w.refused),
			"The certificate file asks for %s key-derivation rounds; this tool opens files that ask for at most %d for a part and %d in all (exported certificate files use a few thousand).",
			w.refused, maxKDFIterations, maxKDFIterationsTotal)
	}
	return nil
}

// kdfWalk is the state of checkKDFWork's walk.
type kdfWalk struct {
	seen    int
	total   int64
	refused string // the count, or the total, past the bounds
	keyBag  int    // the size of a key bag past maxKeyBagBytes
}

// values walks the DER values in data, one after another, up to the
// first it cannot read. Its only error is errKDFWalk.
func (w *kdfWalk) values(data []byte, depth int) error {
	if depth > maxKDFDepth {
		return errKDFWalk
	}
	afterSalt := false
	for len(data) > 0 && w.refused == "" && w.keyBag == 0 {
		if w.seen++; w.seen > maxKDFValues {
			return errKDFWalk
		}
		var v asn1.RawValue
		rest, err := asn1.Unmarshal(data, &v)
		if err != nil {
			return nil
		}
		data = rest
		universal := v.Class == asn1.ClassUniversal
		switch {
		case universal && v.Tag == asn1.TagInteger && afterSalt:
			w.count(v.Bytes)
		case v.IsCompound:
			if universal && v.Tag == asn1.TagSequence {
				if n := keyBagSize(v.Bytes); n > maxKeyBagBytes {
					w.keyBag = n
					return nil
				}
			}
			if err := w.values(v.Bytes, depth+1); err != nil {
				return err
			}
		case universal && v.Tag == asn1.TagOctetString && oneValue(v.Bytes):
			if err := w.values(v.Bytes, depth+1); err != nil {
				return err
			}
		}
		afterSalt = universal && v.Tag == asn1.TagOctetString && !v.IsCompound
	}
	return nil
}

// oneValue reports whether b is one DER value and nothing after it,
// which is how the decoder reads wrapped contents. A salt, a digest or
// ciphertext is not, but for a chance that the walk then reads harmlessly.
func oneValue(b []byte) bool {
	var v asn1.RawValue
	rest, err := asn1.Unmarshal(b, &v)
	return err == nil && len(rest) == 0
}

// count adds an iteration count, given as a DER INTEGER's bytes.
func (w *kdfWalk) count(b []byte) {
	if len(b) > 0 && b[0]&0x80 != 0 {
		return // negative: the decoder refuses it
	}
	n := new(big.Int).SetBytes(b)
	if !n.IsInt64() {
		w.refused = fmt.Sprintf("more than %d", int64(math.MaxInt64))
		return
	}
	if n.Int64() > maxKDFIterations {
		w.refused = n.String()
		return
	}
	if w.total += n.Int64(); w.total > maxKDFIterationsTotal {
		w.refused = fmt.Sprintf("%d", w.total)
	}
}

// keyBagSize returns the size of the value of the SafeBag whose content
// (a SEQUENCE's) is b, when it is a bag that holds a private key: its
// type, then its value ([0] EXPLICIT). It is 0 for any other SEQUENCE.
func keyBagSize(b []byte) int {
	var id asn1.ObjectIdentifier
	rest, err := asn1.Unmarshal(b, &id)
	if err != nil || !id.Equal(oidPKCS12KeyBag) && !id.Equal(oidPKCS12ShroudedKeyBag) {
		return 0
	}
	var v asn1.RawValue
	if _, err := asn1.Unmarshal(rest, &v); err != nil {
		return 0
	}
	return len(v.FullBytes)
}
