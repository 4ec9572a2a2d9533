package toolstest

import (
	"errors"
	"strings"
	"testing"
)

// needCall runs ask with a recorder of t in a goroutine of its own (a
// Skip or Fatalf ends it, as it ends a test) and returns the recorder.
func needCall(t *testing.T, ask func(tb testing.TB)) *corpusRecorder {
	r := &corpusRecorder{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		ask(r)
	}()
	<-done
	return r
}

// TestNeedFailsUnderCI: for two programs that are missing, Need fails the
// test under CI with their names and skips it otherwise; a program that
// is there (sh) passes both ways; the other Need functions behave alike.
func TestNeedFailsUnderCI(t *testing.T) {
	const a, b = "docmill-missing-checker-a", "docmill-missing-checker-b"
	for _, ci := range []string{"true", ""} {
		t.Setenv(CIEnv, ci)
		r := needCall(t, func(tb testing.TB) { Need(tb, "sh", a, b) })
		msg, other := r.failed, r.skipped
		if ci == "" {
			msg, other = r.skipped, r.failed
		}
		if !strings.Contains(msg, a) || !strings.Contains(msg, b) || other != "" {
			t.Errorf("CI=%q: skipped %q, failed %q; want both names in the %s", ci, r.skipped, r.failed,
				map[string]string{"true": "failure", "": "skip"}[ci])
		}
		if r := needCall(t, func(tb testing.TB) { Need(tb, "sh") }); r.failed != "" || r.skipped != "" {
			t.Errorf("CI=%q: sh is installed, yet skipped %q, failed %q", ci, r.skipped, r.failed)
		}
	}

	t.Setenv(CIEnv, "true")
	for name, ask := range map[string]func(tb testing.TB){
		"chromium": func(tb testing.TB) { NeedAt(tb, "chromium", "") },
		"redis":    func(tb testing.TB) { NeedService(tb, "redis", errors.New("refused")) },
		"a jail":   func(tb testing.TB) { NeedCapability(tb, "build a jail", errors.New("no userns")) },
	} {
		if r := needCall(t, ask); !strings.Contains(r.failed, name[strings.LastIndex(name, " ")+1:]) || r.skipped != "" {
			t.Errorf("%s under CI: skipped %q, failed %q", name, r.skipped, r.failed)
		}
	}
	for _, ask := range []func(tb testing.TB){
		func(tb testing.TB) { NeedAt(tb, "chromium", "/usr/bin/chromium") },
		func(tb testing.TB) { NeedService(tb, "redis", nil) },
		func(tb testing.TB) { NeedCapability(tb, "build a jail", nil) },
	} {
		if r := needCall(t, ask); r.failed != "" || r.skipped != "" {
			t.Errorf("present part: skipped %q, failed %q", r.skipped, r.failed)
		}
	}
	t.Setenv(CIEnv, "false")
	if r := needCall(t, func(tb testing.TB) { Need(tb, a) }); r.skipped == "" || r.failed != "" {
		t.Errorf("CI=false: skipped %q, failed %q; want a skip", r.skipped, r.failed)
	}
}
