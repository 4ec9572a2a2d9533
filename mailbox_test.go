package docmill

import "testing"

func TestCanonicalEmail(t *testing.T) {
	for _, tc := range []struct {
		in, want string
		ok       bool
	}{
		{"alice@example.com", "alice@example.com", true},
		{"Alice+x@Example.com", "alice@example.com", true},
		{"  bob@example.org ", "bob@example.org", true},
		{"a.b@example.com", "a.b@example.com", true},
		{"A.L.I.C.E+news@GoogleMail.com", "alice@gmail.com", true},
		{"al.ice@gmail.com", "alice@gmail.com", true},
		{"+tag@example.com", "", false},
		{"Alice <alice@example.com>", "", false},
		{"alice", "", false},
		{"alice@localhost", "", false},
		{"\"a b\"@example.com", "", false},
		{"", "", false},
	} {
		got, ok := CanonicalEmail(tc.in)
		if got != tc.want || ok != tc.ok {
			t.Errorf("CanonicalEmail(%q) = %q, %v; want %q, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}
