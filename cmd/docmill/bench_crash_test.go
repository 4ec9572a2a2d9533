package main

import "testing"

// BenchmarkCrashPath prints how long a document its engine crashes on
// every time takes from the upload to the 422 (target: under 20 s),
// for LibreOffice (the warm worker, then a cold soffice) and Ghostscript.
// The engines are crashed as soon as they have the document
// (crashCases), so the figure is the crash rule's own cost: a real
// crasher adds twice the time its engine takes to crash on it. It never
// fails on the figure; TestEngineCrashRule asserts the walls.
func BenchmarkCrashPath(b *testing.B) {
	s, c := startCrashServer(b)
	cases := crashCases(b)
	for range b.N {
		for _, cc := range cases {
			o := runCrashCase(b, s, c, cc)
			o.checkWalls(b)
			b.Logf("%s (%s): %s ended %s after %d engine runs in %.1f s (target < 20 s)",
				cc.name, cc.tool, cc.file, o.code, len(o.runs), o.elapsed.Seconds())
		}
	}
}
