package update

import (
	"errors"
	"fmt"

	"github.com/gpuc2/gpuc2/synth/internal/codec"
)

// ErrBadVanillaProof is wrapped by every error about malformed or
// inconsistent vanilla update proofs.
var ErrBadVanillaProof = errors.New("update: bad vanilla proof")

// ProofError locates a problem in the vanilla partition proofs. Partition
// and Challenge are −1 where they do not apply. It wraps ErrBadVanillaProof.
type ProofError struct {
	Partition int
	Challenge int
	Field     string // e.g. "proof_r_new.data.Sub.base_proof.path[2].hashes"
	Msg       string
	Err       error // optional cause
}

func (e *ProofError) Error() string {
	return codec.ErrorText("update: bad vanilla proof: ", e.Partition, e.Challenge, e.Field, e.Msg, e.Err)
}

// Unwrap returns ErrBadVanillaProof and the cause, if any.
func (e *ProofError) Unwrap() []error { return codec.Unwrap(ErrBadVanillaProof, e.Err) }

func badProof(k, i int, field, format string, args ...any) *ProofError {
	return &ProofError{Partition: k, Challenge: i, Field: field, Msg: fmt.Sprintf(format, args...)}
}
