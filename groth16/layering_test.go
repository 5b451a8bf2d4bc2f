package groth16_test

import (
	"strings"
	"testing"

	"github.com/gpuc2/gpuc2/internal/golist"
)

// groth16 depends on synth and msm (and the module's internal helpers)
// only: never on native, the CUDA library's bindings, nor on gpulock, the
// device locks. Those are groth16/gpu's, and what it shares with groth16
// stays in groth16/internal (ARCHITECTURE.md's package table). The test
// asks the go tool, and skips where there is none (the GPU machines run
// test binaries without one).
func TestLayering(t *testing.T) {
	const module = golist.Module
	out := golist.Output(t, "-deps", module+"/groth16")
	allowed := func(pkg string) bool {
		switch pkg {
		case "groth16", "msm", "synth", "synth/pce":
			return true
		}
		return strings.HasPrefix(pkg, "internal/") || strings.HasPrefix(pkg, "groth16/internal/")
	}
	for _, dep := range strings.Fields(out) {
		pkg, ok := strings.CutPrefix(dep, module+"/")
		if !ok {
			continue // the standard library, gnark-crypto, x/sync…
		}
		switch {
		case pkg == "native" || strings.HasPrefix(pkg, "native/") || pkg == "gpulock":
			t.Errorf("groth16 depends on %s: the GPU side belongs in groth16/gpu", dep)
		case !allowed(pkg):
			t.Errorf("groth16 depends on %s: it may import synth, msm and internal helpers only", dep)
		}
	}
}
