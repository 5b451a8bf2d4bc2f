package sha256

// Witness-only fast path for the compression function: record once, replay.
//
// What a compression allocates and enforces depends only on the shape of its
// 768 input bits (the 512 block bits, then the state words' bits, least
// significant first): which are constants and their values, which are
// negated, which lie over inputs or aux, and how the variables under them are
// ordered and repeated. It never depends on the values. Into a witness-only
// ProvingAssignment the first compression of a shape is synthesized by the
// gadget through a recorder (record.go), and later ones of that shape replay
// the record, about five times faster than running the gadget:
//
//   - every new variable is a bit, set either by an addition (the bits of a
//     sum of operand bits, as UInt32::addmany allocates them) or by the one
//     bit row that determines it (xor, and, ch and maj rows are A·B = C with
//     the new variable alone in C, coefficient ±1);
//   - bit rows are small integer combinations of bits; the packed MultiEq
//     rows have A = C = Σ sum·2^shift over their additions and B = ONE;
//   - the density bits are fixed by the shape.
//
// A record is checked against the synthesis it was recorded from; a shape
// that fails the check stays on the generic path. Tests compare the two paths
// on whole gadgets and partitions, value for value and bit for bit.

import (
	"slices"
	"sync"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/gpuc2/gpuc2/synth"
	"github.com/gpuc2/gpuc2/synth/gadgets/boolean"
)

// nIn is the number of input bits (slots 0…nIn−1); the compression's new
// variables are slots nIn, nIn+1, … in allocation order.
const nIn = 512 + 256

const noSlot = 0xffff

// Kinds of input bits in a shape key.
const (
	kFalse byte = iota
	kTrue
	kIsAux
	kNotAux
	kIsInput
	kNotInput
)

// smallLC is k + Σ c[i]·slot[s[i]] (unused terms have c = 0).
type smallLC struct {
	k int8
	c [3]int8
	s [3]uint16
}

func (l *smallLC) eval(v *slotValues) int32 {
	return int32(l.k) + int32(l.c[0])*int32(v[l.s[0]]) + int32(l.c[1])*int32(v[l.s[1]]) + int32(l.c[2])*int32(v[l.s[2]])
}

// tRow is a recorded row: a bit row, or (packed) a MultiEq row whose
// additions are the next entry of template.groups.
type tRow struct {
	a, b, c smallLC // c without the term of def
	def     uint16  // the slot this row determines, or noSlot
	sign    int8    // def's coefficient in C
	packed  bool
}

// tAdd is an addition: its result bits are the nb slots from res, set to the
// bits of konst + Σ terms before row `row` is replayed.
type tAdd struct {
	row    int32
	lo, hi int32 // its terms in template.addTerms
	konst  uint64
	res    uint16
	nb     uint8
}

type addTerm struct {
	slot  uint16
	shift uint8
	neg   uint8 // 1: the operand bit is ¬slot
}

// groupRef is one addition of a packed row, shifted into its bit range.
type groupRef struct {
	add int32
	sh  uint8
}

// outBit is one bit of the output state.
type outBit struct {
	kind boolean.Kind
	val  bool // for constants
	slot uint16
}

type template struct {
	// The input variables' order: the non-constant positions sorted by
	// (variable, position); same[i] says position order[i] has the same
	// variable as order[i−1].
	order []uint16
	same  []bool

	nNew     int
	rows     []tRow
	adds     []tAdd
	addTerms []addTerm
	groups   [][]groupRef
	newA     []uint64 // density bits of the new variables
	newB     []uint64
	inA, inB []uint16 // input slots whose variables get an A / B bit
	oneInB   bool     // ONE gets its B bit
	out      [256]outBit

	bad       bool // the record failed its check: use the generic path
	recording bool // a placeholder while the shape is being recorded
}

// templates is the process-wide cache, shared by every gadget: a record is
// about 1 MB and immutable, and a partition has a dozen shapes.
var templates struct {
	sync.RWMutex
	byKey map[string][]*template
	n     int
}

// maxTemplates bounds the cache; shapes beyond it take the generic path.
const maxTemplates = 64

