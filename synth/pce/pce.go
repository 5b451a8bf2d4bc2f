// Package pce is pre-compiled constraint evaluation: a circuit's R1CS
// matrices A, B, C recorded once per proof type in a compact form, and the
// row evaluations a = A·w, b = B·w, c = C·w computed from a witness
// w = (inputs, aux) alone. Every sector of a proof type has the same
// matrices; only the witness changes. So a synthesis that keeps only the
// witness, plus these matrices, gives the prover what a full synthesis
// gives it: a, b, c and bellperson's densities.
//
// The compact form is CSR with 32-bit row offsets and columns and a 16-bit
// index into one table of the circuit's distinct coefficients (1,526 in a
// PoRep partition: ±1, ±2^k for bit packing, Poseidon's constants): 6 bytes
// per term. A 32 GiB partition (722,388,891 terms over 130,278,869 rows)
// takes 5.90 GB; Bytes says what a set of matrices takes.
//
// Compile makes the matrices from a recording (synth.Recorder); WriteTo
// and Read (WriteFile, ReadFile) keep them in a checksummed file, so that
// they can be cached instead of recorded again, and Check tells matrices
// read back from one that are not this circuit's. Evaluation on the CPU
// is here (Matrices.Eval); the CUDA prover evaluates them on the device
// (groth16.WithMatrices, native's spmv), where once every device holds
// them the host keeps them WithoutArrays.
package pce

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"sync/atomic"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/gpuc2/gpuc2/internal/par"
	"github.com/gpuc2/gpuc2/synth"
)

var (
	// ErrTooLarge reports a circuit beyond the compact form's limits: more
	// than 2^16 distinct coefficients, or 2^32 terms or witness values.
	ErrTooLarge = errors.New("pce: circuit too large for the compact form")
	// ErrRecording reports a recording that is not a consistent set of
	// matrices (a term outside the witness or the coefficient table, rows
	// out of order, matrices of different heights).
	ErrRecording = errors.New("pce: inconsistent recording")
	// ErrWitness reports a witness or output whose sizes do not match the
	// matrices.
	ErrWitness = errors.New("pce: witness does not match the matrices")
	// ErrNoArrays reports a use of matrices made WithoutArrays that needs
	// the arrays: evaluating or writing them, copying them to a device.
	ErrNoArrays = errors.New("pce: matrices without their arrays")
)

// ID names one set of matrices and the copies WithoutArrays makes of it, so
// that a device's copy of them is found from either. Compile and Read give
// each set its own; the zero ID names none.
type ID uint64

var lastID atomic.Uint64

func newID() ID { return ID(lastID.Add(1)) }

// Matrices are a circuit's A, B, C in compact form, with the densities the
// prover's MSMs take. They are immutable: Compile makes them consistent
// once, and nothing changes them after.
type Matrices struct {
	id          ID
	inputs, aux int          // the witness's sizes: w = (inputs…, aux…)
	coeffs      []fr.Element // distinct coefficients (Montgomery form), indexed by a term's id
	kinds       []uint8      // each coefficient's kind, for Eval
	a, b, c     Matrix

	aAux, bAux, bInput synth.Density

	// Set by WithoutArrays: a, b, c are empty, and these keep what Rows
	// and Bytes say.
	noArrays bool
	rows     int
	bytes    int64
}

// ID names the matrices (and their copies without arrays).
func (ms *Matrices) ID() ID { return ms.id }

// WithoutArrays returns ms's ID, sizes, densities and coefficient table
// (at most 2 MiB) without its matrices' arrays (5.9 GB at 32 GiB): what the
// host needs of matrices that every device proving with them already holds
// (groth16 finds a device's copy by ID). Eval, Check and WriteTo fail on it
// with ErrNoArrays, and A, B and C are empty.
func (ms *Matrices) WithoutArrays() *Matrices {
	return &Matrices{id: ms.id, inputs: ms.inputs, aux: ms.aux, coeffs: ms.coeffs, kinds: ms.kinds,
		aAux: ms.aAux, bAux: ms.bAux, bInput: ms.bInput, noArrays: true, rows: ms.Rows(), bytes: ms.Bytes()}
}

// HasArrays says whether ms holds its arrays (it was not made WithoutArrays).
func (ms *Matrices) HasArrays() bool { return !ms.noArrays }

// errNoArrays is ErrNoArrays for op, or nil when ms holds its arrays.
func (ms *Matrices) errNoArrays(op string) error {
	if ms.noArrays {
		return fmt.Errorf("%w: %s needs them (they are on the devices only)", ErrNoArrays, op)
	}
	return nil
}

