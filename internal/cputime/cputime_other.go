//go:build !unix

package cputime

import "time"

// Process is not measured here.
func Process() (d time.Duration, ok bool) { return 0, false }
