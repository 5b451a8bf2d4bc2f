//go:build unix

package stacked_test

import (
	"runtime"
	"syscall"
)

// cpuSeconds is the process's user + system CPU time.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}

// peakGiB is the process's peak resident set size.
func peakGiB() float64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	kb := float64(ru.Maxrss) // kilobytes on Linux, bytes on Darwin
	if runtime.GOOS == "darwin" {
		kb /= 1024
	}
	return kb / (1 << 20)
}
