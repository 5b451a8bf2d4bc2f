package num

import (
	"errors"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/gpuc2/gpuc2/synth"
	"github.com/gpuc2/gpuc2/synth/gadgets/boolean"
)

// NumBits and Capacity are Fr's bit length and the number of bits that
// always fit (bellperson's NUM_BITS and CAPACITY).
const (
	NumBits  = 255
	Capacity = 254
)

// Pow2 holds 2^i in Fr for i = 0..255.
var Pow2 = func() (p [256]fr.Element) {
	p[0].SetOne()
	for i := 1; i < len(p); i++ {
		p[i].Double(&p[i-1])
	}
	return p
}()

// ErrTooManyBits is returned when more bits are given than fit a field element.
var ErrTooManyBits = errors.New("num: too many bits")

// Num is an AllocatedNum: a variable with its value.
type Num struct {
	Var   synth.Variable
	Value fr.Element
}

func one(v synth.Variable) synth.Term  { return synth.Term{Coeff: synth.CoeffOne, Var: v} }
func mone(v synth.Variable) synth.Term { return synth.Term{Coeff: synth.CoeffMinusOne, Var: v} }

// Alloc is AllocatedNum::alloc: one aux variable, no row.
func Alloc(g *boolean.Builder, v fr.Element) Num { return Num{Var: g.CS.Alloc(v), Value: v} }

// AllocInput is AllocatedNum::alloc_input: one public input, no row.
func AllocInput(g *boolean.Builder, v fr.Element) Num {
	return Num{Var: g.CS.AllocInput(v), Value: v}
}

// Inputize is AllocatedNum::inputize: input p, row p·ONE = x.
func Inputize(g *boolean.Builder, x Num) Num {
	p := g.CS.AllocInput(x.Value)
	g.A = append(g.A[:0], one(p))
	g.B = append(g.B[:0], one(synth.One))
	g.C = append(g.C[:0], one(x.Var))
	g.CS.Enforce(g.A, g.B, g.C)
	return Num{Var: p, Value: x.Value}
}

// Mul is AllocatedNum::mul: p = x·y, row x·y = p.
func Mul(g *boolean.Builder, x, y Num) Num {
	var v fr.Element
	v.Mul(&x.Value, &y.Value)
	p := g.CS.Alloc(v)
	g.A = append(g.A[:0], one(x.Var))
	g.B = append(g.B[:0], one(y.Var))
	g.C = append(g.C[:0], one(p))
	g.CS.Enforce(g.A, g.B, g.C)
	return Num{Var: p, Value: v}
}

// Square is AllocatedNum::square: p = x², row x·x = p.
func Square(g *boolean.Builder, x Num) Num { return Mul(g, x, x) }

// ConditionallyReverse is AllocatedNum::conditionally_reverse: (c, d) =
// cond ? (b, a) : (a, b), allocating c and its row, then d and its row.
func ConditionallyReverse(g *boolean.Builder, a, b Num, cond boolean.Boolean) (Num, Num) {
	cv, dv := a.Value, b.Value
	if cond.Value {
		cv, dv = dv, cv
	}
	c := g.CS.Alloc(cv)
	g.A = boolean.Canon(append(g.A[:0], one(a.Var), mone(b.Var)))
	g.B = cond.AppendLC(g.B[:0], &synth.CoeffOne)
	g.C = append(g.C[:0], one(a.Var), mone(c))
	g.CS.Enforce(g.A, g.B, g.C)
	d := g.CS.Alloc(dv)
	g.A = boolean.Canon(append(g.A[:0], one(b.Var), mone(a.Var)))
	g.B = cond.AppendLC(g.B[:0], &synth.CoeffOne)
	g.C = append(g.C[:0], one(b.Var), mone(d))
	g.CS.Enforce(g.A, g.B, g.C)
	return Num{Var: c, Value: cv}, Num{Var: d, Value: dv}
}

