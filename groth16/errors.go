package groth16

import (
	"errors"
	"fmt"

	"github.com/gpuc2/gpuc2/groth16/internal/prover"
)

// Sentinel errors; every error this package returns for bad bytes or bad
// arguments wraps one of them, so callers can branch with errors.Is.
var (
	// ErrMalformedKey reports .vk or .params bytes that are truncated, too
	// long, corrupt, or whose section counts cannot belong to a real key; a
	// key file whose digest is not the expected one, or that has none to be
	// checked against (WithDigestCheck); a path that is not a regular file;
	// and a mapped file that shrank while it was read.
	ErrMalformedKey = errors.New("malformed groth16 key")
	// ErrMalformedProof reports bytes that are not a valid 192-byte proof.
	ErrMalformedProof = errors.New("malformed groth16 proof")
	// ErrInvalidInput reports arguments that do not fit together, such as
	// the wrong number of public inputs for a verifying key.
	ErrInvalidInput = prover.ErrInvalidInput
	// ErrClosed reports use of a ProvingKey after Close.
	ErrClosed = errors.New("groth16: proving key is closed")
)

// keyError describes a defect at a known place in a key file: the section
// ("h", "ic", "vk.alpha_g1", …), the element index (-1 when the defect is
// not in a point, e.g. a count) and the byte offset from the file start.
func keyError(section string, index int, offset int64, format string, args ...any) error {
	where := fmt.Sprintf("section %s", section)
	if index >= 0 {
		where = fmt.Sprintf("section %s element %d", section, index)
	}
	return fmt.Errorf("groth16: %s at offset %d: %s: %w", where, offset, fmt.Sprintf(format, args...), ErrMalformedKey)
}
