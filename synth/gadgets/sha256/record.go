package sha256

import (
	"cmp"
	"errors"
	"math/big"
	"slices"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/gpuc2/gpuc2/synth"
	"github.com/gpuc2/gpuc2/synth/gadgets/boolean"
)

// Recording a compression for the fast path (template.go): the gadget runs
// generically through a recorder that forwards everything to the real
// system and notes, in terms of slots, what each row computes.

var errShape = errors.New("sha256: compression not recordable")

// recorder is a ConstraintSystem over the real one. It is not a
// SmallRowEnforcer, so every row arrives as linear combinations.
type recorder struct {
	p      *synth.ProvingAssignment
	t      *template
	in     []boolean.Boolean
	slotOf map[synth.Variable]uint16 // input variables
	start  synth.Variable            // the first new variable
	// defined[s]: slot s has its value at the current point of the replay.
	defined    []bool
	predef     int // the next allocations are an addition's result bits
	packed     bool
	pending    []groupRef
	err        error
	scratch    synth.LinearCombination
	inA, inB   map[uint16]bool
	newA, newB []bool
}

var _ synth.ConstraintSystem = (*recorder)(nil)

func newRecorder(p *synth.ProvingAssignment, in []boolean.Boolean) *recorder {
	r := &recorder{p: p, t: &template{}, in: in, start: p.NextAux(),
		slotOf: make(map[synth.Variable]uint16),
		inA:    make(map[uint16]bool), inB: make(map[uint16]bool)}
	r.defined = make([]bool, nIn)
	for i, b := range in {
		r.defined[i] = true // constants are never read as slots
		if b.Kind == boolean.Const {
			continue
		}
		if b.Var == synth.One {
			r.fail() // a Boolean over ONE would alias the constant term
		}
		if _, ok := r.slotOf[b.Var]; !ok {
			r.slotOf[b.Var] = uint16(i)
		}
	}
	return r
}

func (r *recorder) fail() {
	if r.err == nil {
		r.err = errShape
	}
}

func (r *recorder) Value(v synth.Variable) fr.Element { return r.p.Value(v) }

func (r *recorder) AllocInput(x fr.Element) synth.Variable {
	r.fail()
	return r.p.AllocInput(x)
}

func (r *recorder) Alloc(x fr.Element) synth.Variable {
	v := r.p.Alloc(x)
	if v != r.start+synth.Variable(r.t.nNew) || nIn+r.t.nNew >= noSlot {
		r.fail()
	}
	r.t.nNew++
	r.defined = append(r.defined, r.predef > 0)
	r.newA = append(r.newA, false)
	r.newB = append(r.newB, false)
	if r.predef > 0 {
		r.predef--
	}
	return v
}

// slot returns v's slot; ok is false for ONE and foreign variables.
func (r *recorder) slot(v synth.Variable) (uint16, bool) {
	if v.IsAux() && v >= r.start {
		k := int(v - r.start)
		if k >= r.t.nNew {
			return 0, false
		}
		return uint16(nIn + k), true
	}
	s, ok := r.slotOf[v]
	return s, ok
}

// addition notes UInt32::addmany's operands before it allocates its nb
// result bits; join then gives the shift it takes in the MultiEq row.
func (r *recorder) addition(ops []*UInt32, nb int) int32 {
	t := r.t
	ad := tAdd{row: int32(len(t.rows)), lo: int32(len(t.addTerms)), res: uint16(nIn + t.nNew), nb: uint8(nb)}
	for _, op := range ops {
		for j := range op.Bits {
			b := &op.Bits[j]
			if b.Kind == boolean.Const {
				if b.Value {
					ad.konst += 1 << uint(j)
				}
				continue
			}
			s, ok := r.slot(b.Var)
			if !ok || !r.defined[s] {
				r.fail()
			}
			t.addTerms = append(t.addTerms, addTerm{slot: s, shift: uint8(j), neg: uint8(b2u(b.Kind == boolean.Not))})
		}
	}
	ad.hi = int32(len(t.addTerms))
	t.adds = append(t.adds, ad)
	r.predef = nb
	return int32(len(t.adds) - 1)
}

func (r *recorder) join(add int32, sh int) {
	r.pending = append(r.pending, groupRef{add: add, sh: uint8(sh)})
}

// flushNext says the next row is the MultiEq row of the pending additions.
func (r *recorder) flushNext() { r.packed = true }

