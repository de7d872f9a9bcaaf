//go:build unix

package bert

import "syscall"

// cpuSeconds is the CPU time the process has used, all threads, or -1
// where it cannot be read.
func cpuSeconds() float64 {
	var u syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &u); err != nil {
		return -1
	}
	return float64(u.Utime.Nano()+u.Stime.Nano()) / 1e9
}
