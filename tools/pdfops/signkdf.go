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

// errKDFWalk is a PKCS#12 file nested too deep or made of too many
// values to walk.
var errKDFWalk = errors.New("pdfops: pkcs12 structure past the walk's bounds")

// checkKDFWork refuses a PKCS#12 file whose iteration counts are past
// the bounds above, before anything derives a key from them.
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
// What the walk cannot see is a count inside an encrypted part, read
// only once the part is decrypted with the right password; a file
// that hides one is bounded by the tool's timeout, at which its helper
// process is killed.
func checkKDFWork(data []byte) error {
	w := kdfWalk{}
	if err := w.values(data, 0); err != nil {
		return docmill.InvalidDocument(err, "%s", badPKCS12)
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
}

// values walks the DER values in data, one after another, up to the
// first it cannot read. Its only error is errKDFWalk.
func (w *kdfWalk) values(data []byte, depth int) error {
	if depth > maxKDFDepth {
		return errKDFWalk
	}
	afterSalt := false
	for len(data) > 0 && w.refused == "" {
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
