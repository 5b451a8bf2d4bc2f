package synth

import (
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

// Matrix is one R1CS matrix in compressed sparse row form. Row r's terms are
// Cols[RowStart[r]:RowStart[r+1]] with coefficients Coeffs[CoeffIDs[…]]; each
// row's variables are strictly increasing (duplicates merged, zero sums dropped).
type Matrix struct {
	RowStart []int64
	Cols     []Variable
	CoeffIDs []uint32
}

// NumRows is the number of rows recorded.
func (m *Matrix) NumRows() int { return len(m.RowStart) - 1 }

// NNZ is the number of stored terms.
func (m *Matrix) NNZ() int { return len(m.Cols) }

// Recorder records the constraint matrices A, B, C (and the assignment, so
// the matrices can be checked against the witness). Coefficients are shared
// in one deduplicated table: Filecoin circuits use few distinct values.
type Recorder struct {
	assignment
	densities
	A, B, C Matrix
	Coeffs  []fr.Element
	coeffID map[fr.Element]uint32
	scratch LinearCombination
}

var _ ConstraintSystem = (*Recorder)(nil)

// NewRecorder returns a recorder with ONE allocated.
func NewRecorder() *Recorder { return NewRecorderSized(Sizes{}, [3]int{}) }

// NewRecorderSized is NewRecorder with room for hint's inputs, aux and rows
// (and the input rows AppendInputRows adds), and for terms[i] terms in A, B
// and C: a recording of a circuit whose shape is known then grows none of
// its slices, where each growth would leave the old backing array behind as
// garbage (a 32 GiB partition with one challenge allocated 5.4 times what
// its recording keeps). Hints are room only: a larger circuit still fits.
func NewRecorderSized(hint Sizes, terms [3]int) *Recorder {
	r := &Recorder{coeffID: map[fr.Element]uint32{}}
	for i, m := range []*Matrix{&r.A, &r.B, &r.C} {
		m.RowStart = make([]int64, 1, hint.Rows+hint.Inputs+1)
		m.Cols = make([]Variable, 0, terms[i])
		m.CoeffIDs = make([]uint32, 0, terms[i])
	}
	r.Inputs = make([]fr.Element, 0, hint.Inputs)
	r.Aux = make([]fr.Element, 0, hint.Aux)
	r.AAux.Words = make([]uint64, 0, (hint.Aux+63)/64)
	r.BAux.Words = make([]uint64, 0, (hint.Aux+63)/64)
	r.BInput.Words = make([]uint64, 0, (hint.Inputs+63)/64)
	r.AllocInput(CoeffOne)
	return r
}

// Alloc implements ConstraintSystem.
func (r *Recorder) Alloc(value fr.Element) Variable {
	r.growAux()
	return r.alloc(value)
}

// AllocInput implements ConstraintSystem.
func (r *Recorder) AllocInput(value fr.Element) Variable {
	r.growInput()
	return r.assignment.allocInput(value)
}

// Enforce implements ConstraintSystem.
func (r *Recorder) Enforce(a, b, c LinearCombination) {
	r.track(a, b)
	r.record(&r.A, a)
	r.record(&r.B, b)
	r.record(&r.C, c)
}

func (r *Recorder) record(m *Matrix, lc LinearCombination) {
	for _, t := range normalize(lc, &r.scratch) {
		if t.Coeff.IsZero() {
			continue
		}
		id, ok := r.coeffID[t.Coeff]
		if !ok {
			id = uint32(len(r.Coeffs))
			r.Coeffs = append(r.Coeffs, t.Coeff)
			r.coeffID[t.Coeff] = id
		}
		m.Cols = append(m.Cols, t.Var)
		m.CoeffIDs = append(m.CoeffIDs, id)
	}
	m.RowStart = append(m.RowStart, int64(len(m.Cols)))
}

// NumRows is the number of rows recorded.
func (r *Recorder) NumRows() int { return r.A.NumRows() }

// MulVec evaluates m·z for the assignment z = (inputs, aux): one value per row.
func (r *Recorder) MulVec(m *Matrix, inputs, aux []fr.Element) []fr.Element {
	out := make([]fr.Element, m.NumRows())
	var t fr.Element
	for row := range out {
		var acc fr.Element
		for k := m.RowStart[row]; k < m.RowStart[row+1]; k++ {
			v := m.Cols[k]
			var x *fr.Element
			if v.IsAux() {
				x = &aux[v.Index()]
			} else {
				x = &inputs[v.Index()]
			}
			t.Mul(&r.Coeffs[m.CoeffIDs[k]], x)
			acc.Add(&acc, &t)
		}
		out[row] = acc
	}
	return out
}
