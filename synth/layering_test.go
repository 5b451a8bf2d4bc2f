package synth_test

import (
	"strings"
	"testing"

	"github.com/gpuc2/gpuc2/internal/golist"
)

// The layering of the circuit packages (docs: ARCHITECTURE.md, "Packages"),
// checked on every package under synth, on its non-test dependencies
// (go list's Deps: direct and indirect imports) for rules 1–3 and on its
// direct imports for rule 4:
//
//  1. A circuit package depends on no package of another proof kind's
//     circuit: PoRep is synth/stacked (the partition circuit) with
//     synth/porep (C1's formats, which build stacked circuits), SnapDeals is
//     synth/update, PoSt will be synth/post. What two kinds share (the
//     Merkle proof format, gadgets, hashes, the bincode reader, the
//     challenge fork-join) lives below them: synth/merkle, synth/gadgets,
//     synth/hash, synth/internal.
//  2. Within PoRep, the circuit does not know its input format:
//     synth/stacked does not import synth/porep (porep imports stacked).
//  3. Every other package under synth depends on no circuit package.
//  4. Under synth, only circuit packages import go-state-types, go-cid and
//     go-fil-commcid (the chain's types stop at the formats).
func TestLayering(t *testing.T) {
	const mod = golist.Module + "/"
	kind := map[string]string{
		mod + "synth/stacked": "PoRep",
		mod + "synth/porep":   "PoRep",
		mod + "synth/update":  "SnapDeals",
		mod + "synth/post":    "PoSt",
	}
	circuitOf := func(pkg string) string {
		for p, k := range kind {
			if pkg == p || strings.HasPrefix(pkg, p+"/") {
				return k
			}
		}
		return ""
	}
	chainTypes := []string{"github.com/filecoin-project/go-state-types", "github.com/ipfs/go-cid", "github.com/filecoin-project/go-fil-commcid"}

	// one line a package: path | imports | deps
	out := golist.Output(t, "-f", `{{.ImportPath}}|{{join .Imports " "}}|{{join .Deps " "}}`, mod+"synth/...")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) < 10 {
		t.Fatalf("go list listed %d packages under synth, want the whole tree:\n%s", len(lines), out)
	}
	for _, line := range lines {
		f := strings.Split(line, "|")
		if len(f) != 3 {
			t.Fatalf("go list line %q", line)
		}
		pkg, imports, deps := f[0], strings.Fields(f[1]), strings.Fields(f[2])
		own := circuitOf(pkg)
		var bad []string
		for _, dep := range deps {
			other := circuitOf(dep)
			if other != "" && other != own ||
				other != "" && own == "" ||
				strings.HasPrefix(pkg, mod+"synth/stacked") && strings.HasPrefix(dep, mod+"synth/porep") {
				bad = append(bad, dep)
			}
		}
		switch {
		case len(bad) > 0 && own != "":
			t.Errorf("%s (%s) depends on %s: move what they share below the circuits", pkg, own, strings.Join(bad, ", "))
		case len(bad) > 0:
			t.Errorf("%s, shared by the circuits, depends on circuit packages %s", pkg, strings.Join(bad, ", "))
		}
		if own != "" {
			continue
		}
		for _, imp := range imports {
			for _, c := range chainTypes {
				if imp == c || strings.HasPrefix(imp, c+"/") {
					t.Errorf("%s, shared by the circuits, imports %s: only the formats use the chain's types", pkg, imp)
				}
			}
		}
	}
}
