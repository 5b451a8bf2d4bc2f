package poseidon

import (
	"fmt"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

// TraceLen is the number of values Trace writes: the variables neptune's
// circuit::poseidon_hash allocates, one per row of it.
func (c *Constants) TraceLen() int {
	return 3*c.Arity + 28*c.Width + 4*c.PartialRounds + 1
}

// Trace writes to dst the values of the variables neptune's
// circuit::poseidon_hash allocates for inputs, in its order, which is the
// order the gadget in synth/gadgets/poseidon allocates them in (tested
// there): per input of round 0, (x + k)², (x + k)⁴ and (x + k)⁵ + k′ (the
// tag's S-box is a constant); then per later S-box its input (the linear
// layer's result, materialized), x², x⁴ and x⁵ + key (no key in the last
// round); last the hash, element 1 of the final state. It computes what
// the gadget's own walk computes with plain field arithmetic, so the
// witness costs about one native hash. len(dst) must be TraceLen.
func (c *Constants) Trace(dst, inputs []fr.Element) error {
	if len(inputs) != c.Arity {
		return fmt.Errorf("%w: %d inputs for arity %d", ErrArity, len(inputs), c.Arity)
	}
	if len(dst) != c.TraceLen() {
		return fmt.Errorf("poseidon: trace of %d values for arity %d, want %d", len(dst), c.Arity, c.TraceLen())
	}
	t := c.Width
	k := c.Compressed
	var s [MaxWidth]fr.Element
	s[0].Add(&c.DomainTag, &k[0])
	sbox(&s[0])
	s[0].Add(&s[0], &k[t])
	n := 0
	for i := range inputs {
		x := &s[i+1]
		x.Add(&inputs[i], &k[i+1])
		dst[n].Square(x)
		dst[n+1].Square(&dst[n])
		x.Mul(x, &dst[n+1])
		x.Add(x, &k[t+i+1])
		dst[n+2] = *x
		n += 3
	}
	mulDense(&s, c.MDS, t)
	off := 2 * t
	for r := 1; r <= 3; r++ {
		for i := 0; i < t; i++ {
			traceSbox(dst[n:n+4], &s[i], &k[off+i])
			n += 4
		}
		off += t
		if r == 3 {
			mulDense(&s, c.PreSparse, t)
		} else {
			mulDense(&s, c.MDS, t)
		}
	}
	var tmp fr.Element
	for p := 0; p < c.PartialRounds; p++ {
		traceSbox(dst[n:n+4], &s[0], &k[off])
		n += 4
		off++
		sp := &c.Sparse[p]
		s0 := s[0]
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
			traceSbox(dst[n:n+4], &s[i], &k[off+i])
			n += 4
		}
		off += t
		mulDense(&s, c.MDS, t)
	}
	// Last round: no key, and only element 1 of the product is the hash.
	out := &dst[len(dst)-1]
	out.SetZero()
	for i := 0; i < t; i++ {
		traceSbox(dst[n:n+4], &s[i], nil)
		n += 4
		tmp.Mul(&c.MDS[i][1], &s[i])
		out.Add(out, &tmp)
	}
	return nil
}

// traceSbox writes x, x², x⁴ and x⁵ + key (nil: no key) to d and leaves
// the last in x.
func traceSbox(d []fr.Element, x, key *fr.Element) {
	d[0] = *x
	d[1].Square(x)
	d[2].Square(&d[1])
	x.Mul(x, &d[2])
	if key != nil {
		x.Add(x, key)
	}
	d[3] = *x
}