// shape fills the input bits and the shape key of a compression.
func shape(block []boolean.Boolean, state *[8]UInt32, in []boolean.Boolean, key []byte) {
	copy(in, block)
	for w := range state {
		copy(in[512+32*w:], state[w].Bits[:])
	}
	for i, b := range in {
		var k byte
		switch b.Kind {
		case boolean.Const:
			k = kFalse
			if b.Value {
				k = kTrue
			}
		case boolean.Is:
			k = kIsAux
		case boolean.Not:
			k = kNotAux
		}
		if b.Kind != boolean.Const && !b.Var.IsAux() {
			k += kIsInput - kIsAux
		}
		key[i] = k
	}
}

// matches reports whether the input variables are ordered as the record's.
func (t *template) matches(in []boolean.Boolean) bool {
	for i := 1; i < len(t.order); i++ {
		cur, prev := in[t.order[i]].Var, in[t.order[i-1]].Var
		if t.same[i] {
			if cur != prev {
				return false
			}
		} else if cur <= prev {
			return false
		}
	}
	return true
}

// lookupTemplate returns the record of in's shape, or nil.
func lookupTemplate(key []byte, in []boolean.Boolean) *template {
	templates.RLock()
	defer templates.RUnlock()
	for _, t := range templates.byKey[string(key)] {
		if t.matches(in) {
			return t
		}
	}
	return nil
}

// claimTemplate returns a placeholder for in's shape, to be settled once the
// shape is recorded, or nil when the shape is known or claimed already or the
// cache is full. While a shape is being recorded, other gadgets take the
// generic path for it rather than record it too.
func claimTemplate(key []byte, in []boolean.Boolean) *template {
	templates.Lock()
	defer templates.Unlock()
	if templates.n >= maxTemplates {
		return nil
	}
	for _, t := range templates.byKey[string(key)] {
		if t.matches(in) {
			return nil
		}
	}
	if templates.byKey == nil {
		templates.byKey = make(map[string][]*template)
	}
	t := &template{recording: true}
	t.order, t.same = orderOf(in)
	templates.byKey[string(key)] = append(templates.byKey[string(key)], t)
	templates.n++
	return t
}

// settle replaces the placeholder claim with the finished record t.
func settle(claim, t *template) {
	templates.Lock()
	defer templates.Unlock()
	for _, ts := range templates.byKey {
		if i := slices.Index(ts, claim); i >= 0 {
			ts[i] = t
			return
		}
	}
}

// slotValues holds the bit of every slot; uint16 slots index it without
// bounds checks.
type slotValues [1 << 16]uint8

// fastState is a Gadget's scratch for the fast path.
type fastState struct {
	p    *synth.ProvingAssignment // nil: the generic path only
	in   [nIn]boolean.Boolean
	key  [nIn]byte
	v    *slotValues
	sums []uint64
}

// compressFast is Compress into a ProvingAssignment: replay the shape's
// record, or synthesize generically while recording it. ok is false when
// neither applies.
func (g *Gadget) compressFast(block []boolean.Boolean, state *[8]UInt32) (out [8]UInt32, ok bool) {
	f := &g.fast
	shape(block, state, f.in[:], f.key[:])
	if t := lookupTemplate(f.key[:], f.in[:]); t != nil {
		if t.bad || t.recording {
			return out, false
		}
		return g.replay(t), true
	}
	if f.p.WitnessOnly() {
		// Recording checks the rows and densities the template replays, and
		// a witness-only system keeps neither: the shape stays generic here
		// until a full synthesis records it.
		return out, false
	}
	claim := claimTemplate(f.key[:], f.in[:])
	if claim == nil {
		return out, false
	}
	return g.record(block, state, claim), true
}

// replay appends a compression of t's shape on f.in to the system.
func (g *Gadget) replay(t *template) [8]UInt32 {
	f := &g.fast
	p := f.p
	start := p.NextAux()
	aux, a, b, c := p.Extend(t.nNew, len(t.rows))
	t.fill(f, aux, a, b, c)
	p.OrAuxDensity(start, t.newA, t.newB)
	for _, s := range t.inA {
		p.MarkA(f.in[s].Var)
	}
	for _, s := range t.inB {
		p.MarkB(f.in[s].Var)
	}
	if t.oneInB {
		p.MarkB(synth.One)
	}
	return t.output(f, start)
}

