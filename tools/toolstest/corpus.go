package toolstest

import (
	"os"
	"path/filepath"
	"testing"
)

// CorpusEnv names the environment variable that says where the corpus of
// real-world files is: a directory, absolute or relative to the module's
// root. It is the only place the corpus is read from: unset, the tests
// that read it skip, and nothing looks beside the checkout.
const CorpusEnv = "DOCMILL_CORPUS"

// corpusDir returns the directory CorpusEnv names, made absolute, and the
// value as set; "" when it is unset. It reads the environment at each
// call, so that a test may unset it (t.Setenv) to see what runs without.
func corpusDir() (dir, shown string) {
	env := os.Getenv(CorpusEnv)
	if env == "" || filepath.IsAbs(env) {
		return env, env
	}
	wd, err := os.Getwd()
	if err != nil {
		panic(err)
	}
	return filepath.Join(moduleRoot(wd), env), env
}

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

// Corpus returns the path of a file of the corpus, the real-world files
// made by other programs (parts below the corpus root, such as "pdf",
// "minimal-document.pdf"). Only tests that need such a file call it; the
// tools are all covered without it, on inputs the tests generate
// (TestToolConformance, checked by TestEveryToolHasGeneratedSample in
// cmd/docmill): the corpus is an extra layer.
//
// When CorpusEnv is unset, Corpus skips the test with one line saying
// so, also when CI is set. When it names a directory that does not
// exist, Corpus fails the test: someone asked for the corpus and would
// otherwise get a run that skipped in silence. It does not check that the
// file exists: with the corpus present, a missing file is the test's bug
// and its read fails. Corpus must be called from the test's goroutine,
// as t.Skip must be.
func Corpus(t testing.TB, parts ...string) string {
	t.Helper()
	dir, shown := corpusDir()
	if dir == "" {
		t.Skip(CorpusEnv + " is not set: skipping this test of real-world files (the corpus is optional)")
	}
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		t.Fatalf("%s=%s: not a directory: %v", CorpusEnv, shown, err)
	}
	return filepath.Join(append([]string{dir}, parts...)...)
}

// ReadCorpus returns the content of a file of the corpus (Corpus:
// skipping t when CorpusEnv is unset), failing t when it cannot be read.
func ReadCorpus(t testing.TB, parts ...string) []byte {
	t.Helper()
	b, err := os.ReadFile(Corpus(t, parts...))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// CorpusIfPresent returns the path of a file of the corpus and true, or
// "" and false when CorpusEnv is unset or names no directory; it never
// skips nor fails, for uses that are extras to a test that runs anyway (a
// fuzz target's seed).
func CorpusIfPresent(parts ...string) (string, bool) {
	dir, _ := corpusDir()
	if dir == "" {
		return "", false
	}
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return "", false
	}
	return filepath.Join(append([]string{dir}, parts...)...), true
}
