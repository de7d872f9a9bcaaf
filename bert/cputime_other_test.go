//go:build !unix

package bert

// cpuSeconds is -1: the process's CPU time is read on Unix only.
func cpuSeconds() float64 { return -1 }