func (r *recorder) Enforce(a, b, c synth.LinearCombination) {
	r.record(a, b, c)
	r.p.Enforce(a, b, c)
}

func (r *recorder) record(a, b, c synth.LinearCombination) {
	t := r.t
	r.density(a, true)
	r.density(b, false)
	if r.packed {
		r.packed = false
		if len(b) != 1 || b[0].Var != synth.One || b[0].Coeff != synth.CoeffOne || len(r.pending) == 0 {
			r.fail()
		}
		t.rows = append(t.rows, tRow{def: noSlot, packed: true})
		t.groups = append(t.groups, r.pending)
		r.pending = nil
		return
	}
	row := tRow{def: noSlot}
	la, _, ok := r.small(a, false)
	lb, _, ok2 := r.small(b, false)
	lc, def, ok3 := r.small(c, true)
	row.a, row.b, row.c = la, lb, lc
	if !ok || !ok2 || !ok3 || bound(&row.a) > 8 || bound(&row.b) > 8 || bound(&row.c) >= smallMax {
		r.fail()
	}
	if def.ok {
		row.def, row.sign = def.slot, def.coeff
		r.defined[def.slot] = true
	}
	t.rows = append(t.rows, row)
}

type defTerm struct {
	slot  uint16
	coeff int8
	ok    bool
}

// small converts a bit row's combination, merging repeated variables. In C
// (mayDefine) one variable without a value may appear, with coefficient ±1:
// the row determines it.
func (r *recorder) small(lc synth.LinearCombination, mayDefine bool) (smallLC, defTerm, bool) {
	var out smallLC
	var def defTerm
	n := 0
	for _, term := range r.merged(lc) {
		k, ok := smallInt(term.Coeff)
		if !ok {
			return out, def, false
		}
		if k == 0 {
			continue
		}
		if term.Var == synth.One {
			out.k = k
			continue
		}
		s, ok := r.slot(term.Var)
		if !ok {
			return out, def, false
		}
		if !r.defined[s] {
			if !mayDefine || def.ok || (k != 1 && k != -1) {
				return out, def, false
			}
			def = defTerm{slot: s, coeff: k, ok: true}
			continue
		}
		if n == len(out.c) {
			return out, def, false
		}
		out.c[n], out.s[n] = k, s
		n++
	}
	return out, def, true
}

// merged returns lc sorted by variable with repeated variables merged, as
// the densities see it (in scratch space).
func (r *recorder) merged(lc synth.LinearCombination) synth.LinearCombination {
	m := append(r.scratch[:0], lc...)
	slices.SortStableFunc(m, func(x, y synth.Term) int { return cmp.Compare(x.Var, y.Var) })
	w := 0
	for i := 1; i < len(m); i++ {
		if m[i].Var == m[w].Var {
			m[w].Coeff.Add(&m[w].Coeff, &m[i].Coeff)
			continue
		}
		w++
		m[w] = m[i]
	}
	if len(m) > 0 {
		m = m[:w+1]
	}
	r.scratch = m
	return m
}

// smallInt returns x as an integer in [−8, 8].
func smallInt(x fr.Element) (int8, bool) {
	for k := -8; k <= 8; k++ {
		if x == smallFr[k+smallMax] {
			return int8(k), true
		}
	}
	return 0, false
}

