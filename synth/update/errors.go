package update

import (
	"errors"
	"fmt"
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
	s := "update: bad vanilla proof: "
	switch {
	case e.Partition >= 0 && e.Challenge >= 0:
		s += fmt.Sprintf("partition %d challenge %d: ", e.Partition, e.Challenge)
	case e.Partition >= 0:
		s += fmt.Sprintf("partition %d: ", e.Partition)
	}
	if e.Field != "" {
		s += e.Field + ": "
	}
	s += e.Msg
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

// Unwrap returns ErrBadVanillaProof and the cause, if any.
func (e *ProofError) Unwrap() []error {
	if e.Err != nil {
		return []error{ErrBadVanillaProof, e.Err}
	}
	return []error{ErrBadVanillaProof}
}

func badProof(k, i int, field, format string, args ...any) *ProofError {
	return &ProofError{Partition: k, Challenge: i, Field: field, Msg: fmt.Sprintf(format, args...)}
}
