package codec

import (
	"fmt"
	"strconv"
)

// Error is a problem a Reader met: the field (from the base, Fields.String),
// the input offset and what is wrong. Decoders turn it into their package's
// located error (Detail is its message there).
type Error struct {
	Field  string
	Offset int
	Msg    string
}

func (e *Error) Error() string {
	if e.Field == "" {
		return e.Detail()
	}
	return e.Field + ": " + e.Detail()
}

// Detail is the message without the field: "bincode offset 12: …".
func (e *Error) Detail() string { return "bincode offset " + strconv.Itoa(e.Offset) + ": " + e.Msg }

// ErrorText is the text of a circuit package's located error:
//
//	prefix [partition k [challenge i]: ][field: ]msg[: cause]
//
// with partition and challenge −1 where they do not apply. prefix names the
// package and the input ("porep: bad C1: ").
func ErrorText(prefix string, partition, challenge int, field, msg string, cause error) string {
	s := prefix
	switch {
	case partition >= 0 && challenge >= 0:
		s += fmt.Sprintf("partition %d challenge %d: ", partition, challenge)
	case partition >= 0:
		s += fmt.Sprintf("partition %d: ", partition)
	}
	if field != "" {
		s += field + ": "
	}
	s += msg
	if cause != nil {
		s += ": " + cause.Error()
	}
	return s
}

// Unwrap is the chain of a located error: its package's sentinel, then
// the cause if any.
func Unwrap(sentinel, cause error) []error {
	if cause != nil {
		return []error{sentinel, cause}
	}
	return []error{sentinel}
}
