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
//
// In a forked system, bits of the parent's variables (indices below the
// bases) are noted in private lists of indices that Join sets in the parent,
// so children can run concurrently. Lists, not bitmaps: a child nested deep in
// a large system would otherwise hold a bitmap of everything below it.
type densities struct {
	AAux, BInput, BAux Density
	scratch            LinearCombination

	auxBase, inputBase                   int
	parentAAux, parentBAux, parentBInput []uint32
}

func (d *densities) growAux()   { d.AAux.grow(); d.BAux.grow() }
func (d *densities) growInput() { d.BInput.grow() }

func (d *densities) track(a, b LinearCombination) {
	for _, t := range normalize(a, &d.scratch) {
		if t.Var.IsAux() && !t.Coeff.IsZero() {
			d.setBit(&d.AAux, &d.parentAAux, t.Var.Index(), d.auxBase)
		}
	}
	for _, t := range normalize(b, &d.scratch) {
		if t.Coeff.IsZero() {
			continue
		}
		if t.Var.IsAux() {
			d.setBit(&d.BAux, &d.parentBAux, t.Var.Index(), d.auxBase)
		} else {
			d.setBit(&d.BInput, &d.parentBInput, t.Var.Index(), d.inputBase)
		}
	}
}

// setBit sets variable i's bit in own, or notes it in the list of the
// parent's bits when i is the parent's (skipping an immediate repeat).
func (d *densities) setBit(own *Density, parent *[]uint32, i, base int) {
	if i >= base {
		own.set(i - base)
		return
	}
	if l := *parent; len(l) == 0 || l[len(l)-1] != uint32(i) {
		*parent = append(l, uint32(i))
	}
}

// appendBits appends o's bits after d's.
func (d *Density) appendBits(o *Density) {
	shift := uint(d.Len & 63)
	if shift == 0 {
		d.Words = append(d.Words[:d.Len/64], o.Words...)
		d.Len += o.Len
		d.Words = d.Words[:(d.Len+63)/64]
		return
	}
	for i := 0; i < o.Len; i += 64 {
		w := o.Words[i/64]
		d.Words[len(d.Words)-1] |= w << shift
		if d.Len+i+64-int(shift) < d.Len+o.Len {
			d.Words = append(d.Words, w>>(64-shift))
		}
	}
	d.Len += o.Len
	d.Words = d.Words[:(d.Len+63)/64]
}
