//go:build !unix

package groth16_test

import "time"

// cpuTime is not measured here.
func cpuTime() (time.Duration, bool) { return 0, false }
