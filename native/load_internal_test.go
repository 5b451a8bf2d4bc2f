//go:build cgo

package native

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
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

// A library of another ABI version (an older libgpuc2cuda.so left beside a
// newer binary) is refused with an error naming both versions, read before
// the library is closed: read after, its unmapped table crashed the
// process. The stand-in library is built with the C compiler cgo uses.
func TestOpenOtherABIVersion(t *testing.T) {
	cc, err := exec.LookPath("cc")
	if err != nil {
		t.Skip("no C compiler")
	}
	dir := t.TempDir()
	src := filepath.Join(dir, "old.c")
	const code = `#include <stdint.h>
static const struct { uint32_t abi_version, struct_size; } table = {ABI, 8};
const void* gpuc2_api(void) { return &table; }
`
	if err := os.WriteFile(src, []byte(code), 0o644); err != nil {
		t.Fatal(err)
	}
	lib := filepath.Join(dir, "libold.so")
	if out, err := exec.Command(cc, "-shared", "-fPIC", "-DABI=6", "-o", lib, src).CombinedOutput(); err != nil {
		t.Skipf("cannot build a shared library: %v: %s", err, out)
	}
	_, err = open(lib)
	if err == nil {
		t.Fatal("a library of ABI 6 opened")
	}
	if want := "ABI version 6 (table 8 bytes), want"; !strings.Contains(err.Error(), want) {
		t.Errorf("%v: want it to say %q", err, want)
	}
}