// fill computes the values of the new variables and of the rows.
func (t *template) fill(f *fastState, aux, a, b, c []fr.Element) {
	if f.v == nil {
		f.v = new(slotValues)
	}
	v := f.v
	for i := range f.in {
		x := &f.in[i]
		v[i] = uint8(b2u(x.Value != (x.Kind == boolean.Not)))
	}
	sums := slices.Grow(f.sums[:0], len(t.adds))[:len(t.adds)]
	f.sums = sums
	next, group := 0, 0
	for r := range t.rows {
		for next < len(t.adds) && int(t.adds[next].row) == r {
			sums[next] = t.add(next, v)
			next++
		}
		row := &t.rows[r]
		if row.packed {
			x := packedValue(t.groups[group], sums)
			group++
			if a != nil { // nil: a witness-only system
				a[r], b[r], c[r] = x, synth.CoeffOne, x
			}
			continue
		}
		av, bv, cv := row.a.eval(v), row.b.eval(v), row.c.eval(v)
		if row.def != noSlot {
			x := int32(row.sign) * (av*bv - cv)
			v[row.def] = uint8(x)
			cv += int32(row.sign) * x
		}
		if a != nil {
			a[r], b[r], c[r] = smallFr[av+smallMax], smallFr[bv+smallMax], smallFr[cv+smallMax]
		}
	}
	for ; next < len(t.adds); next++ {
		sums[next] = t.add(next, v)
	}
	for k := range aux {
		aux[k] = smallFr[int32(v[nIn+k])+smallMax]
	}
}

// add returns the sum of addition i and sets its result bits.
func (t *template) add(i int, v *slotValues) uint64 {
	ad := &t.adds[i]
	sum := ad.konst
	for _, x := range t.addTerms[ad.lo:ad.hi] {
		sum += uint64(v[x.slot]^x.neg) << x.shift
	}
	for k := range uint16(ad.nb) {
		v[ad.res+k] = uint8(sum >> uint(k) & 1)
	}
	return sum
}

// packedValue is Σ sum·2^sh over a MultiEq row's additions, which fits 254
// bits, as a field element.
func packedValue(group []groupRef, sums []uint64) fr.Element {
	var x [5]uint64
	for _, gr := range group {
		s := sums[gr.add]
		w, sh := gr.sh/64, uint(gr.sh%64)
		x[w] += s << sh // no carry: the additions' bit ranges are disjoint
		if sh != 0 {
			x[w+1] += s >> (64 - sh)
		}
	}
	e := fr.Element{x[0], x[1], x[2], x[3]}
	e.Mul(&e, &rSquare) // to Montgomery form
	return e
}

// rSquare is R² mod r: Montgomery multiplication by it turns an integer
// below r into its Montgomery form.
var rSquare = func() fr.Element {
	one := fr.One() // its words are R mod r
	var e fr.Element
	e.SetBigInt(bigFromWords(one))
	return e
}()

// output builds the output state of a replayed compression.
func (t *template) output(f *fastState, start synth.Variable) [8]UInt32 {
	var out [8]UInt32
	for w := range out {
		u := &out[w]
		for i := range u.Bits {
			ob := &t.out[32*w+i]
			var bit boolean.Boolean
			switch {
			case ob.kind == boolean.Const:
				bit = boolean.Constant(ob.val)
			case int(ob.slot) < nIn:
				bit = boolean.Boolean{Var: f.in[ob.slot].Var, Kind: ob.kind}
			default:
				bit = boolean.Boolean{Var: start + synth.Variable(int(ob.slot)-nIn), Kind: ob.kind}
			}
			if ob.kind != boolean.Const {
				bit.Value = (f.v[ob.slot] == 1) != (ob.kind == boolean.Not)
			}
			u.Bits[i] = bit
			if bit.Value {
				u.Value |= 1 << uint(i)
			}
		}
	}
	return out
}

func b2u(b bool) uint {
	if b {
		return 1
	}
	return 0
}

// smallFr holds −smallMax…smallMax in Fr.
const smallMax = 64

var smallFr = func() (t [2*smallMax + 1]fr.Element) {
	for i := range t {
		t[i].SetInt64(int64(i - smallMax))
	}
	return t
}()

// FastPathShapes reports the compression shapes recorded so far in this
// process: how many replay, and how many stay on the generic path because
// their record failed its check (a diagnostic; expected to be zero).
func FastPathShapes() (replayed, generic int) {
	templates.RLock()
	defer templates.RUnlock()
	for _, ts := range templates.byKey {
		for _, t := range ts {
			if t.bad {
				generic++
			} else if !t.recording {
				replayed++
			}
		}
	}
	return replayed, generic
}
