package groth16

import "syscall"

// dropPages tells the kernel that the mapped file pages of b are not needed
// now: they leave the process's resident set (the page cache keeps or
// reclaims them) and fault in again from the file if read. b must be part
// of a read-only file mapping, never heap memory, which this would zero.
func dropPages(b []byte) {
	_ = syscall.Madvise(b, syscall.MADV_DONTNEED) // advice only: on failure the pages stay
}