// bitOf returns bit i of x's canonical value.
func bitOf(x *[4]uint64, i int) bool { return x[i>>6]>>(uint(i)&63)&1 == 1 }

// ToBitsLE is AllocatedNum::to_bits_le (not strict): 255 allocated bits,
// LSB first, then the row 0·0 = Σ 2^i·bit_i − x. It does not exclude the
// second representation x + r; the Filecoin circuits accept that.
func ToBitsLE(g *boolean.Builder, x Num) []boolean.Boolean {
	bits := make([]boolean.Boolean, NumBits)
	xv := x.Value.Bits()
	for i := range bits {
		bits[i] = g.AllocBit(bitOf(&xv, i))
	}
	enforceUnpacking(g, bits, x)
	return bits
}

// enforceUnpacking emits 0·0 = Σ 2^i·⟦bits[i]⟧ − x.
func enforceUnpacking(g *boolean.Builder, bits []boolean.Boolean, x Num) {
	c := g.C[:0]
	for i := range bits {
		c = bits[i].AppendLC(c, &Pow2[i])
	}
	c = append(c, mone(x.Var))
	g.C = c
	g.CS.Enforce(g.A[:0], g.B[:0], c)
}

// rMinusOne is the bit pattern of r − 1, checked against by ToBitsLEStrict.
var rMinusOne = func() [4]uint64 {
	var m fr.Element
	m.SetOne()
	m.Neg(&m)
	return m.Bits()
}()

// ToBitsLEStrict is AllocatedNum::to_bits_le_strict: the bits are also
// proven to be at most r − 1 (388 rows for BLS12-381). Not used by
// rust-fil-proofs; given for completeness.
func ToBitsLEStrict(g *boolean.Builder, x Num) []boolean.Boolean {
	xv := x.Value.Bits()
	result := make([]boolean.Boolean, 0, NumBits)
	var run []boolean.Boolean
	var last boolean.Boolean
	haveLast := false
	for p := NumBits - 1; p >= 0; p-- {
		if bitOf(&rMinusOne, p) {
			v := g.AllocBit(bitOf(&xv, p))
			run = append(run, v)
			result = append(result, v)
			continue
		}
		if len(run) > 0 {
			if haveLast {
				run = append(run, last)
			}
			cur := run[0]
			for _, e := range run[1:] {
				cur = g.AndBits(cur, e)
			}
			last, haveLast = cur, true
			run = run[:0]
		}
		var v boolean.Boolean
		if haveLast {
			v = g.AllocConditionally(bitOf(&xv, p), last)
		} else {
			v = g.AllocBit(bitOf(&xv, p))
		}
		result = append(result, v)
	}
	for i, j := 0, len(result)-1; i < j; i, j = i+1, j-1 {
		result[i], result[j] = result[j], result[i]
	}
	enforceUnpacking(g, result, x)
	return result
}

// packLC returns Σ 2^k·⟦bits[k]⟧ in g.A and the packed value.
func packLC(g *boolean.Builder, bits []boolean.Boolean) fr.Element {
	var val fr.Element
	a := g.A[:0]
	for k := range bits {
		a = bits[k].AppendLC(a, &Pow2[k])
		if bits[k].Value {
			val.Add(&val, &Pow2[k])
		}
	}
	g.A = a
	return val
}

// PackBits is bellperson's multipack::pack_bits: the first 254 bits packed
// into one aux variable y, row (Σ 2^k·bit_k)·ONE = y.
func PackBits(g *boolean.Builder, bits []boolean.Boolean) Num {
	if len(bits) > Capacity {
		bits = bits[:Capacity]
	}
	val := packLC(g, bits)
	y := g.CS.Alloc(val)
	g.B = append(g.B[:0], one(synth.One))
	g.C = append(g.C[:0], one(y))
	g.CS.Enforce(g.A, g.B, g.C)
	return Num{Var: y, Value: val}
}

