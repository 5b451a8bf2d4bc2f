package testcs

import (
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/gpuc2/gpuc2/synth"
)

// SameAssignment finds a changed value, a changed row and a changed density.
func TestSameAssignment(t *testing.T) {
	build := func(x uint64, bInB bool) *synth.ProvingAssignment {
		p := synth.NewProvingAssignment(synth.Sizes{})
		var v fr.Element
		v.SetUint64(x)
		a := p.Alloc(v)
		b := Generic{P: p}.Alloc(v) // through the wrapper
		lb := synth.LinearCombination{{Var: synth.One, Coeff: synth.CoeffOne}}
		if bInB {
			lb = synth.LinearCombination{{Var: b, Coeff: synth.CoeffOne}}
		}
		p.Enforce(synth.LinearCombination{{Var: a, Coeff: synth.CoeffOne}}, lb, synth.LinearCombination{{Var: a, Coeff: synth.CoeffOne}})
		return p
	}
	if err := SameAssignment(build(3, false), build(3, false)); err != nil {
		t.Fatal(err)
	}
	if SameAssignment(build(3, false), build(4, false)) == nil {
		t.Fatal("a different value passed")
	}
	if SameAssignment(build(1, false), build(1, true)) == nil {
		t.Fatal("a different B density passed")
	}
}
