//go:build cgo

package native

import (
	"errors"
	"strings"
	"testing"
)

// A failed load names every place it looked, in order, and why each failed.
func TestLoadErrorNamesThePlaces(t *testing.T) {
	for _, env := range []string{"", "/nonexistent/libgpuc2cuda.so"} {
		t.Setenv(EnvLibrary, env)
		_, err := load()
		if err == nil {
			t.Skip("the library loads here")
		}
		if !errors.Is(err, ErrNotAvailable) {
			t.Fatalf("%v: want ErrNotAvailable", err)
		}
		msg := err.Error()
		want := []string{"$GPUC2_NATIVE_LIB is not set", "beside the executable: stat ", "the dynamic linker's search path: dlopen libgpuc2cuda.so"}
		if env != "" {
			want[0] = "$GPUC2_NATIVE_LIB: stat /nonexistent/libgpuc2cuda.so"
		}
		last := -1
		for _, w := range want {
			i := strings.Index(msg, w)
			if i <= last {
				t.Errorf("GPUC2_NATIVE_LIB=%q: %q not after the previous place in %q", env, w, msg)
			}
			last = i
		}
	}
}
