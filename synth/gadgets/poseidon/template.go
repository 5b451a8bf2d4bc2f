package poseidon

import (
	"fmt"
	"slices"
	"sync"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/gpuc2/gpuc2/synth"
	"github.com/gpuc2/gpuc2/synth/gadgets/boolean"
	"github.com/gpuc2/gpuc2/synth/gadgets/num"
	native "github.com/gpuc2/gpuc2/synth/hash/poseidon"
)

// The rows of a Poseidon hash do not depend on the witness: their linear
// combinations are fixed per arity. Building them costs about t·(t + R_P)
// field multiplications per partial round, far more than the hash itself,
// so they are built once per arity into a template whose variables are
// slots: Aux(k) for k < arity is preimage element k, Aux(arity + j) is the
// j-th variable the hash allocates, and ONE is ONE. Hash then computes the
// values alone (native.Trace, plain field arithmetic), allocates them in
// order and replays the rows with the slots mapped to the real variables.
// Allocating every variable before the rows gives the same system: a row
// only refers to variables allocated earlier, and the order of variables
// and of rows is unchanged. A witness-only system keeps no rows, so there
// the values are written in place and the rows only counted.

type template struct {
	arity, nvars int
	rows         []tplRow
	terms        []synth.Term
}

type tplRow struct{ a, b, c, end int } // terms[a:b], [b:c], [c:end]

// tpls maps a *native.Constants to its template (once.Do builds it): one
// per arity and domain tag, since the tag's folded S-box is a coefficient
// of ONE in the rows.
var tpls sync.Map

type tplEntry struct {
	once sync.Once
	t    *template
}

// capture records the rows of a synthesis with slot variables.
type capture struct {
	t     *template
	count int
}

func (c *capture) Alloc(fr.Element) synth.Variable {
	v := synth.Aux(c.t.arity + c.count)
	c.count++
	return v
}
func (c *capture) AllocInput(fr.Element) synth.Variable { panic("poseidon: unexpected input") }
func (c *capture) Value(synth.Variable) fr.Element      { return fr.Element{} }
func (c *capture) Enforce(a, b, cc synth.LinearCombination) {
	t := c.t
	r := tplRow{a: len(t.terms)}
	t.terms = append(t.terms, a...)
	r.b = len(t.terms)
	t.terms = append(t.terms, b...)
	r.c = len(t.terms)
	t.terms = append(t.terms, cc...)
	r.end = len(t.terms)
	t.rows = append(t.rows, r)
}

func templateFor(c *native.Constants) *template {
	a := c.Arity
	v, ok := tpls.Load(c)
	if !ok {
		v, _ = tpls.LoadOrStore(c, &tplEntry{})
	}
	e := v.(*tplEntry)
	e.once.Do(func() {
		t := &template{arity: a}
		cp := &capture{t: t}
		g := New(boolean.NewBuilder(cp))
		pre := make([]num.Num, a)
		for i := range pre {
			pre[i].Var = synth.Aux(i)
		}
		g.synthesize(c, pre)
		t.nvars = cp.count
		e.t = t
	})
	return e.t
}

// Hash is neptune's circuit::poseidon_hash over the preimage (the arity is
// its length: 2, 4, 8 or 11) with the Merkle-tree constants. The result is
// a fresh aux variable.
func (g *Gadget) Hash(preimage []num.Num) (num.Num, error) {
	c, err := native.ConstantsFor(len(preimage))
	if err != nil {
		return num.Num{}, fmt.Errorf("poseidon gadget: %w", err)
	}
	return g.HashWith(c, preimage)
}

// HashWith is Hash with given constants (e.g. native.CustomConstants);
// len(preimage) must be c.Arity.
func (g *Gadget) HashWith(c *native.Constants, preimage []num.Num) (num.Num, error) {
	if len(preimage) != c.Arity {
		return num.Num{}, fmt.Errorf("poseidon gadget: %w: %d inputs for arity %d", native.ErrArity, len(preimage), c.Arity)
	}
	tpl := templateFor(c)
	in := g.in[:c.Arity]
	for i := range preimage {
		in[i] = preimage[i].Value
	}
	if tpl.nvars != c.TraceLen() {
		return num.Num{}, fmt.Errorf("poseidon gadget: %d variables, the native trace has %d", tpl.nvars, c.TraceLen())
	}
	last := tpl.nvars - 1
	if p := g.witness; p != nil {
		// No row is kept: write the values in place and count the rows.
		start := p.NextAux()
		aux, _, _, _ := p.Extend(tpl.nvars, len(tpl.rows))
		if err := c.Trace(aux, in); err != nil {
			return num.Num{}, fmt.Errorf("poseidon gadget: %w", err)
		}
		return num.Num{Var: synth.Aux(start.Index() + last), Value: aux[last]}, nil
	}
	vals := slices.Grow(g.vals[:0], tpl.nvars)[:tpl.nvars]
	g.vals = vals
	if err := c.Trace(vals, in); err != nil {
		return num.Num{}, fmt.Errorf("poseidon gadget: %w", err)
	}

	cs := g.B.CS
	vars := g.vars[:0]
	for i := range vals {
		vars = append(vars, cs.Alloc(vals[i]))
	}
	g.vars = vars
	a := tpl.arity
	mapLC := func(dst synth.LinearCombination, src []synth.Term) synth.LinearCombination {
		dst = dst[:0]
		for _, t := range src {
			if t.Var.IsAux() {
				if k := t.Var.Index(); k < a {
					t.Var = preimage[k].Var
				} else {
					t.Var = vars[k-a]
				}
			}
			dst = append(dst, t)
		}
		return dst
	}
	for _, r := range tpl.rows {
		g.a = mapLC(g.a, tpl.terms[r.a:r.b])
		g.b = mapLC(g.b, tpl.terms[r.b:r.c])
		g.c = mapLC(g.c, tpl.terms[r.c:r.end])
		cs.Enforce(g.a, g.b, g.c)
	}
	return num.Num{Var: vars[last], Value: vals[last]}, nil
}
