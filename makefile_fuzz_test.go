package docmill

import (
	"bufio"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// fuzzLine is a line of the Makefile's fuzz target: the target's name and
// its package, the last word of the line.
var fuzzLine = regexp.MustCompile(`-fuzz '\^(Fuzz\w+)\$\$'.*\s(\S+)\s*$`)

// fuzzFunc is the declaration of a fuzz target in a _test.go file.
var fuzzFunc = regexp.MustCompile(`^func (Fuzz\w+)\(\w+ \*testing\.F\)`)

// TestMakeFuzzNamesEveryTarget: `make fuzz` fuzzes every fuzz target of
// the repository, each in the package that declares it, so a new target
// is never left to its seeds alone; and it names no target that is gone.
func TestMakeFuzzNamesEveryTarget(t *testing.T) {
	named := makeFuzzTargets(t, "Makefile")
	declared := declaredFuzzTargets(t, ".")
	if len(declared) == 0 {
		t.Fatal("no func Fuzz found: the walk is broken")
	}
	for _, d := range declared {
		if !slices.Contains(named, d) {
			t.Errorf("%s is not fuzzed by `make fuzz`: add its line to the Makefile's fuzz target", d)
		}
	}
	for _, n := range named {
		if !slices.Contains(declared, n) {
			t.Errorf("the Makefile's fuzz target names %s, which no _test.go declares", n)
		}
	}
}

// makeFuzzTargets reads the recipe of the Makefile's fuzz target and
// returns "package:Name" for each of its lines.
func makeFuzzTargets(t *testing.T, path string) []string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var targets []string
	inRecipe := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "fuzz:"):
			inRecipe = true
		case inRecipe && !strings.HasPrefix(line, "\t"):
			inRecipe = false
		case inRecipe:
			m := fuzzLine.FindStringSubmatch(line)
			if m == nil {
				t.Errorf("a line of the fuzz target that is not `go test -fuzz '^Name$$' ... ./pkg`: %q", line)
				continue
			}
			targets = append(targets, filepath.Clean(m[2])+":"+m[1])
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(targets) == 0 {
		t.Fatal("the Makefile has no fuzz target, or it names no target")
	}
	return targets
}

// declaredFuzzTargets returns "package:Name" for each fuzz target declared
// in a _test.go file under root, the package being its directory.
func declaredFuzzTargets(t *testing.T, root string) []string {
	t.Helper()
	var targets []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != root && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || d.Name() == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for line := range strings.SplitSeq(string(b), "\n") {
			if m := fuzzFunc.FindStringSubmatch(line); m != nil {
				targets = append(targets, filepath.Clean(filepath.Dir(path))+":"+m[1])
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return targets
}
