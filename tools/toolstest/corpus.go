package toolstest

import (
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// CorpusEnv names the environment variable that says where the shared
// corpus is: a directory, absolute or relative to the module's root. Unset,
// the corpus is looked for in a directory shared/corpus beside the
// module's root (.ci/run sets the variable itself).
const CorpusEnv = "DOCMILL_CORPUS"

// corpusDir finds the corpus once per test binary: the directory to read
// from and the same path as shown to a person (relative to the package's
// directory when it can be).
var corpusDir = sync.OnceValues(func() (dir, shown string) {
	wd, err := os.Getwd()
	if err != nil {
		panic(err)
	}
	root := moduleRoot(wd)
	if env := os.Getenv(CorpusEnv); env != "" {
		if filepath.IsAbs(env) {
			return env, env
		}
		return filepath.Join(root, env), CorpusEnv + "=" + env
	}
	dir = filepath.Join(root, "..", "shared", "corpus")
	shown = dir
	if rel, err := filepath.Rel(wd, dir); err == nil {
		shown = rel
	}
	return dir, shown
})

// moduleRoot returns the nearest directory at or above dir that holds a
// go.mod; go test runs a package's tests in the package's directory.
func moduleRoot(dir string) string {
	for d := dir; ; {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return d
		}
		parent := filepath.Dir(d)
		if parent == d {
			return dir // no module: the package's directory stands in
		}
		d = parent
	}
}

// Corpus returns the path of a file of the shared corpus, the real-world
// files made by other programs (parts below the corpus root, such as
// "pdf", "minimal-document.pdf"). Only tests that need such a file call
// it; a test that needs just some valid PDF or image generates one.
//
// When the corpus directory itself is absent, Corpus skips the test with
// a message that says so, or fails it when CI is set (a CI run must never
// pass by skipping). It does not check that the file exists: with the
// corpus present, a missing file is the test's bug and its read fails.
// Corpus must be called from the test's goroutine, as t.Skip must be.
func Corpus(t testing.TB, parts ...string) string {
	t.Helper()
	dir, shown := corpusDir()
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		msg := "the shared corpus " + shown + " is absent; " +
			"this test reads a real-world file from it: place the corpus there or set " + CorpusEnv + " to its directory"
		if os.Getenv("CI") != "" {
			t.Fatal(msg + " (CI is set: a missing corpus fails the run)")
		}
		t.Skip(msg)
	}
	return filepath.Join(append([]string{dir}, parts...)...)
}

// ReadCorpus returns the content of a file of the shared corpus (Corpus:
// skipping t when the corpus is absent), failing t when it cannot be read.
func ReadCorpus(t testing.TB, parts ...string) []byte {
	t.Helper()
	b, err := os.ReadFile(Corpus(t, parts...))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// CorpusIfPresent returns the path of a file of the shared corpus and
// true, or "" and false when the corpus is absent; it never skips nor
// fails, for uses that are extras to a test that runs anyway (a fuzz
// target's seed).
func CorpusIfPresent(parts ...string) (string, bool) {
	dir, _ := corpusDir()
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return "", false
	}
	return filepath.Join(append([]string{dir}, parts...)...), true
}
