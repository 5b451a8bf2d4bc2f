package errtext_test

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"

	"github.com/gpuc2/gpuc2/internal/errtext"
)

func TestQuote(t *testing.T) {
	long := strings.Repeat("a", 16<<20)
	for _, tc := range []struct {
		name, in, want string
	}{
		{"empty", "", `""`},
		{"short", "StackedDrg2KiBV1", `"StackedDrg2KiBV1"`},
		{"control bytes", "a\x00\n", `"a\x00\n"`},
		{"exactly the bound", strings.Repeat("b", errtext.MaxBytes), `"` + strings.Repeat("b", errtext.MaxBytes) + `"`},
		{"one over", strings.Repeat("c", errtext.MaxBytes+1), `"` + strings.Repeat("c", errtext.MaxBytes) + `"… (65 bytes)`},
		{"16 MiB", long, `"` + strings.Repeat("a", errtext.MaxBytes) + `"… (16777216 bytes)`},
		// a 3-byte character across the bound is left out whole
		{"cut at a character", strings.Repeat("d", errtext.MaxBytes-1) + "€€", `"` + strings.Repeat("d", errtext.MaxBytes-1) + `"… (69 bytes)`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, errtext.Quote(tc.in))
			assert.Equal(t, tc.want, errtext.Quote([]byte(tc.in)))
		})
	}
}

// Whatever the input, the quote holds at most MaxBytes of it, valid UTF-8
// where the input is.
func FuzzQuote(f *testing.F) {
	f.Add("StackedDrg32GiBV1_1")
	f.Add(strings.Repeat("€", 40))
	f.Fuzz(func(t *testing.T, s string) {
		q := errtext.Quote(s)
		// strconv.Quote writes at most 10 bytes per input byte (\U0010ffff for 4)
		assert.LessOrEqual(t, len(q), 10*errtext.MaxBytes+40)
		if utf8.ValidString(s) {
			assert.True(t, utf8.ValidString(q))
		}
	})
}
