package porep

import (
	"errors"
	"fmt"

	"github.com/gpuc2/gpuc2/synth/internal/codec"
)

// ErrBadC1 is wrapped by every error about a malformed or inconsistent C1
// output.
var ErrBadC1 = errors.New("porep: bad C1 output")

// C1Error locates a problem in a C1 output. Partition and Challenge are −1
// where they do not apply. It wraps ErrBadC1.
type C1Error struct {
	Partition int
	Challenge int
	Field     string // e.g. "replica_column_proofs.drg_parents[2].column.rows"
	Msg       string
	Err       error // optional cause
}

func (e *C1Error) Error() string {
	return codec.ErrorText("porep: bad C1: ", e.Partition, e.Challenge, e.Field, e.Msg, e.Err)
}

// Unwrap returns ErrBadC1 and the cause, if any.
func (e *C1Error) Unwrap() []error { return codec.Unwrap(ErrBadC1, e.Err) }

func badC1(field, format string, args ...any) *C1Error {
	return &C1Error{Partition: -1, Challenge: -1, Field: field, Msg: fmt.Sprintf(format, args...)}
}
