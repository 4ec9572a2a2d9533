package pdfops_test

import (
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	docmill "github.com/docmill/docmill"
)

// restrictedPDF encrypts the 4-page corpus file with an empty user
// password (it opens without one) and an owner password, by qpdf with
// encArgs ("256", or "128 --use-aes=y"), and restrictions.
func restrictedPDF(t *testing.T, dir, name string, encArgs ...string) string {
	t.Helper()
	out := filepath.Join(dir, name)
	args := append([]string{"--allow-weak-crypto", "--encrypt", "", "owner-secret"}, encArgs...)
	args = append(args, "--", pdfCorpus(t)+"pdflatex-4-pages.pdf", out)
	if msg, code := program(t, "qpdf", args...); code != 0 {
		t.Fatalf("qpdf %v: exit %d: %s", args, code, msg)
	}
	return out
}

// encryptionOf is what qpdf says of path's encryption: its handler
// revision, methods and permissions, without the key.
func encryptionOf(t *testing.T, path string) string {
	t.Helper()
	out, code := program(t, "qpdf", "--show-encryption", path)
	if code != 0 && code != 3 {
		t.Fatalf("qpdf --show-encryption %s: exit %d: %s", path, code, out)
	}
	var keep []string
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "R = ") || strings.HasPrefix(l, "P = ") || strings.Contains(l, "allowed") || strings.Contains(l, "encryption method") {
			keep = append(keep, l)
		}
	}
	return strings.Join(keep, "\n")
}

// TestEncryptionKept checks that every tool that copies, changes or merges
// pages accepts a file that opens without a password but whose owner
// restricts it, and that what it makes keeps the same encryption (handler,
// permissions, owner password) and still opens without one.
func TestEncryptionKept(t *testing.T) {
	dir := t.TempDir()
	sources := map[string]string{
		"AES-256":      restrictedPDF(t, dir, "aes256.pdf", "256", "--print=none", "--modify=none", "--extract=n"),
		"AES-128":      restrictedPDF(t, dir, "aes128.pdf", "128", "--use-aes=y", "--print=low", "--modify=annotate"),
		"RC4-128":      restrictedPDF(t, dir, "rc4.pdf", "128", "--use-aes=n", "--extract=n"),
		"RC4-40 (R=2)": restrictedPDF(t, dir, "rc4-40.pdf", "40", "--print=n", "--modify=n", "--extract=n", "--annotate=n"),
	}
	tools := []struct {
		slug   string
		params map[string]string
		pages  int
	}{
		{"split-pdf", map[string]string{"ranges": "2-3"}, 2},
		{"extract-pages", map[string]string{"pages": "1,4"}, 2},
		{"remove-pages", map[string]string{"pages": "1"}, 3},
		{"organize-pdf", map[string]string{"order": "4,3,2,1,1"}, 5},
		{"rotate-pdf", map[string]string{"angle": "90"}, 4},
		{"watermark-pdf", map[string]string{"text": "draft"}, 4},
		{"page-numbers", nil, 4},
		{"merge-pdf", nil, 5},
	}
	for name, src := range sources {
		want := encryptionOf(t, src)
		if !strings.Contains(want, "not allowed") {
			t.Fatalf("%s: the source restricts nothing:\n%s", name, want)
		}
		for _, tl := range tools {
			t.Run(name+" "+tl.slug, func(t *testing.T) {
				t.Parallel()
				files := []string{src}
				if tl.slug == "merge-pdf" {
					files = append(files, pdfCorpus(t)+"minimal-document.pdf")
				}
				out, err := run(t, tl.slug, tl.params, files...)
				if err != nil {
					t.Fatal(err)
				}
				if got := encryptionOf(t, out.Path); got != want {
					t.Errorf("encryption:\n%s\nwant as the source's:\n%s", got, want)
				}
				if msg, code := program(t, "qpdf", "--requires-password", out.Path); code != 3 {
					t.Errorf("qpdf --requires-password: exit %d, want 3 (encrypted, opens without one): %s", code, msg)
				}
				if msg, code := program(t, "qpdf", "--check", out.Path); code != 0 {
					t.Errorf("qpdf --check: exit %d: %s", code, msg)
				}
				if msg, _ := program(t, "qpdf", "--show-npages", out.Path); strings.TrimSpace(msg) != itoa(tl.pages) {
					t.Errorf("pages %q, want %d", msg, tl.pages)
				}
				// The owner password still lifts the restrictions: the key
				// and the O entry are the source's.
				if msg, _ := program(t, "qpdf", "--show-encryption", "--password=owner-secret", out.Path); !strings.Contains(msg, "Supplied password is owner password") {
					t.Errorf("the owner password does not open the output as owner:\n%s", msg)
				}
			})
		}
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

// TestMergeEncryption checks which encryption a merge keeps: the first
// encrypted file's, wherever it comes; files restricted differently are
// refused, since one document carries one set of restrictions.
func TestMergeEncryption(t *testing.T) {
	dir := t.TempDir()
	a := restrictedPDF(t, dir, "a.pdf", "256", "--print=none")
	b := restrictedPDF(t, dir, "b.pdf", "256", "--print=none")
	c := restrictedPDF(t, dir, "c.pdf", "256", "--extract=n")
	plain := pdfCorpus(t) + "minimal-document.pdf"

	out, err := run(t, "merge-pdf", nil, plain, a, b)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := encryptionOf(t, out.Path), encryptionOf(t, a); got != want {
		t.Errorf("encryption:\n%s\nwant file 2's:\n%s", got, want)
	}
	if msg, code := program(t, "qpdf", "--check", out.Path); code != 0 {
		t.Errorf("qpdf --check: exit %d: %s", code, msg)
	}
	if msg, _ := program(t, "qpdf", "--show-npages", out.Path); strings.TrimSpace(msg) != "9" {
		t.Errorf("pages %q, want 9", msg)
	}

	_, err = run(t, "merge-pdf", nil, a, plain, c)
	wantCode(t, err, docmill.CodeInvalidDocument, "restrict", "differently", "unlock-pdf")
}

// TestProtectReplacesEncryption checks that protect-pdf gives a file that
// opens without a password, but is restricted, its own protection.
func TestProtectReplacesEncryption(t *testing.T) {
	src := restrictedPDF(t, t.TempDir(), "restricted.pdf", "128", "--use-aes=n", "--print=none")
	out, err := runValidated(t, "protect-pdf", map[string]string{"password": "new-secret", "permissions": "print"}, src)
	if err != nil {
		t.Fatal(err)
	}
	checkEncryption(t, out.Path, "new-secret", "user", []string{"print"})
}
