package poppler

import "testing"

func TestNetpbm(t *testing.T) {
	for _, tt := range []struct {
		name     string
		in       string
		magic    string
		channels int
		w, h     int
		ok       bool
	}{
		{"gray", "P5\n3 2\n255\n" + "abcdef", "P5", 1, 3, 2, true},
		{"colour", "P6\n2 1\n255\n" + "abcdef", "P6", 3, 2, 1, true},
		{"other magic", "P6\n2 1\n255\n" + "abcdef", "P5", 1, 0, 0, false},
		{"pixels short", "P5\n3 2\n255\n" + "abc", "P5", 1, 0, 0, false},
		{"pixels long", "P5\n1 1\n255\n" + "ab", "P5", 1, 0, 0, false},
		{"side past the cap", "P5\n70000 1\n255\n" + "a", "P5", 1, 0, 0, false},
		{"zero side", "P5\n0 1\n255\n", "P5", 1, 0, 0, false},
		{"16-bit", "P5\n1 1\n65535\n" + "ab", "P5", 1, 0, 0, false},
		{"header cut", "P5\n3", "P5", 1, 0, 0, false},
	} {
		w, h, pix, err := netpbm([]byte(tt.in), tt.magic, tt.channels)
		if ok := err == nil; ok != tt.ok || w != tt.w || h != tt.h || (ok && len(pix) != tt.channels*w*h) {
			t.Errorf("%s: %dx%d, %d bytes, %v", tt.name, w, h, len(pix), err)
		}
	}
}
