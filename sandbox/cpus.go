package sandbox

import "runtime"

func runtimeCPUs() int { return runtime.NumCPU() }
