// Package errtext writes caller-supplied strings into error messages: the
// one place their bound is (a hostile C1 may carry a 200 MB proof name, and
// a host that logs the error would write all of it).
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
	if len(s) <= MaxBytes {
		return strconv.Quote(string(s))
	}
	cut := MaxBytes
	for cut > MaxBytes-utf8.UTFMax && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return strconv.Quote(string(s[:cut])) + "… (" + strconv.Itoa(len(s)) + " bytes)"
}
