package cli

import (
	"errors"
	"flag"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"

	"github.com/dustin/go-humanize"

	"github.com/gpuc2/gpuc2/native"
)

// usageError is a bad command line. printed: package flag has already
// printed it, with the usage.
type usageError struct {
	err     error
	printed bool
}

func (e *usageError) Error() string { return e.err.Error() }
func (e *usageError) Unwrap() error { return e.err }

// Usagef returns a usage error: Exit exits 2 for it.
func Usagef(format string, args ...any) error {
	return &usageError{err: fmt.Errorf(format, args...)}
}

// IsUsage reports whether err is a usage error (Usagef, or one of Parse's).
func IsUsage(err error) bool {
	var u *usageError
	return errors.As(err, &u)
}

// Parse parses args with fs, whose ErrorHandling must be
// flag.ContinueOnError. -h prints the usage and returns flag.ErrHelp; a bad
// flag (printed by fs with the usage) and any positional argument are
// usage errors.
func Parse(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return &usageError{err: err, printed: true}
	}
	if fs.NArg() > 0 {
		return Usagef("unexpected arguments %q: %s takes flags only (-h lists them)", fs.Args(), fs.Name())
	}
	return nil
}

// Code is the exit status for err: 0 for nil and flag.ErrHelp, 2 for a
// usage error (as package flag exits), 1 for any other.
func Code(err error) int {
	switch {
	case err == nil, errors.Is(err, flag.ErrHelp):
		return 0
	case IsUsage(err):
		return 2
	}
	return 1
}

// Exit prints err, if any, to stderr as "name: err" (unless package flag
// already did) and exits with Code(err). The caller ends its progress
// display first, so that the message starts on a line of its own.
func Exit(name string, err error) {
	var u *usageError
	if err != nil && !errors.Is(err, flag.ErrHelp) && !(errors.As(err, &u) && u.printed) {
		fmt.Fprintf(os.Stderr, "%s: %v\n", name, err)
	}
	os.Exit(Code(err))
}

// BuildHint says how to get the native CUDA library and make it found.
const BuildHint = "to prove on a GPU, build the native library with `make -C native` " +
	"(nvcc >= 11.8, or Debian's nvidia-cuda-toolkit; Go with cgo and a C compiler) and set " +
	native.EnvLibrary + "=$PWD/native/build/" + native.LibraryName +
	" (with `go run`, \"beside the executable\" is a temporary build directory)"

// Backend checks a -backend value (name is the flag's) and resolves it
// to "cpu" or "cuda". why says where the choice comes from: for auto, the
// library and its GPUs, or why the CPU (native.Load's error: every place
// the library was looked for and why each failed, or no device). cuda
// without a loadable library is a usage error that names those places and
// BuildHint; so is any value but auto, cpu and cuda.
func Backend(name, value string) (backend, why string, err error) {
	switch value {
	case "cpu":
		return "cpu", "-" + name + " cpu", nil
	case "cuda", "auto":
	default:
		return "", "", Usagef("-%s %q: want auto, cpu or cuda", name, value)
	}
	if err := native.Load(); err != nil {
		if value == "cuda" {
			return "", "", Usagef("-%s cuda: the CUDA backend did not load: %w\n%s", name, err, BuildHint)
		}
		return "cpu", fmt.Sprintf("-%s auto: no GPU: %v", name, err), nil
	}
	path, _ := native.LibraryPath()
	n, _ := native.DeviceCount()
	return "cuda", fmt.Sprintf("-%s %s: %s from %s, %d GPU(s)", name, value, native.LibraryName, path, n), nil
}

// Devices checks CUDA device ordinals against the GPUs the library sees
// (name is the flag's): an unknown one is a usage error.
func Devices(name string, ordinals ...int) error {
	if len(ordinals) == 0 {
		return nil
	}
	n, err := native.DeviceCount()
	if err != nil {
		return Usagef("-%s: %v", name, err)
	}
	for _, d := range ordinals {
		if d < 0 || d >= n {
			return Usagef("-%s %d: no such GPU (%d visible: 0…%d)", name, d, n, n-1)
		}
	}
	return nil
}

// Terminal reports whether f is a terminal (a character device): progress
// is then redrawn in place; elsewhere (a pipe, a file) it is written as
// plain lines.
func Terminal(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// Width is the width in columns of the terminal f: what the terminal
// says, else $COLUMNS, else 80. A status line redrawn in place must fit
// it: a wrapped one is not erased by the next redraw.
func Width(f *os.File) int {
	if w := termWidth(f); w > 0 {
		return w
	}
	if w, err := strconv.Atoi(os.Getenv("COLUMNS")); err == nil && w > 0 {
		return w
	}
	return 80
}

// DevicesFlag is a flag.Func that appends comma-separated CUDA device
// ordinals to dst.
func DevicesFlag(dst *[]int) func(string) error {
	return func(s string) error {
		for _, f := range strings.Split(s, ",") {
			d, err := strconv.Atoi(strings.TrimSpace(f))
			if err != nil {
				return err
			}
			if d < 0 {
				return fmt.Errorf("negative ordinal %d", d)
			}
			*dst = append(*dst, d)
		}
		return nil
	}
}

// BytesFlag is a flag.Func that sets dst to a positive size such as 16GiB
// or 24GB.
func BytesFlag(dst *int64) func(string) error {
	return func(s string) error {
		b, err := humanize.ParseBytes(s)
		if err != nil {
			return err
		}
		if b == 0 || b > math.MaxInt64 {
			return fmt.Errorf("%q is not a positive size", s)
		}
		*dst = int64(b)
		return nil
	}
}
