package synth

import (
	"fmt"
	"math/bits"
	"slices"
	"sync"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

// ProvingAssignment is the system the prover synthesizes into: it keeps
// the assignment and, for every row, the evaluations a, b, c of the row's
// three linear combinations, plus bellperson's density bitmaps. It stores
// no constraint matrix.
//
// A witness-only one (NewWitnessAssignment) keeps the assignment alone: it
// counts rows but evaluates none (A, B, C stay empty) and tracks no
// density, which the circuit's recorded matrices give instead (package
// synth/pce). A 32 GiB partition then holds its 4.2 GB witness, not 17 GB.
type ProvingAssignment struct {
	assignment
	densities
	A, B, C []fr.Element

	witnessOnly bool
	rows        int // the rows enforced, when witnessOnly

	// window is set on children from ForkN: where in the parent's buffers
	// the child's values are written.
	window *window
}

// window locates a ForkN child's values inside its parent's buffers.
type window struct {
	in, aux, row int   // offsets in the parent's Inputs, Aux and rows
	size         Sizes // the room the child was given
}

var _ ConstraintSystem = (*ProvingAssignment)(nil)

// Sizes are capacity hints: the expected counts of a circuit.
type Sizes struct {
	Inputs, Aux, Rows int
}

// DomainSize is the evaluation domain for n QAP rows (a circuit's
// constraints plus one row per input): the smallest power of two ≥ n.
func DomainSize(n int) int {
	if n <= 1 {
		return 1
	}
	return 1 << bits.Len(uint(n-1))
}

// Domain is the evaluation domain of a circuit of these sizes.
func (s Sizes) Domain() int { return DomainSize(s.Rows + s.Inputs) }

// NewProvingAssignment returns a system with ONE allocated, with room for
// the given sizes (zero values are fine; slices grow as needed).
func NewProvingAssignment(hint Sizes) *ProvingAssignment {
	return NewProvingAssignmentIn(hint, Vectors{
		Aux: make([]fr.Element, 0, hint.Aux),
		A:   make([]fr.Element, 0, hint.Rows),
		B:   make([]fr.Element, 0, hint.Rows),
		C:   make([]fr.Element, 0, hint.Rows),
	})
}

// Vectors is memory a caller chose for an assignment's values (pinned for
// a GPU's DMA, say): the aux values and the rows' a, b, c are written into
// each from its start (lengths are ignored). Values beyond a vector's
// capacity move the whole of it to the heap, as append does; Reset keeps
// the vectors.
type Vectors struct {
	Aux, A, B, C []fr.Element
}

// NewProvingAssignmentIn is NewProvingAssignment with its values written
// into v.
func NewProvingAssignmentIn(hint Sizes, v Vectors) *ProvingAssignment {
	p := &ProvingAssignment{}
	p.Inputs = make([]fr.Element, 0, hint.Inputs)
	p.Aux, p.A, p.B, p.C = v.Aux[:0], v.A[:0], v.B[:0], v.C[:0]
	p.AAux.Words = make([]uint64, 0, (hint.Aux+63)/64)
	p.BAux.Words = make([]uint64, 0, (hint.Aux+63)/64)
	p.AllocInput(CoeffOne)
	return p
}

// NewWitnessAssignment returns a witness-only system with ONE allocated,
// with room for the hint's inputs and aux (its rows are only counted).
func NewWitnessAssignment(hint Sizes) *ProvingAssignment {
	return NewWitnessAssignmentIn(hint, make([]fr.Element, 0, hint.Aux))
}

// NewWitnessAssignmentIn is NewWitnessAssignment with the aux values
// written into aux, as NewProvingAssignmentIn writes Vectors.Aux.
func NewWitnessAssignmentIn(hint Sizes, aux []fr.Element) *ProvingAssignment {
	p := &ProvingAssignment{witnessOnly: true}
	p.Inputs = make([]fr.Element, 0, hint.Inputs)
	p.Aux = aux[:0]
	p.AllocInput(CoeffOne)
	return p
}

// WitnessOnly reports whether p keeps the assignment alone (no a, b, c, no
// densities).
func (p *ProvingAssignment) WitnessOnly() bool { return p.witnessOnly }

// Alloc implements ConstraintSystem.
func (p *ProvingAssignment) Alloc(value fr.Element) Variable {
	if !p.witnessOnly {
		p.growAux()
	}
	return p.alloc(value)
}

// AllocInput implements ConstraintSystem.
func (p *ProvingAssignment) AllocInput(value fr.Element) Variable {
	if !p.witnessOnly {
		p.growInput()
	}
	return p.assignment.allocInput(value)
}

// Enforce implements ConstraintSystem.
func (p *ProvingAssignment) Enforce(a, b, c LinearCombination) {
	if p.witnessOnly {
		p.rows++
		return
	}
	// Gadgets hand over canonical (sorted, merged) combinations, so the
	// densities are set in the same pass as the evaluation; anything else
	// takes the general path through normalize.
	if !a.isCanonical() || !b.isCanonical() {
		p.track(a, b)
		p.A = append(p.A, p.eval(a))
		p.B = append(p.B, p.eval(b))
		p.C = append(p.C, p.eval(c))
		return
	}
	p.A = append(p.A, p.evalTrack(a, &p.AAux, nil, &p.parentAAux, nil))
	p.B = append(p.B, p.evalTrack(b, &p.BAux, &p.BInput, &p.parentBAux, &p.parentBInput))
	p.C = append(p.C, p.eval(c))
}

// evalTrack is eval that also sets the density bit of every variable with a
// non-zero coefficient: aux in auxD, inputs in inD (nil: inputs untracked).
func (p *ProvingAssignment) evalTrack(lc LinearCombination, auxD, inD *Density, parentAux, parentIn *[]uint32) fr.Element {
	var acc, t fr.Element
	for i := range lc {
		term := &lc[i]
		c := &term.Coeff
		if c[0]|c[1]|c[2]|c[3] == 0 {
			continue // a zero coefficient neither counts nor adds
		}
		v := term.Var
		idx := v.Index()
		var x *fr.Element
		if v.IsAux() {
			if idx >= p.assignment.auxBase {
				x = &p.Aux[idx-p.assignment.auxBase]
				auxD.Words[(idx-p.assignment.auxBase)>>6] |= 1 << (uint(idx-p.assignment.auxBase) & 63)
			} else {
				x = p.parent.value(v)
				p.setBit(auxD, parentAux, idx, p.densities.auxBase)
			}
		} else {
			if idx >= p.assignment.inputBase {
				x = &p.Inputs[idx-p.assignment.inputBase]
				if inD != nil {
					inD.Words[(idx-p.assignment.inputBase)>>6] |= 1 << (uint(idx-p.assignment.inputBase) & 63)
				}
			} else {
				x = p.parent.value(v)
				if inD != nil {
					p.setBit(inD, parentIn, idx, p.densities.inputBase)
				}
			}
		}
		switch {
		case x[0]|x[1]|x[2]|x[3] == 0:
		case *x == CoeffOne:
			acc.Add(&acc, c)
		case *c == CoeffOne:
			acc.Add(&acc, x)
		case *c == CoeffMinusOne:
			acc.Sub(&acc, x)
		default:
			t.Mul(c, x)
			acc.Add(&acc, &t)
		}
	}
	return acc
}

// NumRows is the number of rows enforced so far.
func (p *ProvingAssignment) NumRows() int {
	if p.witnessOnly {
		return p.rows
	}
	return len(p.A)
}

// Fork returns a child system for synthesizing an independent part of the
// circuit (one PoRep challenge, say) concurrently with its siblings. The
// child reads the variables p has now, numbers its own from where p ends, and
// evaluates its rows itself; Join appends the children to p in order, which
// gives exactly the rows, values and densities of synthesizing the parts one
// after the other. p must not change until Join. Variables a child returns
// are valid only inside that child.
func (p *ProvingAssignment) Fork(hint Sizes) *ProvingAssignment {
	c := &ProvingAssignment{witnessOnly: p.witnessOnly}
	c.parent = &p.assignment
	c.assignment.auxBase = len(p.Aux) + p.assignment.auxBase
	c.assignment.inputBase = len(p.Inputs) + p.assignment.inputBase
	c.densities.auxBase = c.assignment.auxBase
	c.densities.inputBase = c.assignment.inputBase
	c.Inputs = make([]fr.Element, 0, hint.Inputs)
	c.Aux = make([]fr.Element, 0, hint.Aux)
	if !p.witnessOnly {
		c.A = make([]fr.Element, 0, hint.Rows)
		c.B = make([]fr.Element, 0, hint.Rows)
		c.C = make([]fr.Element, 0, hint.Rows)
	}
	return c
}

// ForkN returns len(sizes) children like Fork, for parts synthesized in this
// order, whose values are written straight into p's buffers at their final
// places when sizes are exact: Join then only adjusts lengths, which saves
// copying the whole witness and holding it twice. A child that allocates
// more or fewer than its size still works; Join then copies.
func (p *ProvingAssignment) ForkN(sizes []Sizes) []*ProvingAssignment {
	var total Sizes
	for _, sz := range sizes {
		total.Inputs += sz.Inputs
		total.Aux += sz.Aux
		total.Rows += sz.Rows
	}
	// Make room once; children get disjoint, capacity-limited windows past
	// p's lengths, so an overflowing child reallocates instead of spilling
	// into its neighbour.
	p.Inputs = slices.Grow(p.Inputs, total.Inputs)
	p.Aux = slices.Grow(p.Aux, total.Aux)
	if !p.witnessOnly {
		p.A = slices.Grow(p.A, total.Rows)
		p.B = slices.Grow(p.B, total.Rows)
		p.C = slices.Grow(p.C, total.Rows)
	}
	children := make([]*ProvingAssignment, len(sizes))
	in, aux, row := len(p.Inputs), len(p.Aux), p.NumRows()
	for i, sz := range sizes {
		c := p.Fork(Sizes{})
		c.Inputs = p.Inputs[in : in : in+sz.Inputs]
		c.Aux = p.Aux[aux : aux : aux+sz.Aux]
		if !p.witnessOnly {
			c.A = p.A[row : row : row+sz.Rows]
			c.B = p.B[row : row : row+sz.Rows]
			c.C = p.C[row : row : row+sz.Rows]
		}
		c.window = &window{in: in, aux: aux, row: row, size: sz}
		in, aux, row = in+sz.Inputs, aux+sz.Aux, row+sz.Rows
		children[i] = c
	}
	return children
}

// inPlace reports whether every child is a ForkN window of p, in order from
// p's current lengths, filled exactly.
func (p *ProvingAssignment) inPlace(children []*ProvingAssignment) bool {
	in, aux, row := len(p.Inputs), len(p.Aux), p.NumRows()
	for _, c := range children {
		w := c.window
		if w == nil || w.in != in || w.aux != aux || w.row != row ||
			len(c.Inputs) != w.size.Inputs || len(c.Aux) != w.size.Aux || c.NumRows() != w.size.Rows ||
			(w.size.Aux > 0 && &c.Aux[0] != &p.Aux[:cap(p.Aux)][aux]) ||
			(!p.witnessOnly && w.size.Rows > 0 && &c.A[0] != &p.A[:cap(p.A)][row]) {
			return false
		}
		in, aux, row = in+w.size.Inputs, aux+w.size.Aux, row+w.size.Rows
	}
	return true
}

// Join appends children forked from p, in order, and releases them.
func (p *ProvingAssignment) Join(children ...*ProvingAssignment) error {
	auxBase, inputBase := len(p.Aux)+p.assignment.auxBase, len(p.Inputs)+p.assignment.inputBase
	for i, c := range children {
		if c.parent != &p.assignment || c.assignment.auxBase != auxBase || c.assignment.inputBase != inputBase {
			return fmt.Errorf("synth: Join: child %d was not forked from this system in its current state", i)
		}
	}
	if len(children) == 0 {
		return nil
	}
	if p.inPlace(children) {
		last := children[len(children)-1].window
		p.Inputs = p.Inputs[:last.in+last.size.Inputs]
		p.Aux = p.Aux[:last.aux+last.size.Aux]
		if p.witnessOnly {
			p.rows = last.row + last.size.Rows
		} else {
			p.A, p.B, p.C = p.A[:last.row+last.size.Rows], p.B[:last.row+last.size.Rows], p.C[:last.row+last.size.Rows]
		}
		joinBits(p, children)
		return nil
	}
	// Children living in p's spare capacity would be overwritten by the
	// copies below: take their values out first (a rare path).
	for _, c := range children {
		if c.window != nil {
			c.Inputs, c.Aux = slices.Clone(c.Inputs), slices.Clone(c.Aux)
			c.A, c.B, c.C = slices.Clone(c.A), slices.Clone(c.B), slices.Clone(c.C)
		}
	}
	// Grow once, then copy the children's values concurrently: for a
	// 32 GiB partition Join moves about 17 GB.
	type offsets struct{ in, aux, row int }
	offs := make([]offsets, len(children))
	nIn, nAux, nRow := len(p.Inputs), len(p.Aux), p.NumRows()
	for i, c := range children {
		offs[i] = offsets{nIn, nAux, nRow}
		nIn, nAux, nRow = nIn+len(c.Inputs), nAux+len(c.Aux), nRow+c.NumRows()
	}
	p.Inputs = slices.Grow(p.Inputs, nIn-len(p.Inputs))[:nIn]
	p.Aux = slices.Grow(p.Aux, nAux-len(p.Aux))[:nAux]
	if p.witnessOnly {
		p.rows = nRow
	} else {
		p.A = slices.Grow(p.A, nRow-len(p.A))[:nRow]
		p.B = slices.Grow(p.B, nRow-len(p.B))[:nRow]
		p.C = slices.Grow(p.C, nRow-len(p.C))[:nRow]
	}
	var wg sync.WaitGroup
	for i, c := range children {
		o := offs[i]
		wg.Go(func() {
			copy(p.Inputs[o.in:], c.Inputs)
			copy(p.Aux[o.aux:], c.Aux)
			if !p.witnessOnly {
				copy(p.A[o.row:], c.A)
				copy(p.B[o.row:], c.B)
				copy(p.C[o.row:], c.C)
			}
		})
	}
	wg.Wait()
	joinBits(p, children)
	return nil
}

// joinBits appends the children's density bitmaps to p's and releases them.
func joinBits(p *ProvingAssignment, children []*ProvingAssignment) {
	for _, c := range children {
		p.AAux.appendBits(&c.AAux)
		p.BAux.appendBits(&c.BAux)
		p.BInput.appendBits(&c.BInput)
		// Bits the child set on variables it did not own: ours, or (in a
		// nested fork) our parent's, which setBit routes.
		p.mergeBits(c.parentAAux, &p.AAux, &p.parentAAux, p.densities.auxBase)
		p.mergeBits(c.parentBAux, &p.BAux, &p.parentBAux, p.densities.auxBase)
		p.mergeBits(c.parentBInput, &p.BInput, &p.parentBInput, p.densities.inputBase)
		*c = ProvingAssignment{}
	}
}

func (p *ProvingAssignment) mergeBits(from []uint32, own *Density, parent *[]uint32, base int) {
	for _, i := range from {
		p.setBit(own, parent, int(i), base)
	}
}

// Reset empties p for the next synthesis of a circuit, keeping its buffers,
// and allocates ONE again. Reusing one ProvingAssignment per worker avoids
// faulting in gigabytes of fresh memory for every partition.
func (p *ProvingAssignment) Reset() {
	if p.parent != nil {
		*p = ProvingAssignment{} // a child is not reusable: drop it
	}
	p.Inputs, p.Aux = p.Inputs[:0], p.Aux[:0]
	p.A, p.B, p.C = p.A[:0], p.B[:0], p.C[:0]
	p.rows = 0
	for _, d := range []*Density{&p.AAux, &p.BAux, &p.BInput} {
		clear(d.Words)
		d.Words, d.Len = d.Words[:0], 0
	}
	p.parentAAux, p.parentBAux, p.parentBInput = nil, nil, nil
	p.AllocInput(CoeffOne)
}
