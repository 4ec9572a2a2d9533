package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/docmill/docmill/tools/toolstest"
)

// sdkJSDir is the JavaScript SDK's directory, from this package's.
var sdkJSDir = filepath.Join("..", "..", "sdk", "js")

// TestJSTypes: sdk/js/src/tools.ts is what `docmill docs js-types`
// writes from the registry, byte for byte, so the SDK's param types
// cannot drift from the declarations.
func TestJSTypes(t *testing.T) {
	t.Parallel()
	reg, closeTools, err := referenceRegistry()
	if err != nil {
		t.Fatal(err)
	}
	defer closeTools()
	var want strings.Builder
	if err := writeJSTypes(&want, reg); err != nil {
		t.Fatal(err)
	}
	if got := docFile(t, "sdk/js/src/tools.ts"); got != want.String() {
		t.Errorf("sdk/js/src/tools.ts is not what the registry declares; run from the repository's root:\n\t%s", docsJSTypesCommand)
	}
}

// TestSDKJS builds the JavaScript SDK (sdk/js: its own code and its
// tests, with the TypeScript compiler of its package-lock.json) and runs
// its tests with `node --test` against one real server started here:
// every tool of the registry once through the SDK, on the conformance
// suite's generated inputs and params (sdkInputs); a 500 MB upload
// streamed from disk with the Node process's peak RSS under 100 MB; a
// process call retried through a proxy that fails its first attempt,
// charged once; a webhook delivered to a local listener and checked by
// verify; and the compiler refusing a param of the wrong name or type.
// Without node and npm it skips, and fails under CI.
func TestSDKJS(t *testing.T) {
	t.Parallel() // its server, keys and inputs are its own; build/ is compiled once (buildSDKJS)
	if testing.Short() {
		t.Skip("runs every tool and uploads 500 MB")
	}
	toolstest.Need(t, "node", "npm")
	began := time.Now()
	buildSDKJS(t)
	built := time.Now()
	s := startServer(t, "", "--allow-private-urls", "--webhook-retry-schedule", "200ms,1s")
	started := time.Now()
	inputs := sdkInputs(t, s.DataDir, unavailableTools(t, s))
	t.Logf("build %s, server start %s, inputs %s", built.Sub(began).Round(time.Second), started.Sub(built).Round(time.Second), time.Since(started).Round(time.Second))
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	tests, err := filepath.Glob(filepath.Join(sdkJSDir, "build", "test", "*.test.js"))
	if err != nil || len(tests) == 0 {
		t.Fatalf("no compiled tests in sdk/js/build/test (%v)", err)
	}
	for i, f := range tests {
		tests[i], _ = filepath.Rel(sdkJSDir, f)
	}
	cmd := exec.CommandContext(ctx, "node", append([]string{"--test", "--test-reporter=spec"}, tests...)...)
	cmd.Dir = sdkJSDir
	cmd.Env = append(os.Environ(), "DOCMILL_URL="+s.URL, "DOCMILL_KEY="+inputs.Keys["tools"], "DOCMILL_SDK_INPUTS="+inputs.path)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	start := time.Now()
	err = cmd.Run()
	t.Logf("node --test (%s):\n%s", time.Since(start).Round(time.Second), out.String())
	if err != nil {
		t.Fatalf("node --test: %v", err)
	}
}

