package poseidon

import (
	"errors"
	"fmt"
	"math/big"
	"sync"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

// FullRounds is R_F for every arity.
const FullRounds = 8

// MaxWidth is the largest state width supported (arity 11).
const MaxWidth = 12

// ErrArity is returned for an arity other than 2, 4, 8 or 11.
var ErrArity = errors.New("poseidon: unsupported arity")

// partialRounds is neptune's R_P for Strength::Standard.
var partialRounds = map[int]int{2: 55, 4: 56, 8: 57, 11: 57}

// Sparse is one sparse matrix of the partial rounds, applied to a row
// vector s as out[0] = Σ W[i]·s[i], out[j] = s[j] + V[j−1]·s[0].
type Sparse struct {
	W []fr.Element // length t
	V []fr.Element // length t − 1
}

// Constants are the parameters of one arity.
type Constants struct {
	Arity, Width, PartialRounds int
	DomainTag                   fr.Element
	// RoundConstants are the plain constants, Width per round.
	RoundConstants []fr.Element
	// MDS is the Cauchy matrix M[i][j] = 1/(i + t + j); it is symmetric.
	MDS [][]fr.Element
	// Compressed are neptune's compressed round constants (8·t + R_P).
	Compressed []fr.Element
	// PreSparse is the dense matrix applied after the fourth full round.
	PreSparse [][]fr.Element
	// Sparse holds one matrix per partial round, first partial round first.
	Sparse []Sparse
}

var (
	onces [MaxWidth]sync.Once
	table [MaxWidth]*Constants
)

// ConstantsFor returns the constants of an arity, deriving them on first use.
func ConstantsFor(arity int) (*Constants, error) {
	if _, ok := partialRounds[arity]; !ok {
		return nil, fmt.Errorf("%w: %d", ErrArity, arity)
	}
	onces[arity].Do(func() { table[arity] = derive(arity) })
	return table[arity], nil
}

func derive(arity int) *Constants {
	t := arity + 1
	rp := partialRounds[arity]
	c := &Constants{Arity: arity, Width: t, PartialRounds: rp}
	c.DomainTag.SetUint64(1<<uint(arity) - 1)
	c.RoundConstants = grainConstants(t, FullRounds, rp)
	c.MDS = cauchy(t)
	minv := invert(c.MDS)
	c.Compressed = compress(c, minv)
	c.PreSparse, c.Sparse = factor(c.MDS, rp)
	return c
}

// grainConstants generates (rf + rp)·t constants with the Grain LFSR of the
// Poseidon reference script: 80 bits of parameters, 160 warm-up steps,
// self-shrinking output, 255-bit big-endian candidates rejected if ≥ r.
func grainConstants(t, rf, rp int) []fr.Element {
	var state [80]bool
	n := 0
	put := func(bits int, v uint64) {
		for i := bits - 1; i >= 0; i-- {
			state[n] = v>>uint(i)&1 == 1
			n++
		}
	}
	put(2, 1)    // field: GF(p)
	put(4, 1)    // S-box: x^5
	put(12, 255) // field size in bits
	put(12, uint64(t))
	put(10, uint64(rf))
	put(10, uint64(rp))
	put(30, 1<<30-1)
	// The state is a ring buffer; pos is the index of s[0].
	pos := 0
	step := func() bool {
		b := state[(pos+62)%80] != state[(pos+51)%80] != state[(pos+38)%80] !=
			state[(pos+23)%80] != state[(pos+13)%80] != state[pos]
		state[pos] = b
		pos = (pos + 1) % 80
		return b
	}
	for i := 0; i < 160; i++ {
		step()
	}
	next := func() bool {
		for {
			b1 := step()
			b2 := step()
			if b1 {
				return b2
			}
		}
	}
	modulus := fr.Modulus()
	out := make([]fr.Element, 0, (rf+rp)*t)
	var x big.Int
	for len(out) < cap(out) {
		x.SetUint64(0)
		for i := 0; i < 255; i++ {
			x.Lsh(&x, 1)
			if next() {
				x.SetBit(&x, 0, 1)
			}
		}
		if x.Cmp(modulus) >= 0 {
			continue
		}
		var e fr.Element
		e.SetBigInt(&x)
		out = append(out, e)
	}
	return out
}

func newMatrix(t int) [][]fr.Element {
	m := make([][]fr.Element, t)
	for i := range m {
		m[i] = make([]fr.Element, t)
	}
	return m
}

func cauchy(t int) [][]fr.Element {
	m := newMatrix(t)
	for i := range m {
		for j := range m[i] {
			m[i][j].SetUint64(uint64(i + t + j))
			m[i][j].Inverse(&m[i][j])
		}
	}
	return m
}

// invert returns the inverse of a square matrix by Gauss–Jordan elimination.
// The matrices inverted here (Cauchy matrices and their minors) are
// invertible.
func invert(a [][]fr.Element) [][]fr.Element {
	n := len(a)
	m := newMatrix(n)
	inv := newMatrix(n)
	for i := range a {
		copy(m[i], a[i])
		inv[i][i].SetOne()
	}
	var f, t fr.Element
	for col := 0; col < n; col++ {
		p := col
		for m[p][col].IsZero() {
			p++
		}
		m[col], m[p] = m[p], m[col]
		inv[col], inv[p] = inv[p], inv[col]
		f.Inverse(&m[col][col])
		for j := 0; j < n; j++ {
			m[col][j].Mul(&m[col][j], &f)
			inv[col][j].Mul(&inv[col][j], &f)
		}
		for r := 0; r < n; r++ {
			if r == col || m[r][col].IsZero() {
				continue
			}
			f = m[r][col]
			for j := 0; j < n; j++ {
				t.Mul(&f, &m[col][j])
				m[r][j].Sub(&m[r][j], &t)
				t.Mul(&f, &inv[col][j])
				inv[r][j].Sub(&inv[r][j], &t)
			}
		}
	}
	return inv
}

func matmul(a, b [][]fr.Element) [][]fr.Element {
	n := len(a)
	out := newMatrix(n)
	var t fr.Element
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			for k := 0; k < n; k++ {
				t.Mul(&a[i][k], &b[k][j])
				out[i][j].Add(&out[i][j], &t)
			}
		}
	}
	return out
}

