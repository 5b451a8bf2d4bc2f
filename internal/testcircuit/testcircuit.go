// Package testcircuit holds small circuits with known shapes for tests,
// benchmarks and examples of the groth16 and synth packages.
package testcircuit

import (
	"context"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/gpuc2/gpuc2/synth"
)

// Cubic proves knowledge of x with x³ + x + 5 = Out (Out public).
// Shape: 3 constraints, 2 inputs (ONE, Out), 3 aux (x, x², x³).
type Cubic struct {
	X fr.Element
}

// Out returns the public output for X.
func (c *Cubic) Out() fr.Element {
	var x3, five fr.Element
	x3.Square(&c.X).Mul(&x3, &c.X)
	five.SetUint64(5)
	x3.Add(&x3, &c.X).Add(&x3, &five)
	return x3
}

// Synthesize implements synth.Circuit.
func (c *Cubic) Synthesize(_ context.Context, cs synth.ConstraintSystem) error {
	out := c.Out()
	outVar := cs.AllocInput(out)
	var x2v, x3v fr.Element
	x2v.Square(&c.X)
	x3v.Mul(&x2v, &c.X)
	x := cs.Alloc(c.X)
	x2 := cs.Alloc(x2v)
	x3 := cs.Alloc(x3v)
	cs.Enforce(synth.LC(x), synth.LC(x), synth.LC(x2))
	cs.Enforce(synth.LC(x2), synth.LC(x), synth.LC(x3))
	var five fr.Element
	five.SetUint64(5)
	cs.Enforce(synth.LC(x3, x).AddTerm(five, synth.One), synth.LC(synth.One), synth.LC(outVar))
	return nil
}

// Chain is a circuit of N to N+2 rows (plus one for the output) mixing the row kinds of real circuits:
// squarings (aux in A and B), linear rows (B = ONE, so aux stays sparse in
// B), bit checks b·(1−b) = 0, and rows with repeated terms that must merge.
// Its last value is public, with a few more public inputs mixed in.
type Chain struct {
	N      int
	Seed   uint64
	Inputs int // public inputs besides ONE and the result; ≥ 1
}

func (c *Chain) inputs() []fr.Element {
	in := make([]fr.Element, max(c.Inputs, 1))
	for i := range in {
		in[i].SetUint64(c.Seed*1000003 + uint64(i) + 1)
	}
	return in
}

// PublicInputs returns the public inputs (ONE excluded), in allocation order.
func (c *Chain) PublicInputs() []fr.Element {
	in := c.inputs()
	y := c.run(nil, in)
	return append(in, y)
}

// Synthesize implements synth.Circuit.
func (c *Chain) Synthesize(ctx context.Context, cs synth.ConstraintSystem) error {
	in := c.inputs()
	inVars := make([]synth.Variable, len(in))
	for i := range in {
		inVars[i] = cs.AllocInput(in[i])
	}
	c.run(cs, in, inVars...)
	return ctx.Err()
}

// run evaluates the chain and, with a system, synthesizes it; it returns the
// final value, which it allocates as an input after the chain.
func (c *Chain) run(cs synth.ConstraintSystem, in []fr.Element, inVars ...synth.Variable) fr.Element {
	var y fr.Element
	y.SetUint64(c.Seed + 3)
	var yv synth.Variable
	if cs != nil {
		yv = cs.Alloc(y)
	}
	lc := make(synth.LinearCombination, 0, 8)
	for rows, step := 0, 0; rows < c.N; step++ {
		k := step % len(in)
		var next fr.Element
		rows++
		switch step % 4 {
		case 0: // y' = y²
			next.Square(&y)
			if cs != nil {
				nv := cs.Alloc(next)
				cs.Enforce(synth.LC(yv), synth.LC(yv), synth.LC(nv))
				yv = nv
			}
		case 1: // y' = y + in_k, as (y + y − y + in_k)·1 = y' to exercise merging
			next.Add(&y, &in[k])
			if cs != nil {
				nv := cs.Alloc(next)
				lc = append(lc[:0], synth.Term{Coeff: synth.CoeffOne, Var: yv}, synth.Term{Coeff: synth.CoeffOne, Var: yv})
				lc = lc.Sub(yv).Add(inVars[k])
				cs.Enforce(lc, synth.LC(synth.One), synth.LC(nv))
				yv = nv
			}
		case 2: // a bit b from y's parity: b·(1−b) = 0, then y' = y + b·in_k
			var b fr.Element
			if y.Bits()[0]&1 == 1 {
				b.SetOne()
			}
			var bIn fr.Element
			bIn.Mul(&b, &in[k])
			next.Add(&y, &bIn)
			if cs != nil {
				bv := cs.Alloc(b)
				cs.Enforce(synth.LC(bv), synth.LC(synth.One).Sub(bv), nil)
				pv := cs.Alloc(bIn)
				cs.Enforce(synth.LC(bv), synth.LC(inVars[k]), synth.LC(pv))
				nv := cs.Alloc(next)
				cs.Enforce(synth.LC(yv, pv), synth.LC(synth.One), synth.LC(nv))
				yv = nv
			}
			rows += 2
		default: // y' = 3y·y + 1 with coefficients
			var three fr.Element
			three.SetUint64(3)
			next.Square(&y).Mul(&next, &three).Add(&next, &synth.CoeffOne)
			if cs != nil {
				nv := cs.Alloc(next)
				cs.Enforce(synth.LinearCombination{}.AddTerm(three, yv), synth.LC(yv), synth.LC(nv).Sub(synth.One))
				yv = nv
			}
		}
		y = next
	}
	if cs != nil {
		out := cs.AllocInput(y)
		cs.Enforce(synth.LC(yv), synth.LC(synth.One), synth.LC(out))
	}
	return y
}
