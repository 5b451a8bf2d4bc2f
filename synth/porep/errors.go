package porep

import (
	"errors"
	"fmt"
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
	s := "porep: bad C1: "
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

// Unwrap returns ErrBadC1 and the cause, if any.
func (e *C1Error) Unwrap() []error {
	if e.Err != nil {
		return []error{ErrBadC1, e.Err}
	}
	return []error{ErrBadC1}
}

func badC1(field, format string, args ...any) *C1Error {
	return &C1Error{Partition: -1, Challenge: -1, Field: field, Msg: fmt.Sprintf(format, args...)}
}
