package httpapi

import (
	"strings"
	"testing"
)

// TestWellFormedRequestID: an incoming X-Request-Id is kept when it is 1
// to 128 characters of A-Z, a-z, 0-9, '.', '_' and '-'; anything else is
// replaced (TestRequestIDKept checks the header on a real server).
func TestWellFormedRequestID(t *testing.T) {
	for id, want := range map[string]bool{
		"req_abc": true, "0f8c2a9e-3b1d-4c5e-9a7b-1c2d3e4f5a6b": true, "trace.span_1-2": true,
		strings.Repeat("a", 128): true, strings.Repeat("a", 129): false, "": false,
		"has space": false, `quo"te`: false, "new\nline": false, "tab\t": false, "ünïcode": false, "a/b": false, "a=b": false,
	} {
		if got := wellFormedRequestID(id); got != want {
			t.Errorf("%q: %v, want %v", id, got, want)
		}
	}
}
