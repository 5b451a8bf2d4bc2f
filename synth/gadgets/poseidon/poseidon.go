package poseidon

import (
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/gpuc2/gpuc2/synth"
	"github.com/gpuc2/gpuc2/synth/gadgets/boolean"
	"github.com/gpuc2/gpuc2/synth/gadgets/num"
	native "github.com/gpuc2/gpuc2/synth/hash/poseidon"
)

// elt is a state element: a variable, or a linear combination (kept sorted
// by variable and merged, as bellperson's LC holds it) with its value.
type elt struct {
	isVar bool
	v     synth.Variable
	lc    synth.LinearCombination
	val   fr.Element
}

// terms returns L(e): 1·v for a variable, else the LC.
func (e *elt) terms(buf *[1]synth.Term) synth.LinearCombination {
	if e.isVar {
		buf[0] = synth.Term{Coeff: synth.CoeffOne, Var: e.v}
		return buf[:]
	}
	return e.lc
}

// Gadget emits Poseidon hash circuits.
type Gadget struct {
	B         *boolean.Builder
	cs        synth.ConstraintSystem // where synthesize goes
	cur, next [native.MaxWidth]elt
	tmp       synth.LinearCombination
	a, b, c   synth.LinearCombination
	oneLC     synth.LinearCombination
	in        [native.MaxWidth - 1]fr.Element // the preimage's values
	vals      []fr.Element
	vars      []synth.Variable
	// witness is B.CS when it is a witness-only ProvingAssignment, which
	// only counts rows: HashWith then extends it with the values alone.
	witness *synth.ProvingAssignment
}

// New returns a Gadget sharing the Builder b.
func New(b *boolean.Builder) *Gadget {
	g := &Gadget{B: b, cs: b.CS, oneLC: synth.LC(synth.One)}
	if p, ok := b.CS.(*synth.ProvingAssignment); ok && p.WitnessOnly() {
		g.witness = p
	}
	for i := range g.cur {
		g.cur[i].lc = make(synth.LinearCombination, 0, 80)
		g.next[i].lc = make(synth.LinearCombination, 0, 80)
	}
	return g
}

// addScaled sets dst = dst + k·src for sorted, merged LCs; the result is
// built in g.tmp and copied back, so dst keeps its buffer.
func (g *Gadget) addScaled(dst *synth.LinearCombination, src synth.LinearCombination, k *fr.Element) {
	d := *dst
	if len(d) == 0 || len(src) > 0 && d[len(d)-1].Var < src[0].Var {
		for _, t := range src {
			t.Coeff.Mul(&t.Coeff, k)
			d = append(d, t)
		}
		*dst = d
		return
	}
	out := g.tmp[:0]
	i, j := 0, 0
	for i < len(d) || j < len(src) {
		switch {
		case j == len(src) || i < len(d) && d[i].Var < src[j].Var:
			out = append(out, d[i])
			i++
		case i == len(d) || src[j].Var < d[i].Var:
			t := src[j]
			t.Coeff.Mul(&t.Coeff, k)
			out = append(out, t)
			j++
		default:
			t := d[i]
			var m fr.Element
			m.Mul(&src[j].Coeff, k)
			t.Coeff.Add(&t.Coeff, &m)
			out = append(out, t)
			i++
			j++
		}
	}
	g.tmp = out
	*dst = append(d[:0], out...)
}

// materialize returns e as a variable: an LC gets a new variable y and the
// row LC·ONE = y.
func (g *Gadget) materialize(e *elt) synth.Variable {
	if e.isVar {
		return e.v
	}
	y := g.cs.Alloc(e.val)
	g.c = append(g.c[:0], synth.Term{Coeff: synth.CoeffOne, Var: y})
	g.cs.Enforce(e.lc, g.oneLC, g.c)
	return y
}

// sbox is neptune's quintic_s_box: materialize, l², l⁴, l⁵ + key.
func (g *Gadget) sbox(e *elt, key *fr.Element) {
	l := g.materialize(e)
	x := e.val
	var x2, x4, x5 fr.Element
	x2.Square(&x)
	x4.Square(&x2)
	x5.Mul(&x4, &x)
	if key != nil {
		x5.Add(&x5, key)
	}
	cs := g.cs
	l2 := cs.Alloc(x2)
	g.a = append(g.a[:0], synth.Term{Coeff: synth.CoeffOne, Var: l})
	g.c = append(g.c[:0], synth.Term{Coeff: synth.CoeffOne, Var: l2})
	cs.Enforce(g.a, g.a, g.c)
	l4 := cs.Alloc(x4)
	g.a = append(g.a[:0], synth.Term{Coeff: synth.CoeffOne, Var: l2})
	g.c = append(g.c[:0], synth.Term{Coeff: synth.CoeffOne, Var: l4})
	cs.Enforce(g.a, g.a, g.c)
	l5 := cs.Alloc(x5)
	g.a = append(g.a[:0], synth.Term{Coeff: synth.CoeffOne, Var: l})
	g.b = append(g.b[:0], synth.Term{Coeff: synth.CoeffOne, Var: l4})
	g.c = append(g.c[:0], synth.Term{Coeff: synth.CoeffOne, Var: l5})
	if key != nil {
		var nk fr.Element
		nk.Neg(key)
		g.c = append(g.c, synth.Term{Coeff: nk, Var: synth.One})
	}
	cs.Enforce(g.a, g.b, g.c)
	*e = elt{isVar: true, v: l5, val: x5, lc: e.lc[:0]}
}

