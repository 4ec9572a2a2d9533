// Package gobin finds programs that `go install` put in place: the test
// servers (versitygw, mailpit) that `make test`'s dependencies install.
package gobin

import (
	"fmt"
	"go/build"
	"os"
	"os/exec"
	"path/filepath"
)

// Find returns the path of the executable name: on PATH, else in $GOBIN,
// else in $GOPATH/bin (GOPATH defaulting to ~/go).
func Find(name string) (string, error) {
	if p, err := exec.LookPath(name); err == nil {
		return p, nil
	}
	var dirs []string
	if gobin := os.Getenv("GOBIN"); gobin != "" {
		dirs = append(dirs, gobin)
	}
	for _, p := range filepath.SplitList(build.Default.GOPATH) {
		if p != "" {
			dirs = append(dirs, filepath.Join(p, "bin"))
		}
	}
	for _, d := range dirs {
		p := filepath.Join(d, name)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", fmt.Errorf("%s not found on PATH nor in %q", name, dirs)
}
