package sha256

import (
	"errors"
	"fmt"

	"github.com/gpuc2/gpuc2/synth"
	"github.com/gpuc2/gpuc2/synth/gadgets/boolean"
	"github.com/gpuc2/gpuc2/synth/gadgets/num"
)

// IV is SHA-256's initial hash value.
var IV = [8]uint32{
	0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
	0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
}

var roundK = [64]uint32{
	0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
	0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
	0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
	0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
	0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
	0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
	0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
	0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
}

var constK = func() (k [64]UInt32) {
	for i := range k {
		k[i] = ConstantUInt32(roundK[i])
	}
	return k
}()

// Errors for malformed input.
var (
	ErrBlockSize = errors.New("sha256: a block is 512 bits")
	ErrBitLength = errors.New("sha256: message length must be a multiple of 8 bits")
)

// Gadget emits SHA-256 circuits.
type Gadget struct {
	B       *boolean.Builder
	meq     multiEq
	resVars []synth.Variable
	w       [64]UInt32
	fast    fastState // the witness-only fast path (template.go)
	rec     *recorder // set while a compression is recorded
}

// New returns a Gadget over cs.
func New(cs synth.ConstraintSystem) *Gadget { return NewWithBuilder(boolean.NewBuilder(cs)) }

// NewWithBuilder returns a Gadget sharing the Builder b.
func NewWithBuilder(b *boolean.Builder) *Gadget {
	g := &Gadget{B: b}
	g.fast.p, _ = b.CS.(*synth.ProvingAssignment)
	g.meq.lhs = make(synth.LinearCombination, 0, 2048)
	g.meq.rhs = make(synth.LinearCombination, 0, 256)
	g.meq.oneB = synth.LC(synth.One)
	g.meq.reset()
	return g
}

func (g *Gadget) xor(a, b *UInt32) UInt32 {
	r := UInt32{Value: a.Value ^ b.Value}
	for i := range r.Bits {
		r.Bits[i] = g.B.Xor(a.Bits[i], b.Bits[i])
	}
	return r
}

func (g *Gadget) ch(a, b, c *UInt32) UInt32 {
	r := UInt32{Value: a.Value&b.Value ^ ^a.Value&c.Value}
	for i := range r.Bits {
		r.Bits[i] = g.B.Ch(a.Bits[i], b.Bits[i], c.Bits[i])
	}
	return r
}

func (g *Gadget) maj(a, b, c *UInt32) UInt32 {
	r := UInt32{Value: a.Value&b.Value ^ a.Value&c.Value ^ b.Value&c.Value}
	for i := range r.Bits {
		r.Bits[i] = g.B.Maj(a.Bits[i], b.Bits[i], c.Bits[i])
	}
	return r
}

// xor3 is bellperson's two chained xors (x ⊕ y) ⊕ z.
func (g *Gadget) xor3(x, y, z UInt32) UInt32 {
	t := g.xor(&x, &y)
	return g.xor(&t, &z)
}

// deferred is a word that is still a list of addends (bellperson's Maybe::Deferred).
type deferred struct {
	ops      [8]*UInt32
	n        int
	concrete bool
	word     UInt32
}

func (d *deferred) compute(g *Gadget) UInt32 {
	if d.concrete {
		return d.word
	}
	return g.addmany(d.ops[:d.n]...)
}

// Compress is bellperson's sha256_compression_function: one 512-bit block
// (message bits, most significant first per word) into the state.
func (g *Gadget) Compress(block []boolean.Boolean, state *[8]UInt32) ([8]UInt32, error) {
	if len(block) != 512 {
		return [8]UInt32{}, fmt.Errorf("%w: got %d", ErrBlockSize, len(block))
	}
	if g.fast.p != nil && g.meq.bitsUsed == 0 {
		if out, ok := g.compressFast(block, state); ok {
			return out, nil
		}
	}
	return g.compress(block, state), nil
}

