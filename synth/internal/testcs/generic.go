package testcs

import (
	"fmt"
	"slices"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/gpuc2/gpuc2/synth"
)

// Generic hides a ProvingAssignment's witness-only fast paths (pre-evaluated
// bit rows, replayed SHA-256 compressions): gadgets synthesizing into it see
// only a ConstraintSystem and enforce every row as linear combinations.
type Generic struct{ P *synth.ProvingAssignment }

func (g Generic) Alloc(v fr.Element) synth.Variable       { return g.P.Alloc(v) }
func (g Generic) AllocInput(v fr.Element) synth.Variable  { return g.P.AllocInput(v) }
func (g Generic) Enforce(a, b, c synth.LinearCombination) { g.P.Enforce(a, b, c) }
func (g Generic) Value(v synth.Variable) fr.Element       { return g.P.Value(v) }

// SameAssignment returns the first difference between two witness-only
// systems — row count, input and aux values, the a, b, c evaluations of
// every row, the three densities — or nil.
func SameAssignment(want, got *synth.ProvingAssignment) error {
	if want.NumRows() != got.NumRows() {
		return fmt.Errorf("%d rows, want %d", got.NumRows(), want.NumRows())
	}
	for _, v := range []struct {
		name      string
		want, got []fr.Element
	}{{"inputs", want.Inputs, got.Inputs}, {"aux", want.Aux, got.Aux}, {"A", want.A, got.A}, {"B", want.B, got.B}, {"C", want.C, got.C}} {
		if len(v.want) != len(v.got) {
			return fmt.Errorf("%s: %d values, want %d", v.name, len(v.got), len(v.want))
		}
		for i := range v.want {
			if v.want[i] != v.got[i] {
				return fmt.Errorf("%s[%d] differs", v.name, i)
			}
		}
	}
	for _, d := range []struct {
		name      string
		want, got synth.Density
	}{{"a_aux density", want.AAux, got.AAux}, {"b_aux density", want.BAux, got.BAux}, {"b_input density", want.BInput, got.BInput}} {
		if d.want.Len != d.got.Len || !slices.Equal(d.want.Words, d.got.Words) {
			return fmt.Errorf("%s differs", d.name)
		}
	}
	return nil
}
