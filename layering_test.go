package gpuc2_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/gpuc2/gpuc2/internal/golist"
)

// The floors of the module (ARCHITECTURE.md's package table), as the go
// tool sees the imports: the facade (the root) never depends on the daemon
// above it; nothing under internal/ depends on the facade, which is above
// it; the daemon (cuzk) imports of the module only the facade's public API,
// its generated protocol code and errtext (a leaf that quotes callers'
// strings). groth16's own floor is checked by groth16's TestLayering, the
// circuits' by synth's. Skips where there is no go tool (the GPU machines
// run test binaries without one).
func TestLayering(t *testing.T) {
	const module = golist.Module
	list := func(args ...string) []string { t.Helper(); return strings.Fields(golist.Output(t, args...)) }
	inModule := func(deps []string) []string {
		var out []string
		for _, d := range deps {
			if p, ok := strings.CutPrefix(d, module+"/"); ok {
				out = append(out, p)
			}
		}
		return out
	}

	for _, dep := range inModule(list("-deps", module)) {
		if dep == "cuzk" || strings.HasPrefix(dep, "cuzk/") {
			t.Errorf("the facade depends on %s, the daemon above it", dep)
		}
	}
	// internal/testparams, the TEST-ONLY setup the tests of the facade and
	// above share, makes it with the facade: a fixture of tests only, which
	// no package's own code imports (checked below).
	const fixture = module + "/internal/testparams"
	for _, pkg := range list(module + "/internal/...") {
		if pkg != fixture && slices.Contains(list("-deps", pkg), module) {
			t.Errorf("%s depends on the facade (%s), which is above it", pkg, module)
		}
	}
	for _, line := range list("-f", "{{.ImportPath}}:{{join .Imports \",\"}}", module+"/...") {
		pkg, imports, _ := strings.Cut(line, ":")
		if slices.Contains(strings.Split(imports, ","), fixture) {
			t.Errorf("%s imports %s outside its tests", pkg, fixture)
		}
	}
	for _, imp := range inModule(list("-f", "{{join .Imports \" \"}}", module+"/cuzk")) {
		switch imp {
		case "cuzk/cuzkv1", "internal/errtext":
		default:
			t.Errorf("the daemon imports %s: it may import the facade's public API (the root) only", imp)
		}
	}
}
