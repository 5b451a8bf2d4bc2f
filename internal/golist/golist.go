// Package golist runs `go list` for the layering tests, which check the
// module's floors against the imports the go tool sees. A test skips where
// there is no go tool (the GPU machines run test binaries without one).
package golist

import (
	"errors"
	"os/exec"
	"testing"
)

// Module is the module's import path.
const Module = "github.com/gpuc2/gpuc2"

// Output runs `go list args…` and returns its output; it skips t without a
// go tool and fails it, with go's stderr, when go list fails.
func Output(t testing.TB, args ...string) string {
	t.Helper()
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skipf("no go tool on PATH: %v", err)
	}
	out, err := exec.Command(goTool, append([]string{"list"}, args...)...).Output()
	if err != nil {
		if ee := (*exec.ExitError)(nil); errors.As(err, &ee) {
			t.Fatalf("go list %v: %v\n%s", args, err, ee.Stderr)
		}
		t.Fatalf("go list %v: %v", args, err)
	}
	return string(out)
}
