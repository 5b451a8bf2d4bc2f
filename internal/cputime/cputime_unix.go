//go:build unix

package cputime

import (
	"syscall"
	"time"
)

// Process is the CPU time (user and system) the process has used so far;
// ok is false where it cannot be measured.
func Process() (d time.Duration, ok bool) {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}
