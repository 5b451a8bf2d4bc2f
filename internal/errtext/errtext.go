// Package errtext writes caller-supplied strings into error messages and
// log lines: the one place their bound is (a hostile C1 may carry a 200 MB
// proof name, a request id may be 64 MiB, and a host that logs the error
// would write all of it).
package errtext

import (
	"strconv"
	"unicode/utf8"
)

// MaxBytes is the most bytes of a caller's string an error quotes.
const MaxBytes = 64

// Quote returns s quoted (strconv.Quote); one longer than MaxBytes is cut
// at a character boundary within them, and its full length is said:
// "StackedDrg…"… (16777216 bytes).
func Quote[S ~string | ~[]byte](s S) string {
	head, cut := clip(s)
	if !cut {
		return strconv.Quote(string(s))
	}
	return strconv.Quote(string(head)) + "… (" + strconv.Itoa(len(s)) + " bytes)"
}

// Cut is Quote unquoted, for a log attribute (whose handler quotes or
// escapes it): s itself, or one longer than MaxBytes cut as Quote cuts it
// with its full length said: StackedDrg…… (16777216 bytes).
func Cut[S ~string | ~[]byte](s S) string {
	head, cut := clip(s)
	if !cut {
		return string(s)
	}
	return string(head) + "… (" + strconv.Itoa(len(s)) + " bytes)"
}

// clip returns s's first MaxBytes bytes or fewer, never ending inside a
// UTF-8 sequence: a cut that falls inside one leaves the whole character
// out (a character is at most utf8.UTFMax bytes, so at most UTFMax-1
// bytes go). cut reports whether anything was left out.
func clip[S ~string | ~[]byte](s S) (head S, cut bool) {
	if len(s) <= MaxBytes {
		return s, false
	}
	n := MaxBytes
	for n > MaxBytes-(utf8.UTFMax-1) && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n], true
}
