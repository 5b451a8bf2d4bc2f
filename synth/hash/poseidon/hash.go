package poseidon

import (
	"fmt"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

// Hash returns the Poseidon hash of the inputs; the arity is len(inputs).
func Hash(inputs []fr.Element) (fr.Element, error) {
	c, err := ConstantsFor(len(inputs))
	if err != nil {
		return fr.Element{}, err
	}
	return c.Hash(inputs)
}

// Hash returns the hash of exactly c.Arity inputs.
func (c *Constants) Hash(inputs []fr.Element) (fr.Element, error) {
	if len(inputs) != c.Arity {
		return fr.Element{}, fmt.Errorf("%w: %d inputs for arity %d", ErrArity, len(inputs), c.Arity)
	}
	var s [MaxWidth]fr.Element
	s[0] = c.DomainTag
	copy(s[1:], inputs)
	return c.permuteOptimized(&s), nil
}

func sbox(x *fr.Element) {
	var x2 fr.Element
	x2.Square(x)
	x2.Square(&x2)
	x.Mul(x, &x2)
}

// mulDense sets s to the row-vector product s·m over the first t entries.
func mulDense(s *[MaxWidth]fr.Element, m [][]fr.Element, t int) {
	var out [MaxWidth]fr.Element
	var tmp fr.Element
	for i := 0; i < t; i++ {
		row := m[i]
		for j := 0; j < t; j++ {
			tmp.Mul(&row[j], &s[i])
			out[j].Add(&out[j], &tmp)
		}
	}
	*s = out
}

// permuteOptimized runs neptune's optimized permutation and returns
// element 1 of the final state.
func (c *Constants) permuteOptimized(s *[MaxWidth]fr.Element) fr.Element {
	t := c.Width
	k := c.Compressed
	for i := 0; i < t; i++ {
		s[i].Add(&s[i], &k[i])
	}
	off := t
	for r := 0; r < 4; r++ {
		for i := 0; i < t; i++ {
			sbox(&s[i])
			s[i].Add(&s[i], &k[off+i])
		}
		off += t
		if r == 3 {
			mulDense(s, c.PreSparse, t)
		} else {
			mulDense(s, c.MDS, t)
		}
	}
	var tmp, s0 fr.Element
	for p := 0; p < c.PartialRounds; p++ {
		sbox(&s[0])
		s[0].Add(&s[0], &k[off])
		off++
		sp := &c.Sparse[p]
		s0 = s[0]
		var acc fr.Element
		for i := 0; i < t; i++ {
			tmp.Mul(&sp.W[i], &s[i])
			acc.Add(&acc, &tmp)
		}
		for j := 1; j < t; j++ {
			tmp.Mul(&sp.V[j-1], &s0)
			s[j].Add(&s[j], &tmp)
		}
		s[0] = acc
	}
	for r := 0; r < 3; r++ {
		for i := 0; i < t; i++ {
			sbox(&s[i])
			s[i].Add(&s[i], &k[off+i])
		}
		off += t
		mulDense(s, c.MDS, t)
	}
	// Last round: no key, and only element 1 of the product is needed.
	var out fr.Element
	for i := 0; i < t; i++ {
		sbox(&s[i])
		tmp.Mul(&c.MDS[i][1], &s[i])
		out.Add(&out, &tmp)
	}
	return out
}

// hashPlain is the textbook permutation (neptune's "Correct" mode), kept
// to check the optimized form.
func (c *Constants) hashPlain(inputs []fr.Element) fr.Element {
	t := c.Width
	s := make([]fr.Element, t)
	s[0] = c.DomainTag
	copy(s[1:], inputs)
	half := FullRounds / 2
	for r := 0; r < FullRounds+c.PartialRounds; r++ {
		for i := range s {
			s[i].Add(&s[i], &c.RoundConstants[r*t+i])
		}
		if r < half || r >= half+c.PartialRounds {
			for i := range s {
				sbox(&s[i])
			}
		} else {
			sbox(&s[0])
		}
		s = apply(c.MDS, s)
	}
	return s[1]
}
