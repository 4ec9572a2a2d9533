package pdfops

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/binary"
	"hash"

	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/model"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/types"
)

// encryptAES256 makes doc, once written, encrypted with AES-256 by the
// standard security handler of revision 6 (ISO 32000-2, 7.6.4.4): a new
// random file key, wrapped under the user password (U, UE) and the owner
// password (O, OE), and the permissions p.perms sealed with it (Perms).
// It sets what pdfcpu's writer encrypts with (the /Encrypt dictionary,
// the key, AES for strings and streams), as pdfcpu's own set-up for its
// ENCRYPT command does, so doc is written with the command it was read
// for. Its own key derivation (hashR6) works in buffers made once per
// password rather than for each of the hash's rounds.
func encryptAES256(doc *model.Context, p protection) error {
	random := make([]byte, 32+4*8)
	if _, err := rand.Read(random); err != nil {
		return err
	}
	key, salts := random[:32], random[32:]
	upw, opw := truncatePassword(p.user), truncatePassword(p.owner)
	// Algorithm 8: U is the hash of the user password with its
	// validation salt, followed by that salt and the key salt; UE, the
	// file key wrapped under the hash with the key salt.
	u := append(hashR6(upw, salts[0:8], nil), salts[0:16]...)
	ue := wrapKey(hashR6(upw, salts[8:16], nil), key)
	// Algorithm 9: the same for the owner password, each hash also over U.
	o := append(hashR6(opw, salts[16:24], u), salts[16:32]...)
	oe := wrapKey(hashR6(opw, salts[24:32], u), key)
	perm := int(int16(p.perms)) // /P as pdfcpu writes it: the low 16 bits, sign-extended
	perms := sealPermissions(key, perm)

	cf := types.Dict{"AuthEvent": types.Name("DocOpen"), "CFM": types.Name("AESV3"), "Length": types.Integer(32)}
	d := types.Dict{
		"Filter": types.Name("Standard"), "V": types.Integer(5), "R": types.Integer(6), "Length": types.Integer(256),
		"P": types.Integer(perm), "CF": types.Dict{"StdCF": cf}, "StmF": types.Name("StdCF"), "StrF": types.Name("StdCF"),
		"U": types.NewHexLiteral(u), "O": types.NewHexLiteral(o), "UE": types.NewHexLiteral(ue), "OE": types.NewHexLiteral(oe),
		"Perms": types.NewHexLiteral(perms),
	}
	ref, err := doc.IndRefForNewObject(d)
	if err != nil {
		return err
	}
	doc.Encrypt = ref
	doc.E = &model.Enc{O: o, U: u, OE: oe, UE: ue, Perms: perms, L: 256, P: perm, R: 6, V: 5, Emd: true}
	doc.EncKey = key
	doc.AES4Strings, doc.AES4Streams, doc.AES4EmbeddedStreams = true, true, true
	if doc.Read == nil {
		doc.Read = &model.ReadContext{}
	}
	return nil
}

// truncatePassword is pw as revision 6 hashes it: its first 127 bytes
// (checkPassword refuses longer ones anyway).
func truncatePassword(pw string) []byte {
	b := []byte(pw)
	return b[:min(len(b), maxPasswordBytes)]
}

// wrapKey encrypts the 32-byte file key with AES-256 in CBC mode under
// kek with a zero IV, as UE and OE hold it.
func wrapKey(kek, key []byte) []byte {
	block, _ := aes.NewCipher(kek) // kek is 32 bytes
	out := make([]byte, len(key))
	cipher.NewCBCEncrypter(block, make([]byte, aes.BlockSize)).CryptBlocks(out, key)
	return out
}

// sealPermissions is Perms (algorithm 10): P in four little-endian bytes,
// four 0xFF, 'T' (metadata is encrypted), "adb" and four random bytes,
// encrypted with AES-256 in ECB mode (one block) under the file key.
func sealPermissions(key []byte, p int) []byte {
	b := make([]byte, aes.BlockSize)
	binary.LittleEndian.PutUint32(b, uint32(p))
	copy(b[4:], []byte{0xFF, 0xFF, 0xFF, 0xFF, 'T', 'a', 'd', 'b'})
	rand.Read(b[12:])
	block, _ := aes.NewCipher(key)
	block.Encrypt(b, b)
	return b
}

// hashR6 is the hash of revision 6 (ISO 32000-2, algorithm 2.B) of the
// password pw with an 8-byte salt and, for the owner password's entries,
// the 48 bytes of U (udata).
func hashR6(pw, salt, udata []byte) []byte {
	start := sha256.New()
	start.Write(pw)
	start.Write(salt)
	start.Write(udata)
	k := start.Sum(make([]byte, 0, sha512.Size))
	longest := len(pw) + sha512.Size + len(udata)
	seq := make([]byte, 0, longest)
	k1 := make([]byte, 0, 64*longest)
	e := make([]byte, 0, 64*longest)
	digests := [3]hash.Hash{sha256.New(), sha512.New384(), sha512.New()}
	for round := 1; ; round++ {
		// K1 is 64 copies of password, K and udata; E is K1 encrypted
		// with AES-128 in CBC mode, key and IV the two halves of K's
		// first 32 bytes.
		seq = append(append(append(seq[:0], pw...), k...), udata...)
		k1 = k1[:0]
		for range 64 {
			k1 = append(k1, seq...)
		}
		block, _ := aes.NewCipher(k[:16])
		e = e[:len(k1)]
		cipher.NewCBCEncrypter(block, k[16:32]).CryptBlocks(e, k1)
		// The first 16 bytes of E as a number, modulo 3 (the sum of its
		// bytes, since 256 is 1 modulo 3), choose SHA-256, -384 or -512.
		sum := 0
		for _, c := range e[:16] {
			sum += int(c)
		}
		d := digests[sum%3]
		d.Reset()
		d.Write(e)
		k = d.Sum(k[:0])
		// At least 64 rounds, and on until E's last byte is at most the
		// round's number less 32.
		if round >= 64 && int(e[len(e)-1]) <= round-32 {
			return k[:32]
		}
	}
}
