package toolstest

import "os"

// BenchSmokeEnv names the variable that turns the benchmarks into a smoke
// pass: with it set to 1, each benchmark runs on its smallest inputs and
// shortest durations, so that `make test` can run every benchmark once
// (-benchtime 1x) within its budget, to prove that it still works. Its
// figures are then meaningless and nothing judges them; `make bench`
// runs without it.
const BenchSmokeEnv = "DOCMILL_BENCH_SMOKE"

// BenchSmoke reports whether the benchmarks run as a smoke pass.
func BenchSmoke() bool { return os.Getenv(BenchSmokeEnv) == "1" }

// BenchSize is full, or smoke under a smoke pass: a benchmark's input
// size, duration or count.
func BenchSize[T any](full, smoke T) T {
	if BenchSmoke() {
		return smoke
	}
	return full
}
