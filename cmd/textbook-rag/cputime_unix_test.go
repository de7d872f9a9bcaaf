//go:build unix

package main

import "syscall"

// processCPU is the CPU time (user and system) the process has used so
// far, in nanoseconds: unlike the wall clock, it does not count the time
// other programs on a busy machine take.
func processCPU() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
