package errtext_test

import (
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

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

// A cut never splits a character: for characters of 2, 3 and 4 bytes at
// every offset across the bound, the quoted head, unquoted, is valid UTF-8,
// a prefix of the input, and leaves out less than one character; Cut's
// head is the same, unquoted.
func TestCutAtCharacters(t *testing.T) {
	for _, r := range []string{"é", "€", "𝄞"} {
		for pad := range errtext.MaxBytes + 1 {
			s := strings.Repeat("a", pad) + strings.Repeat(r, errtext.MaxBytes)
			q := errtext.Quote(s)
			suffix := "… (" + strconv.Itoa(len(s)) + " bytes)"
			require.True(t, strings.HasSuffix(q, suffix), "%q", q)
			head, err := strconv.Unquote(strings.TrimSuffix(q, suffix))
			require.NoError(t, err, "%q", q)
			assert.True(t, utf8.ValidString(head), "%d × a, then %q: %q", pad, r, head)
			assert.NotContains(t, q, `\x`, "a character split")
			assert.True(t, strings.HasPrefix(s, head))
			assert.Greater(t, len(head), errtext.MaxBytes-len(r))
			assert.LessOrEqual(t, len(head), errtext.MaxBytes)
			assert.Equal(t, head+suffix, errtext.Cut(s))
			assert.Equal(t, head+suffix, errtext.Cut([]byte(s)))
		}
	}
	assert.Equal(t, "short", errtext.Cut("short"))
	assert.Equal(t, "a\x00", errtext.Cut("a\x00"), "unquoted")
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