// Matrix is one matrix in CSR form: row r's terms are
// [rowStart[r], rowStart[r+1]); a term is coeffs[ids[k]] times w[cols[k]],
// where an input i is column i and aux j column inputs + j.
type Matrix struct {
	rowStart []uint32
	cols     []uint32
	ids      []uint16
}

// CSR returns the matrix's arrays, for copying (to a device): row r's terms
// are [rowStart[r], rowStart[r+1]), term k is coefficient ids[k] times
// witness column cols[k]. They must not be modified.
func (m *Matrix) CSR() (rowStart, cols []uint32, ids []uint16) { return m.rowStart, m.cols, m.ids }

// Rows is the number of rows.
func (m *Matrix) Rows() int { return len(m.rowStart) - 1 }

// Terms is the number of stored terms.
func (m *Matrix) Terms() int { return len(m.cols) }

// bytes is the matrix's size in memory.
func (m *Matrix) bytes() int64 {
	return 4*int64(len(m.rowStart)) + 4*int64(len(m.cols)) + 2*int64(len(m.ids))
}

// Inputs and Aux are the witness's sizes: w = (inputs…, aux…).
func (ms *Matrices) Inputs() int { return ms.inputs }
func (ms *Matrices) Aux() int    { return ms.aux }

// Rows is the number of rows, the same in A, B and C.
func (ms *Matrices) Rows() int {
	if ms.noArrays {
		return ms.rows
	}
	return ms.a.Rows()
}

// A, B and C are the matrices.
func (ms *Matrices) A() *Matrix { return &ms.a }
func (ms *Matrices) B() *Matrix { return &ms.b }
func (ms *Matrices) C() *Matrix { return &ms.c }

// Coeffs is the coefficient table (Montgomery form) that the terms' ids
// index. It must not be modified.
func (ms *Matrices) Coeffs() []fr.Element { return ms.coeffs }

// Densities are bellperson's: the aux variables with a non-zero
// coefficient in A (aAux) and in B (bAux), the inputs with one in B.
func (ms *Matrices) Densities() (aAux, bAux, bInput synth.Density) {
	return ms.aAux, ms.bAux, ms.bInput
}

// Bytes is the size of the matrices and the coefficient table (the
// densities, 1 bit per variable, left out), also of matrices made
// WithoutArrays: what a copy of them takes.
func (ms *Matrices) Bytes() int64 {
	if ms.noArrays {
		return ms.bytes
	}
	return ms.a.bytes() + ms.b.bytes() + ms.c.bytes() + int64(len(ms.coeffs))*fr.Bytes
}

// Profile is what a circuit kind's matrices are sized by before they are
// recorded, measured by the kind's circuit package (each kind differs:
// Poseidon's rows hold 9.2 terms, SHA-256's 5.5).
type Profile struct {
	// TermsPerRow is the largest measured of A, B and C's terms per row
	// (input rows included): a recording's room.
	TermsPerRow [3]float64
	// Terms is A, B and C's terms per row together at the kind's largest
	// measured shape: what its matrices' bytes are estimated by.
	Terms float64
	// Coeffs is the number of distinct coefficients.
	Coeffs int
}

// RecordingTerms is room for the terms of a partition circuit of the
// profile's kind and sizes sz (rows without the input rows, which it adds)
// in each of A, B and C, with 1 % to spare: the hint of
// synth.NewRecorderSized.
func (p Profile) RecordingTerms(sz synth.Sizes) [3]int {
	rows := sz.Rows + sz.Inputs
	var t [3]int
	for i, r := range p.TermsPerRow {
		t[i] = int(float64(rows)*r*1.01) + 1
	}
	return t
}

// RecordingBytes is the most a recording of a partition circuit of sizes
// sz (rows without the input rows) holds at once: a recorder sized by
// RecordingTerms (8 bytes a term, 8 per row start of each matrix, the
// inputs and aux, the densities) beside the matrices Compile makes of it.
// At the 32 GiB PoRep shape with one challenge it counts 1,014 MiB, where
// the Go runtime held at most 1,024 (BENCHMARKS.md, issue 19).
func (p Profile) RecordingBytes(sz synth.Sizes) int64 {
	rows := sz.Rows + sz.Inputs
	var terms int64
	for _, t := range p.RecordingTerms(sz) {
		terms += int64(t)
	}
	vars := int64(sz.Inputs + sz.Aux)
	return 8*terms + 3*8*int64(rows+1) + vars*fr.Bytes + 3*((vars+63)/64)*8 + p.EstimatedBytes(rows)
}

