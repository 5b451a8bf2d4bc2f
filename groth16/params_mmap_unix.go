//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package groth16

import (
	"errors"
	"os"
	"syscall"
)

// mapFile maps size bytes of f read-only.
func mapFile(f *os.File, size int64) ([]byte, func([]byte) error, error) {
	if size <= 0 || int64(int(size)) != size {
		return nil, nil, errors.New("file size cannot be mapped")
	}
	b, err := syscall.Mmap(int(f.Fd()), 0, int(size), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return nil, nil, err
	}
	return b, syscall.Munmap, nil
}

// openFlags makes opening a FIFO return at once instead of waiting for a
// writer, so that openRegular can refuse it; regular files ignore it.
const openFlags = syscall.O_NONBLOCK
