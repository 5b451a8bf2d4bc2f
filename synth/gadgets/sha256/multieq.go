package sha256

import (
	"math/bits"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/gpuc2/gpuc2/synth"
	"github.com/gpuc2/gpuc2/synth/gadgets/boolean"
	"github.com/gpuc2/gpuc2/synth/gadgets/num"
)

// negPow2 holds −2^i.
var negPow2 = func() (p [256]fr.Element) {
	for i := range p {
		p[i].Neg(&num.Pow2[i])
	}
	return p
}()

// multiEq is bellperson's MultiEq: it packs several equalities of bit sums
// into one row A = LHS, B = ONE, C = RHS, as long as they fit 254 bits.
type multiEq struct {
	lhs, rhs synth.LinearCombination // lhs[0] is reserved for ONE
	one      fr.Element              // coefficient of ONE in lhs
	hasOne   bool
	bitsUsed int
	oneB     synth.LinearCombination
	// scratch for canonicalizing lhs
	keys, keys2 []uint64
	sorted      synth.LinearCombination
}

func (m *multiEq) reset() {
	m.lhs = append(m.lhs[:0], synth.Term{Var: synth.One})
	m.rhs = m.rhs[:0]
	m.one = fr.Element{}
	m.hasOne = false
	m.bitsUsed = 0
}

// flush emits the pending row, if any.
func (m *multiEq) flush(cs synth.ConstraintSystem) {
	if m.bitsUsed == 0 {
		return
	}
	lhs := m.canonicalLHS()
	if m.hasOne {
		lhs[0].Coeff = m.one
	} else {
		lhs = lhs[1:]
	}
	cs.Enforce(lhs, m.oneB, m.rhs)
	m.reset()
}

// flush emits the gadget's pending MultiEq row, if any.
func (g *Gadget) flush() {
	if g.rec != nil && g.meq.bitsUsed > 0 {
		g.rec.flushNext()
	}
	g.meq.flush(g.B.CS)
}

// canonicalLHS returns lhs sorted by variable with repeated variables
// merged (the same operand bits appear in both additions of a round), with
// the ONE slot first. An LSD radix sort on the variable index keeps this
// linear: the group has about a thousand terms and is flushed 26 times per
// compression.
func (m *multiEq) canonicalLHS() synth.LinearCombination {
	terms := m.lhs[1:]
	n := len(terms)
	out := append(m.sorted[:0], m.lhs[0])
	if n == 0 {
		m.sorted = out
		return out
	}
	lo, hi := terms[0].Var, terms[0].Var
	for i := range terms {
		v := terms[i].Var
		lo = min(lo, v)
		hi = max(hi, v)
	}
	if cap(m.keys) < n {
		m.keys = make([]uint64, n)
		m.keys2 = make([]uint64, n)
	}
	keys, tmp := m.keys[:n], m.keys2[:n]
	for i := range terms {
		keys[i] = uint64(terms[i].Var-lo)<<32 | uint64(i)
	}
	span := uint64(hi - lo)
	for shift := uint(32); span>>(shift-32) != 0; shift += 8 {
		var count [257]int
		for _, k := range keys {
			count[(k>>shift)&0xff+1]++
		}
		for d := 1; d < 257; d++ {
			count[d] += count[d-1]
		}
		for _, k := range keys {
			d := (k >> shift) & 0xff
			tmp[count[d]] = k
			count[d]++
		}
		keys, tmp = tmp, keys
	}
	for _, k := range keys {
		t := &terms[uint32(k)]
		if last := &out[len(out)-1]; len(out) > 1 && last.Var == t.Var {
			last.Coeff.Add(&last.Coeff, &t.Coeff)
			continue
		}
		out = append(out, *t)
	}
	m.sorted = out
	return out
}

// addmany is UInt32::addmany inside the gadget's MultiEq: the m result bits
// of the full sum are allocated (m = bit length of n·(2^32 − 1)) and the
// equality Σ operands = Σ 2^k·r_k joins the pending MultiEq row.
func (g *Gadget) addmany(ops ...*UInt32) UInt32 {
	var sum uint64
	allConst := true
	for _, op := range ops {
		sum += uint64(op.Value)
		if allConst && !op.IsConstant() {
			allConst = false
		}
	}
	if allConst {
		return ConstantUInt32(uint32(sum))
	}
	nb := bits.Len64(uint64(len(ops)) * 0xffffffff)
	var id int32
	if g.rec != nil {
		id = g.rec.addition(ops, nb)
	}
	var res UInt32
	res.Value = uint32(sum)
	resVars := g.resVars[:0]
	for k := 0; k < nb; k++ {
		b := g.B.AllocBit(sum>>uint(k)&1 == 1)
		if k < 32 {
			res.Bits[k] = b
		}
		resVars = append(resVars, b.Var)
	}
	g.resVars = resVars

	m := &g.meq
	if 254 <= m.bitsUsed+nb {
		g.flush()
	}
	sh := m.bitsUsed
	if g.rec != nil {
		g.rec.join(id, sh)
	}
	lhs := m.lhs
	for _, op := range ops {
		for j := range op.Bits {
			b := &op.Bits[j]
			switch b.Kind {
			case boolean.Const:
				if b.Value {
					m.one.Add(&m.one, &num.Pow2[j+sh])
					m.hasOne = true
				}
			case boolean.Is:
				lhs = append(lhs, synth.Term{Coeff: num.Pow2[j+sh], Var: b.Var})
			case boolean.Not:
				m.one.Add(&m.one, &num.Pow2[j+sh])
				m.hasOne = true
				lhs = append(lhs, synth.Term{Coeff: negPow2[j+sh], Var: b.Var})
			}
		}
	}
	m.lhs = lhs
	for k, v := range resVars {
		m.rhs = append(m.rhs, synth.Term{Coeff: num.Pow2[k+sh], Var: v})
	}
	m.bitsUsed += nb
	return res
}