// compress is Compress through the gadgets.
func (g *Gadget) compress(block []boolean.Boolean, state *[8]UInt32) [8]UInt32 {
	w := &g.w
	for t := 0; t < 16; t++ {
		w[t] = FromBitsBE(block[32*t : 32*t+32])
	}
	for t := 16; t < 64; t++ {
		s0 := g.xor3(w[t-15].Rotr(7), w[t-15].Rotr(18), w[t-15].Shr(3))
		s1 := g.xor3(w[t-2].Rotr(17), w[t-2].Rotr(19), w[t-2].Shr(10))
		w[t] = g.addmany(&w[t-16], &s0, &w[t-7], &s1)
	}

	// The working words live in a pool so that the deferred lists can point
	// at them; each round's T1 words, S0 and MAJ get fresh slots.
	var pool [64*6 + 8]UInt32
	np := 0
	slot := func(u UInt32) *UInt32 { pool[np] = u; np++; return &pool[np-1] }

	a := deferred{concrete: true, word: state[0]}
	b, c, d := state[1], state[2], state[3]
	e := deferred{concrete: true, word: state[4]}
	f, gg, h := state[5], state[6], state[7]
	for i := 0; i < 64; i++ {
		E := e.compute(g)
		S1 := g.xor3(E.Rotr(6), E.Rotr(11), E.Rotr(25))
		CH := g.ch(&E, &f, &gg)
		ph, pS1, pCH, pW, pd := slot(h), slot(S1), slot(CH), &w[i], slot(d)
		pK := &constK[i]
		A := a.compute(g)
		S0 := g.xor3(A.Rotr(2), A.Rotr(13), A.Rotr(22))
		MAJ := g.maj(&A, &b, &c)
		h, gg, f = gg, f, E
		e = deferred{ops: [8]*UInt32{ph, pS1, pCH, pK, pW, pd}, n: 6}
		d, c, b = c, b, A
		a = deferred{ops: [8]*UInt32{ph, pS1, pCH, pK, pW, slot(S0), slot(MAJ)}, n: 7}
	}
	var out [8]UInt32
	h0 := state[0]
	a.ops[a.n] = &h0
	a.n++
	out[0] = g.addmany(a.ops[:a.n]...)
	out[1] = g.addmany(&state[1], &b)
	out[2] = g.addmany(&state[2], &c)
	out[3] = g.addmany(&state[3], &d)
	h4 := state[4]
	e.ops[e.n] = &h4
	e.n++
	out[4] = g.addmany(e.ops[:e.n]...)
	out[5] = g.addmany(&state[5], &f)
	out[6] = g.addmany(&state[6], &gg)
	out[7] = g.addmany(&state[7], &h)
	g.flush()
	return out
}

// IVState returns the IV as constant words.
func IVState() [8]UInt32 {
	var s [8]UInt32
	for i := range s {
		s[i] = ConstantUInt32(IV[i])
	}
	return s
}

func digestBits(state *[8]UInt32) []boolean.Boolean {
	out := make([]boolean.Boolean, 0, 256)
	for i := range state {
		out = state[i].AppendBitsBE(out)
	}
	return out
}

// BlockNoPadding is sha256_block_no_padding: one compression from the IV,
// no padding; returns the 256 digest bits in standard order.
func (g *Gadget) BlockNoPadding(block []boolean.Boolean) ([]boolean.Boolean, error) {
	s := IVState()
	out, err := g.Compress(block, &s)
	if err != nil {
		return nil, err
	}
	return digestBits(&out), nil
}

// Hash is bellperson's sha256: padding (all constant), then one compression
// per block; returns the 256 digest bits in standard order.
func (g *Gadget) Hash(msg []boolean.Boolean) ([]boolean.Boolean, error) {
	if len(msg)%8 != 0 {
		return nil, fmt.Errorf("%w: got %d", ErrBitLength, len(msg))
	}
	n := len(msg) + 1
	for (n+64)%512 != 0 {
		n++
	}
	padded := make([]boolean.Boolean, 0, n+64)
	padded = append(padded, msg...)
	padded = append(padded, boolean.Constant(true))
	for len(padded) < n {
		padded = append(padded, boolean.Constant(false))
	}
	l := uint64(len(msg))
	for i := 63; i >= 0; i-- {
		padded = append(padded, boolean.Constant(l>>uint(i)&1 == 1))
	}
	s := IVState()
	for off := 0; off < len(padded); off += 512 {
		var err error
		if s, err = g.Compress(padded[off:off+512], &s); err != nil {
			return nil, err
		}
	}
	return digestBits(&s), nil
}

// HashToField is filecoin-hashers' Sha256Function::hash_circuit: the digest
// with each byte's bits reversed, packed (first 254 bits) into one aux
// variable. Its value is the digest read little-endian with the top two
// bits cleared.
func (g *Gadget) HashToField(msg []boolean.Boolean) (num.Num, error) {
	be, err := g.Hash(msg)
	if err != nil {
		return num.Num{}, err
	}
	le := num.ReverseBitNumbering(be)
	return num.PackBits(g.B, le[:num.Capacity]), nil
}

// HashLeaves is Sha256Function::hash_multi_leaf_circuit (and, for two
// leaves, hash2_circuit): each leaf is decomposed with to_bits_le, padded to
// 256 bits and byte-reversed, in leaf order, then hashed to a field element.
// Tree D's node hash is HashLeaves(left, right).
func (g *Gadget) HashLeaves(leaves ...num.Num) (num.Num, error) {
	bits := make([]boolean.Boolean, 0, 256*len(leaves))
	for _, leaf := range leaves {
		bits = append(bits, num.ReverseBitNumbering(num.ToBitsLE(g.B, leaf))...)
	}
	return g.HashToField(bits)
}

// HashLeafBits is Sha256Function::hash_leaf_bits_circuit: both bit vectors
// padded to whole bytes and byte-reversed, then hashed to a field element.
func (g *Gadget) HashLeafBits(left, right []boolean.Boolean) (num.Num, error) {
	bits := append(num.ReverseBitNumbering(left), num.ReverseBitNumbering(right)...)
	return g.HashToField(bits)
}