// unavailableTools are the tools of s whose engine is missing: each is
// a subtest that skips (fails under CI), and the SDK's tests leave it out.
func unavailableTools(t *testing.T, s *testServer) map[string]bool {
	tools, err := s.client("").Tools(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	for _, tool := range tools {
		if !tool.Available {
			out[tool.Slug] = true
			t.Run(tool.Slug, func(t *testing.T) {
				toolstest.Lacking(t, "%s: engine %s unavailable: not run through the SDK", tool.Slug, tool.Engine)
			})
		}
	}
	return out
}

// buildSDKJS installs the SDK's development dependencies when they are
// missing (npm ci: the versions of package-lock.json, from npm's cache
// when it has them) and compiles the SDK and its tests, in one run of
// the compiler, to build/. It runs once per test binary, so the tests
// that read build/ run in parallel without compiling over each other.
func buildSDKJS(t *testing.T) {
	t.Helper()
	installSDKJS(t)
	sdkJSBuilt.once.Do(func() { sdkJSBuilt.err = runSDKJS("node", sdkJSCompiler, "-p", "tsconfig.test.json") })
	if sdkJSBuilt.err != nil {
		t.Fatal(sdkJSBuilt.err)
	}
}

// sdkJSCompiler is the TypeScript compiler npm ci installs, from sdk/js.
var sdkJSCompiler = filepath.Join("node_modules", "typescript", "bin", "tsc")

// sdkJSInstalled and sdkJSBuilt hold the outcome of the one npm ci and
// the one compile of sdk/js that the tests of this binary share.
var sdkJSInstalled, sdkJSBuilt struct {
	once sync.Once
	err  error
}

// installSDKJS runs npm ci in sdk/js when its compiler is missing.
func installSDKJS(t *testing.T) {
	t.Helper()
	sdkJSInstalled.once.Do(func() {
		if _, err := os.Stat(filepath.Join(sdkJSDir, sdkJSCompiler)); err != nil {
			sdkJSInstalled.err = runSDKJS("npm", "ci", "--prefer-offline", "--no-audit", "--no-fund")
		}
	})
	if sdkJSInstalled.err != nil {
		t.Fatal(sdkJSInstalled.err)
	}
}

// runSDKJS runs a command in sdk/js; its error carries the output.
func runSDKJS(name string, args ...string) error {
	cmd := exec.Command(name, args...)
	cmd.Dir = sdkJSDir
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return nil
}

// TestSDKJSPack: `make sdk-js`'s packing (scripts/pack.mjs) makes an npm
// tarball without the network whose version is the server's, made
// semver: in package.json and in the SDK's VERSION.
func TestSDKJSPack(t *testing.T) {
	t.Parallel() // it writes dist/ and build/pack, which no other test reads
	toolstest.Need(t, "node", "npm")
	installSDKJS(t)
	// A tag's describe, and a bare commit (all digits, with a leading
	// zero, which a semver pre-release identifier may not have).
	for server, npm := range map[string]string{"v1.4.0-3-g0c9e1f2-dirty": "1.4.0-3-g0c9e1f2-dirty", "0123456": "0.0.0-g0123456"} {
		cmd := exec.Command("node", filepath.Join("scripts", "pack.mjs"), server)
		cmd.Dir = sdkJSDir
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("pack.mjs %s: %v", server, err)
		}
		tarball := strings.TrimSpace(string(out))
		files := tarFiles(t, tarball)
		os.Remove(tarball)
		if filepath.Base(tarball) != "docmill-sdk-"+npm+".tgz" {
			t.Errorf("server %s: tarball %s, want docmill-sdk-%s.tgz", server, filepath.Base(tarball), npm)
		}
		var pkg struct{ Version string }
		if err := json.Unmarshal([]byte(files["package/package.json"]), &pkg); err != nil || pkg.Version != npm {
			t.Errorf("server %s: package.json version %q (%v), want %q", server, pkg.Version, err, npm)
		}
		if want := `VERSION = "` + npm + `"`; !strings.Contains(files["package/dist/version.js"], want) {
			t.Errorf("server %s: dist/version.js is %q, want it to hold %s", server, files["package/dist/version.js"], want)
		}
		for _, name := range []string{"package/dist/index.js", "package/dist/index.d.ts", "package/dist/tools.d.ts", "package/README.md"} {
			if _, ok := files[name]; !ok {
				t.Errorf("server %s: the tarball lacks %s", server, name)
			}
		}
	}
}

// tarFiles reads a gzipped tarball's files.
func tarFiles(t *testing.T, path string) map[string]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{}
	tr := tar.NewReader(gz)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return files
		}
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(tr)
		if err != nil {
			t.Fatal(err)
		}
		files[h.Name] = string(b)
	}
}
