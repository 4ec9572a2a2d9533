package toolstest

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/docmill/docmill/sandbox"
)

// CIEnv names the environment variable that says the tests run in CI.
// Under CI, whatever a test needs of the machine must be there: a missing
// program, service or capability fails the test with its name instead of
// skipping it, so that a run that proved less than it claims is not green.
const CIEnv = "CI"

// underCI reports whether CIEnv is set to anything but a false value
// ("", "0", "false"), read at each call so a test may set it.
func underCI() bool {
	v := os.Getenv(CIEnv)
	if v == "" {
		return false
	}
	b, err := strconv.ParseBool(v)
	return err != nil || b
}

// Need makes sure each program is installed, looked up as the product
// finds its engines (sandbox.LookPath: the standard system path, never
// the caller's PATH). A missing program skips the test with its name
// (and the other missing ones) locally and fails it under CI. It must be
// called from the test's goroutine, as t.Skip must be.
func Need(t testing.TB, programs ...string) {
	t.Helper()
	var missing []string
	for _, p := range programs {
		if _, err := sandbox.LookPath(p); err != nil {
			missing = append(missing, p)
		}
	}
	if len(missing) > 0 {
		Lacking(t, "%s not installed (make test-deps installs it)", strings.Join(missing, ", "))
	}
}

// NeedAt makes sure program was found at path by the product's own
// lookup, for programs it does not find on the system path (Chromium:
// chromium.ExecPath): path "" means missing, as Need treats it.
func NeedAt(t testing.TB, program, path string) {
	t.Helper()
	if path == "" {
		Lacking(t, "%s not installed (make test-deps installs it)", program)
	}
}

// NeedService makes sure a service the test talks to (PostgreSQL, Redis,
// Mailpit, a bucket) answered: err is what asking it returned. A non-nil
// err skips the test locally and fails it under CI, naming service.
func NeedService(t testing.TB, service string, err error) {
	t.Helper()
	if err != nil {
		Lacking(t, "%s unavailable: %v", service, err)
	}
}

// NeedCapability makes sure the machine can do what the test needs (a
// jail, a tmpfs mount, a pseudo-terminal, an image format of libvips):
// a non-nil err skips the test locally and fails it under CI, naming
// capability.
func NeedCapability(t testing.TB, capability string, err error) {
	t.Helper()
	if err != nil {
		Lacking(t, "cannot %s here: %v", capability, err)
	}
}

// Lacking stops the test for a missing part of the machine, said by
// format and args: it skips locally and fails under CI. The Need
// functions call it; a test calls it directly only for a lack none of
// them describes.
func Lacking(t testing.TB, format string, args ...any) {
	t.Helper()
	msg := fmt.Sprintf(format, args...)
	if underCI() {
		t.Fatalf("%s (%s is set: a missing part fails instead of skipping)", msg, CIEnv)
	}
	t.Skip(msg)
}
