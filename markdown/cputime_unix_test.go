//go:build unix

package markdown

import "syscall"

// processCPU is the CPU time (user and system) the process has used so
// far, in seconds: unlike the wall clock, it leaves out the time other
// programs on a busy machine take.
func processCPU() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}