// apply is the row-vector product out[j] = Σ_i p[i][j]·s[i].
func apply(p [][]fr.Element, s []fr.Element) []fr.Element {
	out := make([]fr.Element, len(s))
	var t fr.Element
	for j := range out {
		for i := range s {
			t.Mul(&p[i][j], &s[i])
			out[j].Add(&out[j], &t)
		}
	}
	return out
}

// compress derives neptune's compressed round constants (preprocessing.rs):
// each round's constants after the first are moved before the preceding
// linear layer (multiplied by M⁻¹), and in the partial rounds only the
// first element's share is kept per round, the rest being pushed back.
func compress(c *Constants, minv [][]fr.Element) []fr.Element {
	t, rp := c.Width, c.PartialRounds
	rc := func(r int) []fr.Element { return c.RoundConstants[r*t : (r+1)*t] }
	out := make([]fr.Element, 0, FullRounds*t+rp)
	out = append(out, rc(0)...)
	for k := 1; k <= 3; k++ {
		out = append(out, apply(minv, rc(k))...)
	}
	acc := append([]fr.Element(nil), rc(4+rp)...)
	pk := make([]fr.Element, 0, rp)
	for i := 0; i < rp; i++ {
		u := apply(minv, acc)
		pk = append(pk, u[0])
		u[0].SetZero()
		prev := rc(3 + rp - i)
		for j := range acc {
			acc[j].Add(&prev[j], &u[j])
		}
	}
	out = append(out, apply(minv, acc)...)
	for i := rp - 1; i >= 0; i-- {
		out = append(out, pk[i])
	}
	for k := 1; k <= 3; k++ {
		out = append(out, apply(minv, rc(4+rp+k))...)
	}
	return out
}

// factor splits M^R_P into neptune's pre-sparse matrix and R_P sparse
// matrices (mds.rs factor_to_sparse_matrices).
func factor(m [][]fr.Element, rp int) ([][]fr.Element, []Sparse) {
	t := len(m)
	cur := m
	list := make([]Sparse, 0, rp)
	for r := 0; r < rp; r++ {
		minor := newMatrix(t - 1)
		for i := 1; i < t; i++ {
			copy(minor[i-1], cur[i][1:])
		}
		minv := invert(minor)
		wcol := make([]fr.Element, t-1)
		for i := 1; i < t; i++ {
			wcol[i-1] = cur[i][0]
		}
		what := apply(minv, wcol)
		sp := Sparse{W: make([]fr.Element, t), V: make([]fr.Element, t-1)}
		sp.W[0] = cur[0][0]
		copy(sp.W[1:], what)
		copy(sp.V, cur[0][1:])
		list = append(list, sp)
		p1 := newMatrix(t)
		p1[0][0].SetOne()
		for i := 1; i < t; i++ {
			copy(p1[i][1:], cur[i][1:])
		}
		cur = matmul(m, p1)
	}
	for i, j := 0, len(list)-1; i < j; i, j = i+1, j-1 {
		list[i], list[j] = list[j], list[i]
	}
	return cur, list
}
