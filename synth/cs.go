package synth

import (
	"context"
	"errors"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

// ConstraintSystem is what a circuit synthesizes into, with bellperson's
// semantics: One (Input(0)) is allocated by the system before synthesis, so a
// circuit's first AllocInput is Input(1); indices are handed out in call order;
// every Enforce(a, b, c) adds one row ⟨a,z⟩·⟨b,z⟩ = ⟨c,z⟩.
//
// Values are passed with every allocation (no closures): gadgets compute their
// witness natively. Systems that only need the shape ignore them. Enforce must
// not retain its arguments, so callers may reuse their buffers.
type ConstraintSystem interface {
	Alloc(value fr.Element) Variable
	AllocInput(value fr.Element) Variable
	Enforce(a, b, c LinearCombination)
	// Value returns the value assigned to v.
	Value(v Variable) fr.Element
}

// Circuit is anything that can be synthesized. Long circuits check ctx
// between their parts and return ctx.Err() when it is cancelled.
type Circuit interface {
	Synthesize(ctx context.Context, cs ConstraintSystem) error
}

// ErrUnsatisfied is returned (wrapped, with the row) by Checker when a row does not hold.
var ErrUnsatisfied = errors.New("synth: constraint not satisfied")

// ErrTooManyVariables is reported when a space would exceed MaxVariables.
var ErrTooManyVariables = errors.New("synth: too many variables")

// AppendInputRows adds bellperson's "input_i · 0 = 0" row for every input,
// ONE included, which makes inputs fully dense in A. The prover and the setup
// call it after synthesis; circuits never do.
func AppendInputRows(cs ConstraintSystem, numInputs int) {
	var a [1]Term
	for i := 0; i < numInputs; i++ {
		a[0] = Term{Coeff: CoeffOne, Var: Input(i)}
		cs.Enforce(a[:], nil, nil)
	}
}

// Density is a bitmap with one bit per variable of one space (bit i: word
// i/64, bit i%64). It has the layout msm.Density and the CUDA backend take.
type Density struct {
	Words []uint64
	Len   int
}

// grow adds one clear bit.
func (d *Density) grow() {
	if d.Len&63 == 0 {
		d.Words = append(d.Words, 0)
	}
	d.Len++
}

func (d *Density) set(i int) { d.Words[i>>6] |= 1 << (uint(i) & 63) }

// Test reports whether bit i is set.
func (d *Density) Test(i int) bool { return d.Words[i>>6]>>(uint(i)&63)&1 == 1 }

// Count returns the number of set bits.
func (d *Density) Count() int {
	n := 0
	for _, w := range d.Words {
		n += popcount(w)
	}
	return n
}

// densities tracks bellperson's three bitmaps. A: aux terms with a non-zero
// coefficient (inputs are dense in A through the input rows); B: inputs and
// aux with a non-zero coefficient; C: not tracked.
type densities struct {
	AAux, BInput, BAux Density
	scratch            LinearCombination
}

func (d *densities) growAux()   { d.AAux.grow(); d.BAux.grow() }
func (d *densities) growInput() { d.BInput.grow() }

func (d *densities) track(a, b LinearCombination) {
	for _, t := range normalize(a, &d.scratch) {
		if t.Var.IsAux() && !t.Coeff.IsZero() {
			d.AAux.set(t.Var.Index())
		}
	}
	for _, t := range normalize(b, &d.scratch) {
		if t.Coeff.IsZero() {
			continue
		}
		if t.Var.IsAux() {
			d.BAux.set(t.Var.Index())
		} else {
			d.BInput.set(t.Var.Index())
		}
	}
}