// sboxFirst is neptune's quintic_s_box_pre_add on a preimage variable x:
// (x + pre)², its square, and (x + pre)⁵ + post.
func (g *Gadget) sboxFirst(e *elt, pre, post *fr.Element) {
	x := e.v
	var xp, x2, x4, x5 fr.Element
	xp.Add(&e.val, pre)
	x2.Square(&xp)
	x4.Square(&x2)
	x5.Mul(&x4, &xp)
	x5.Add(&x5, post)
	cs := g.cs
	q2 := cs.Alloc(x2)
	g.a = append(g.a[:0], synth.Term{Coeff: synth.CoeffOne, Var: x}, synth.Term{Coeff: *pre, Var: synth.One})
	g.c = append(g.c[:0], synth.Term{Coeff: synth.CoeffOne, Var: q2})
	cs.Enforce(g.a, g.a, g.c)
	q4 := cs.Alloc(x4)
	g.b = append(g.b[:0], synth.Term{Coeff: synth.CoeffOne, Var: q2})
	g.c = append(g.c[:0], synth.Term{Coeff: synth.CoeffOne, Var: q4})
	cs.Enforce(g.b, g.b, g.c)
	q5 := cs.Alloc(x5)
	var np fr.Element
	np.Neg(post)
	g.b = append(g.b[:0], synth.Term{Coeff: synth.CoeffOne, Var: q4})
	g.c = append(g.c[:0], synth.Term{Coeff: synth.CoeffOne, Var: q5}, synth.Term{Coeff: np, Var: synth.One})
	cs.Enforce(g.a, g.b, g.c)
	*e = elt{isVar: true, v: q5, val: x5, lc: e.lc[:0]}
}

// dense applies a t×t matrix to the row vector of elements.
func (g *Gadget) dense(m [][]fr.Element, t int) {
	var buf [1]synth.Term
	var tmp fr.Element
	for j := 0; j < t; j++ {
		o := &g.next[j]
		o.isVar = false
		o.lc = o.lc[:0]
		o.val.SetZero()
		for i := 0; i < t; i++ {
			s := &g.cur[i]
			g.addScaled(&o.lc, s.terms(&buf), &m[i][j])
			tmp.Mul(&m[i][j], &s.val)
			o.val.Add(&o.val, &tmp)
		}
	}
	g.cur, g.next = g.next, g.cur
}

// sparse applies one of neptune's sparse matrices.
func (g *Gadget) sparse(sp *native.Sparse, t int) {
	var buf, buf0 [1]synth.Term
	var tmp fr.Element
	o := &g.next[0]
	o.isVar = false
	o.lc = o.lc[:0]
	o.val.SetZero()
	for i := 0; i < t; i++ {
		s := &g.cur[i]
		g.addScaled(&o.lc, s.terms(&buf), &sp.W[i])
		tmp.Mul(&sp.W[i], &s.val)
		o.val.Add(&o.val, &tmp)
	}
	s0 := &g.cur[0]
	l0 := s0.terms(&buf0)
	for j := 1; j < t; j++ {
		o := &g.next[j]
		s := &g.cur[j]
		o.isVar = false
		o.lc = append(o.lc[:0], s.terms(&buf)...)
		g.addScaled(&o.lc, l0, &sp.V[j-1])
		tmp.Mul(&sp.V[j-1], &s0.val)
		o.val.Add(&s.val, &tmp)
	}
	g.cur, g.next = g.next, g.cur
}

// synthesize runs neptune's circuit into g.cs. It builds the templates;
// hashes take their values from native.Trace, which computes the values
// synthesize allocates (tested).
func (g *Gadget) synthesize(c *native.Constants, preimage []num.Num) num.Num {
	t := c.Width
	k := c.Compressed

	// Round 0: the tag's S-box is a constant.
	var tag fr.Element
	tag.Add(&c.DomainTag, &k[0])
	var t2 fr.Element
	t2.Square(&tag)
	t2.Square(&t2)
	tag.Mul(&tag, &t2)
	tag.Add(&tag, &k[t])
	g.cur[0].isVar = false
	g.cur[0].lc = append(g.cur[0].lc[:0], synth.Term{Coeff: tag, Var: synth.One})
	g.cur[0].val = tag
	for i, x := range preimage {
		e := &g.cur[i+1]
		e.isVar, e.v, e.val = true, x.Var, x.Value
		g.sboxFirst(e, &k[i+1], &k[t+i+1])
	}
	g.dense(c.MDS, t)
	off := 2 * t
	for r := 1; r <= 3; r++ {
		for i := 0; i < t; i++ {
			g.sbox(&g.cur[i], &k[off+i])
		}
		off += t
		if r == 3 {
			g.dense(c.PreSparse, t)
		} else {
			g.dense(c.MDS, t)
		}
	}
	for p := 0; p < c.PartialRounds; p++ {
		g.sbox(&g.cur[0], &k[off])
		off++
		g.sparse(&c.Sparse[p], t)
	}
	for r := 0; r < 3; r++ {
		for i := 0; i < t; i++ {
			g.sbox(&g.cur[i], &k[off+i])
		}
		off += t
		g.dense(c.MDS, t)
	}
	for i := 0; i < t; i++ {
		g.sbox(&g.cur[i], nil)
	}
	g.dense(c.MDS, t)
	out := &g.cur[1]
	v := g.materialize(out)
	return num.Num{Var: v, Value: out.val}
}
