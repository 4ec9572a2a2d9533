// Package filecopy copies a job's files on local disk, for the tools that
// must return or pass on an input unchanged: the input may be a hard link
// to the stored upload, so it is copied, never moved or written to. Link
// gives a warm engine (a helper, LibreOffice) its own name for an input,
// which it only reads.
package filecopy

import (
	"io"
	"os"
	"path/filepath"
)

// Copy copies the file at src to dst, creating or replacing dst (mode
// 0600).
func Copy(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// Link makes dst the file src is (or names, if a symbolic link), for a
// program that must read it from another directory (a warm engine's own):
// hard-linked when the file system allows it, copied otherwise.
func Link(src, dst string) error {
	if real, err := filepath.EvalSymlinks(src); err == nil {
		src = real
	}
	if os.Link(src, dst) == nil {
		return nil
	}
	return Copy(src, dst)
}
