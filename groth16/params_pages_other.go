//go:build !linux

package groth16

// dropPages is a no-op where madvise is not wired up; mapped pages stay
// resident until the kernel reclaims them.
func dropPages([]byte) {}
