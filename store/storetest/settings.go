package storetest

import (
	"fmt"
	"sync"
	"testing"

	"github.com/docmill/docmill"
)

// settingTests are the tests of docmill.Settings and of Store.Ping.
var settingTests = []test{
	{"Setting", testSetting},
	{"ConcurrentSetting", testConcurrentSetting},
	{"Ping", testPing},
}

func testSetting(t *testing.T, s docmill.Store) {
	for _, c := range []struct{ name, value, want string }{
		{"signing_secret", "first", "first"},
		{"signing_secret", "second", "first"},
		{"other", "x", "x"},
	} {
		got, err := s.Setting(t.Context(), c.name, c.value)
		if err != nil || got != c.want {
			t.Errorf("Setting(%s, %s) = %q, %v; want %q", c.name, c.value, got, err, c.want)
		}
	}
}

func testConcurrentSetting(t *testing.T, s docmill.Store) {
	const n = 10
	got := make([]string, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { got[i], errs[i] = s.Setting(t.Context(), "secret", fmt.Sprint("value-", i)) })
	}
	wg.Wait()
	for i := range n {
		if errs[i] != nil || got[i] != got[0] {
			t.Errorf("Setting #%d = %q, %v; #0 got %q", i, got[i], errs[i], got[0])
		}
	}
}

func testPing(t *testing.T, s docmill.Store) {
	if err := s.Ping(t.Context()); err != nil {
		t.Errorf("Ping: %v", err)
	}
}
