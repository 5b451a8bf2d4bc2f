//go:build !unix

package stacked_test

func cpuSeconds() float64 { return 0 }

func peakGiB() float64 { return 0 }
