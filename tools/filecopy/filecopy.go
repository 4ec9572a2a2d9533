// Package filecopy copies a job's files on local disk, for the tools that
// must return or pass on an input unchanged: the input may be a hard link
// to the stored upload, so it is copied, never moved or written to.
package filecopy

import (
	"io"
	"os"
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