// EstimatedBytes is what Bytes would say of a partition circuit of the
// profile's kind of rows rows (its input rows included).
func (p Profile) EstimatedBytes(rows int) int64 {
	terms := int64(float64(rows)*p.Terms + 0.5)
	return 3*4*int64(rows+1) + 6*terms + int64(p.Coeffs)*fr.Bytes
}

// Compile converts a recording into compact matrices. rec is what
// groth16.SetupRecorded takes: the circuit's rows with the input rows
// appended (synth.AppendInputRows). rec is read, not kept.
func Compile(rec *synth.Recorder) (*Matrices, error) {
	nIn, nAux := len(rec.Inputs), len(rec.Aux)
	if len(rec.Coeffs) > math.MaxUint16+1 {
		return nil, fmt.Errorf("%w: %d distinct coefficients (at most %d)", ErrTooLarge, len(rec.Coeffs), math.MaxUint16+1)
	}
	if int64(nIn)+int64(nAux) > math.MaxUint32 {
		return nil, fmt.Errorf("%w: %d inputs and %d aux", ErrTooLarge, nIn, nAux)
	}
	ms := &Matrices{id: newID(), inputs: nIn, aux: nAux, coeffs: slices.Clone(rec.Coeffs),
		aAux: clone(rec.AAux), bAux: clone(rec.BAux), bInput: clone(rec.BInput)}
	ms.kinds = coeffKinds(ms.coeffs)
	for _, x := range []struct {
		dst *Matrix
		src *synth.Matrix
	}{{&ms.a, &rec.A}, {&ms.b, &rec.B}, {&ms.c, &rec.C}} {
		m, err := compact(x.src, nIn, nAux, len(ms.coeffs))
		if err != nil {
			return nil, err
		}
		*x.dst = m
	}
	if ms.a.Rows() != ms.b.Rows() || ms.a.Rows() != ms.c.Rows() {
		return nil, fmt.Errorf("%w: rows A %d, B %d, C %d", ErrRecording, ms.a.Rows(), ms.b.Rows(), ms.c.Rows())
	}
	return ms, nil
}

func clone(d synth.Density) synth.Density {
	return synth.Density{Words: slices.Clone(d.Words), Len: d.Len}
}

// compact converts one recorded matrix, checking each term's variable and
// coefficient as it goes and then the rows (Matrix.checkRows): Eval then
// indexes without checks.
func compact(src *synth.Matrix, nIn, nAux, nCoeffs int) (Matrix, error) {
	nnz := src.NNZ()
	if nnz > math.MaxUint32 || len(src.CoeffIDs) != nnz {
		return Matrix{}, fmt.Errorf("%w: %d terms, %d coefficient ids in one matrix", ErrTooLarge, nnz, len(src.CoeffIDs))
	}
	m := Matrix{rowStart: make([]uint32, len(src.RowStart)), cols: make([]uint32, nnz), ids: make([]uint16, nnz)}
	for i, s := range src.RowStart {
		if s < 0 || s > int64(nnz) {
			return Matrix{}, fmt.Errorf("%w: row %d starts at term %d of %d", ErrRecording, i, s, nnz)
		}
		m.rowStart[i] = uint32(s)
	}
	for k, v := range src.Cols {
		col := v.Index()
		if v.IsAux() {
			if col >= nAux {
				return Matrix{}, fmt.Errorf("%w: term %d is %v of %d aux", ErrRecording, k, v, nAux)
			}
			col += nIn
		} else if col >= nIn {
			return Matrix{}, fmt.Errorf("%w: term %d is %v of %d inputs", ErrRecording, k, v, nIn)
		}
		if int(src.CoeffIDs[k]) >= nCoeffs {
			return Matrix{}, fmt.Errorf("%w: term %d has coefficient %d of %d", ErrRecording, k, src.CoeffIDs[k], nCoeffs)
		}
		m.cols[k] = uint32(col)
		m.ids[k] = uint16(src.CoeffIDs[k])
	}
	if err := m.checkRows(); err != nil {
		return Matrix{}, fmt.Errorf("%w: %w", ErrRecording, err)
	}
	return m, nil
}

// rowsPerTask is the rows one evaluation task takes: rows vary from one
// term to hundreds, so many small tasks balance the cores.
const rowsPerTask = 1 << 14