// bound is the largest |value| l takes on bits.
func bound(l *smallLC) int {
	b := abs(int(l.k))
	for _, c := range l.c {
		b += abs(int(c))
	}
	return b
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// density notes the density bits a row's A (inA) or B combination sets:
// variables with a non-zero merged coefficient, aux only in A.
func (r *recorder) density(lc synth.LinearCombination, inA bool) {
	for _, term := range r.merged(lc) {
		v := term.Var
		if term.Coeff.IsZero() || (inA && !v.IsAux()) {
			continue
		}
		if v == synth.One {
			r.t.oneInB = true
			continue
		}
		s, ok := r.slot(v)
		switch {
		case !ok:
			r.fail()
		case int(s) >= nIn && inA:
			r.newA[int(s)-nIn] = true
		case int(s) >= nIn:
			r.newB[int(s)-nIn] = true
		case inA:
			r.inA[s] = true
		default:
			r.inB[s] = true
		}
	}
}

// finish completes the record after the gadget returned out.
func (r *recorder) finish(out *[8]UInt32) *template {
	t := r.t
	if r.predef != 0 || r.packed || len(r.pending) != 0 {
		r.fail()
	}
	for _, d := range r.defined {
		if !d {
			r.fail()
		}
	}
	t.newA, t.newB = bitmap(r.newA), bitmap(r.newB)
	t.inA, t.inB = sortedSlots(r.inA), sortedSlots(r.inB)
	for w := range out {
		for i, b := range out[w].Bits {
			ob := outBit{kind: b.Kind, val: b.Value}
			if b.Kind != boolean.Const {
				s, ok := r.slot(b.Var)
				if !ok {
					r.fail()
				}
				ob.slot = s
			}
			t.out[32*w+i] = ob
		}
	}
	t.order, t.same = orderOf(r.in)
	t.bad = r.err != nil
	return t
}

// orderOf returns the order pattern of the input variables (see
// template.order).
func orderOf(in []boolean.Boolean) (order []uint16, same []bool) {
	for i, b := range in {
		if b.Kind != boolean.Const {
			order = append(order, uint16(i))
		}
	}
	slices.SortFunc(order, func(x, y uint16) int {
		if c := cmp.Compare(in[x].Var, in[y].Var); c != 0 {
			return c
		}
		return cmp.Compare(x, y)
	})
	same = make([]bool, len(order))
	for i := 1; i < len(order); i++ {
		same[i] = in[order[i]].Var == in[order[i-1]].Var
	}
	return order, same
}

func bitmap(bits []bool) []uint64 {
	w := make([]uint64, (len(bits)+63)/64)
	for i, b := range bits {
		if b {
			w[i/64] |= 1 << uint(i%64)
		}
	}
	return w
}

func sortedSlots(m map[uint16]bool) []uint16 {
	s := make([]uint16, 0, len(m))
	for k := range m {
		s = append(s, k)
	}
	slices.Sort(s)
	return s
}

func bigFromWords(w fr.Element) *big.Int {
	var b big.Int
	for i := len(w) - 1; i >= 0; i-- {
		b.Lsh(&b, 64)
		b.Or(&b, new(big.Int).SetUint64(w[i]))
	}
	return &b
}

// record synthesizes a compression generically into the system while
// recording it, checks the record by replaying it on the same input against
// what the gadget produced, and puts it in the cache in place of claim (or,
// when the check fails, the verdict that this shape stays generic).
func (g *Gadget) record(block []boolean.Boolean, state *[8]UInt32, claim *template) [8]UInt32 {
	f := &g.fast
	p := f.p
	in := slices.Clone(f.in[:])
	auxAt, rowAt := len(p.Aux), p.NumRows()
	rec := newRecorder(p, in)
	saved := g.B
	g.B = boolean.NewBuilder(rec)
	g.rec = rec
	out := g.compress(block, state)
	g.B, g.rec = saved, nil
	t := rec.finish(&out)
	if !t.bad {
		t.bad = !t.check(f, p, auxAt, rowAt, &out, rec.start)
	}
	settle(claim, t)
	return out
}

// check replays t on the recorded input and compares everything the
// replay writes with what the gadget wrote from auxAt and rowAt on.
func (t *template) check(f *fastState, p *synth.ProvingAssignment, auxAt, rowAt int, out *[8]UInt32, start synth.Variable) bool {
	if len(p.Aux)-auxAt != t.nNew || p.NumRows()-rowAt != len(t.rows) {
		return false
	}
	aux := make([]fr.Element, t.nNew)
	a := make([]fr.Element, len(t.rows))
	b := make([]fr.Element, len(t.rows))
	c := make([]fr.Element, len(t.rows))
	t.fill(f, aux, a, b, c)
	if !slices.Equal(aux, p.Aux[auxAt:]) || !slices.Equal(a, p.A[rowAt:]) ||
		!slices.Equal(b, p.B[rowAt:]) || !slices.Equal(c, p.C[rowAt:]) {
		return false
	}
	for k := 0; k < t.nNew; k++ {
		if p.AAux.Test(auxAt+k) != (t.newA[k/64]>>uint(k%64)&1 == 1) ||
			p.BAux.Test(auxAt+k) != (t.newB[k/64]>>uint(k%64)&1 == 1) {
			return false
		}
	}
	return t.output(f, start) == *out
}
