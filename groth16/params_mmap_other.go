//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package groth16

import (
	"errors"
	"os"
)

// mapFile is unavailable here; OpenProvingKey falls back to reading the file.
func mapFile(*os.File, int64) ([]byte, func([]byte) error, error) {
	return nil, nil, errors.New("mmap not supported on this platform")
}

// openFlags adds nothing where FIFOs cannot block an open.
const openFlags = 0