// PackIntoInputs is bellperson's multipack::pack_into_inputs: one public
// input and one row (Σ 2^k·bit_k)·ONE = p per chunk of 254 bits.
func PackIntoInputs(g *boolean.Builder, bits []boolean.Boolean) []Num {
	var out []Num
	for len(bits) > 0 {
		n := min(len(bits), Capacity)
		val := packLC(g, bits[:n])
		p := g.CS.AllocInput(val)
		g.B = append(g.B[:0], one(synth.One))
		g.C = append(g.C[:0], one(p))
		g.CS.Enforce(g.A, g.B, g.C)
		out = append(out, Num{Var: p, Value: val})
		bits = bits[n:]
	}
	return out
}

// ComputeMultipacking is the native counterpart of PackIntoInputs: the
// public inputs for the given bits.
func ComputeMultipacking(bits []bool) []fr.Element {
	var out []fr.Element
	for len(bits) > 0 {
		n := min(len(bits), Capacity)
		var v fr.Element
		for k, b := range bits[:n] {
			if b {
				v.Add(&v, &Pow2[k])
			}
		}
		out = append(out, v)
		bits = bits[n:]
	}
	return out
}

// Equal is storage-proofs-core's constraint::equal: row a·ONE = b. The
// direction matters: a goes to A, b to C.
func Equal(g *boolean.Builder, a, b synth.Variable) {
	g.A = append(g.A[:0], one(a))
	g.B = append(g.B[:0], one(synth.One))
	g.C = append(g.C[:0], one(b))
	g.CS.Enforce(g.A, g.B, g.C)
}

// Add is storage-proofs-core's constraint::add (and encode): e = a + b,
// row (a + b)·ONE = e.
func Add(g *boolean.Builder, a, b Num) Num {
	var v fr.Element
	v.Add(&a.Value, &b.Value)
	e := g.CS.Alloc(v)
	g.A = boolean.Canon(append(g.A[:0], one(a.Var), one(b.Var)))
	g.B = append(g.B[:0], one(synth.One))
	g.C = append(g.C[:0], one(e))
	g.CS.Enforce(g.A, g.B, g.C)
	return Num{Var: e, Value: v}
}

// UInt64 is storage-proofs-core's UInt64: 64 Booleans, LSB first.
type UInt64 struct {
	Bits  [64]boolean.Boolean
	Value uint64
}

// AllocUInt64 is UInt64::alloc: 64 allocated bits, LSB first.
func AllocUInt64(g *boolean.Builder, v uint64) UInt64 {
	u := UInt64{Value: v}
	for i := range u.Bits {
		u.Bits[i] = g.AllocBit(v>>uint(i)&1 == 1)
	}
	return u
}

// ConstantUInt64 is UInt64::constant: 64 constant bits.
func ConstantUInt64(v uint64) UInt64 {
	u := UInt64{Value: v}
	for i := range u.Bits {
		u.Bits[i] = boolean.Constant(v>>uint(i)&1 == 1)
	}
	return u
}

// PackIntoInput is UInt64::pack_into_input: one public input (= the value).
func (u *UInt64) PackIntoInput(g *boolean.Builder) Num {
	return PackIntoInputs(g, u.Bits[:])[0]
}

// BitsBE returns the 64 bits most significant first.
func (u *UInt64) BitsBE() []boolean.Boolean {
	out := make([]boolean.Boolean, 64)
	for i := range out {
		out[i] = u.Bits[63-i]
	}
	return out
}

// ReverseBitNumbering pads bits with Const(false) to whole bytes and reverses
// the bit order within each byte (storage-proofs-core util).
func ReverseBitNumbering(bits []boolean.Boolean) []boolean.Boolean {
	n := (len(bits) + 7) / 8 * 8
	out := make([]boolean.Boolean, n)
	for i := range out {
		src := i/8*8 + 7 - i%8
		if src < len(bits) {
			out[i] = bits[src]
		} else {
			out[i] = boolean.Constant(false)
		}
	}
	return out
}