// Eval writes a[r] = ⟨A_r, w⟩, b[r] = ⟨B_r, w⟩, c[r] = ⟨C_r, w⟩ for every
// row r, w = (inputs, aux) in Montgomery form, on all cores; a, b and c
// need at least Rows elements (the rest is left as it is). The values
// equal what synth.ProvingAssignment computes while synthesizing.
func (ms *Matrices) Eval(ctx context.Context, inputs, aux, a, b, c []fr.Element) error {
	if err := ms.errNoArrays("Eval"); err != nil {
		return err
	}
	if len(inputs) != ms.inputs || len(aux) != ms.aux {
		return fmt.Errorf("%w: %d inputs and %d aux, the matrices take %d and %d", ErrWitness, len(inputs), len(aux), ms.inputs, ms.aux)
	}
	n := ms.Rows()
	if len(a) < n || len(b) < n || len(c) < n {
		return fmt.Errorf("%w: outputs of %d, %d, %d elements for %d rows", ErrWitness, len(a), len(b), len(c), n)
	}
	return par.Chunks(ctx, n, rowsPerTask, func(lo, hi int) error {
		for _, x := range []struct {
			m   *Matrix
			out []fr.Element
		}{{&ms.a, a}, {&ms.b, b}, {&ms.c, c}} {
			x.m.eval(lo, hi, ms.coeffs, ms.kinds, inputs, aux, x.out[lo:hi])
		}
		return nil
	})
}

// Check evaluates every row like Eval and compares it with a, b and c, the
// row evaluations of a full synthesis of the same witness (its input rows
// appended): matrices read from a file, say, are then known to be this
// circuit's. The first row that differs fails with ErrWitness, named.
func (ms *Matrices) Check(ctx context.Context, inputs, aux, a, b, c []fr.Element) error {
	if err := ms.errNoArrays("Check"); err != nil {
		return err
	}
	n := ms.Rows()
	if len(inputs) != ms.inputs || len(aux) != ms.aux || len(a) != n || len(b) != n || len(c) != n {
		return fmt.Errorf("%w: %d inputs, %d aux and %d, %d, %d rows; the matrices take %d, %d and %d rows",
			ErrWitness, len(inputs), len(aux), len(a), len(b), len(c), ms.inputs, ms.aux, n)
	}
	return par.Chunks(ctx, n, rowsPerTask, func(lo, hi int) error {
		got := make([]fr.Element, hi-lo)
		for i, x := range []struct {
			m    *Matrix
			want []fr.Element
		}{{&ms.a, a}, {&ms.b, b}, {&ms.c, c}} {
			x.m.eval(lo, hi, ms.coeffs, ms.kinds, inputs, aux, got)
			for r := lo; r < hi; r++ {
				if got[r-lo] != x.want[r] {
					return fmt.Errorf("%w: row %d of %c differs from the synthesis", ErrWitness, r, "ABC"[i])
				}
			}
		}
		return nil
	})
}

// Kinds of coefficient, for the additions that need no multiplication.
const (
	general uint8 = iota
	plusOne
	minusOne
)

func coeffKinds(coeffs []fr.Element) []uint8 {
	k := make([]uint8, len(coeffs))
	for i := range coeffs {
		switch coeffs[i] {
		case synth.CoeffOne:
			k[i] = plusOne
		case synth.CoeffMinusOne:
			k[i] = minusOne
		}
	}
	return k
}

// eval evaluates rows [lo, hi) into out (row r at out[r-lo]). Most
// witness values of Filecoin circuits are bits and most coefficients ±1,
// so zero and one values and ±1 coefficients skip the multiplication.
func (m *Matrix) eval(lo, hi int, coeffs []fr.Element, kinds []uint8, inputs, aux, out []fr.Element) {
	nIn := uint32(len(inputs))
	var acc, t fr.Element
	for r := lo; r < hi; r++ {
		acc.SetZero()
		for k := m.rowStart[r]; k < m.rowStart[r+1]; k++ {
			col := m.cols[k]
			var v *fr.Element
			if col < nIn {
				v = &inputs[col]
			} else {
				v = &aux[col-nIn]
			}
			id := m.ids[k]
			switch {
			case v.IsZero():
			case *v == synth.CoeffOne:
				acc.Add(&acc, &coeffs[id])
			case kinds[id] == plusOne:
				acc.Add(&acc, v)
			case kinds[id] == minusOne:
				acc.Sub(&acc, v)
			default:
				t.Mul(&coeffs[id], v)
				acc.Add(&acc, &t)
			}
		}
		out[r-lo] = acc
	}
}
