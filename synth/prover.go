package synth

import "github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

// ProvingAssignment is the witness-only system the prover synthesizes into:
// it keeps the assignment and, for every row, the evaluations a, b, c of the
// row's three linear combinations, plus bellperson's density bitmaps. It
// stores no constraint matrix.
type ProvingAssignment struct {
	assignment
	densities
	A, B, C []fr.Element
}

var _ ConstraintSystem = (*ProvingAssignment)(nil)

// Sizes are capacity hints: the expected counts of a circuit.
type Sizes struct {
	Inputs, Aux, Rows int
}

// NewProvingAssignment returns a system with ONE allocated, with room for
// the given sizes (zero values are fine; slices grow as needed).
func NewProvingAssignment(hint Sizes) *ProvingAssignment {
	p := &ProvingAssignment{}
	p.Inputs = make([]fr.Element, 0, hint.Inputs)
	p.Aux = make([]fr.Element, 0, hint.Aux)
	p.A = make([]fr.Element, 0, hint.Rows)
	p.B = make([]fr.Element, 0, hint.Rows)
	p.C = make([]fr.Element, 0, hint.Rows)
	p.AAux.Words = make([]uint64, 0, (hint.Aux+63)/64)
	p.BAux.Words = make([]uint64, 0, (hint.Aux+63)/64)
	p.AllocInput(CoeffOne)
	return p
}

// Alloc implements ConstraintSystem.
func (p *ProvingAssignment) Alloc(value fr.Element) Variable {
	p.growAux()
	return p.alloc(value)
}

// AllocInput implements ConstraintSystem.
func (p *ProvingAssignment) AllocInput(value fr.Element) Variable {
	p.growInput()
	return p.assignment.allocInput(value)
}

// Enforce implements ConstraintSystem.
func (p *ProvingAssignment) Enforce(a, b, c LinearCombination) {
	p.track(a, b)
	p.A = append(p.A, p.eval(a))
	p.B = append(p.B, p.eval(b))
	p.C = append(p.C, p.eval(c))
}

// NumRows is the number of rows enforced so far.
func (p *ProvingAssignment) NumRows() int { return len(p.A) }
