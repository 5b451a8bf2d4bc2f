package por

import (
	"errors"
	"fmt"
	"math/bits"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/gpuc2/gpuc2/synth"
	"github.com/gpuc2/gpuc2/synth/gadgets/boolean"
	"github.com/gpuc2/gpuc2/synth/gadgets/num"
	"github.com/gpuc2/gpuc2/synth/gadgets/poseidon"
	"github.com/gpuc2/gpuc2/synth/gadgets/sha256"
	"github.com/gpuc2/gpuc2/synth/merkle"
)

// ErrArity is returned for a level arity the gadgets do not handle.
var ErrArity = errors.New("por: unsupported arity")

// Pick is insertion.rs pick: c = cond ? a : b, row (b − a)·⟦cond⟧ = b − c.
func Pick(g *boolean.Builder, cond boolean.Boolean, a, b num.Num) num.Num {
	v := b.Value
	if cond.Value {
		v = a.Value
	}
	c := g.CS.Alloc(v)
	one, mone := synth.CoeffOne, synth.CoeffMinusOne
	g.A = boolean.Canon(append(g.A[:0], synth.Term{Coeff: one, Var: b.Var}, synth.Term{Coeff: mone, Var: a.Var}))
	g.B = cond.AppendLC(g.B[:0], &one)
	g.C = append(g.C[:0], synth.Term{Coeff: one, Var: b.Var}, synth.Term{Coeff: mone, Var: c})
	g.CS.Enforce(g.A, g.B, g.C)
	return num.Num{Var: c, Value: v}
}

// Insert is insertion.rs insert: x placed among the siblings at the
// position the bits (LSB first) spell, for arity 2, 4 or 8.
func Insert(g *boolean.Builder, x num.Num, bits []boolean.Boolean, sibs []num.Num) ([]num.Num, error) {
	arity := len(sibs) + 1
	if arity != 1<<uint(len(bits)) {
		return nil, fmt.Errorf("%w: %d siblings with %d index bits", ErrArity, len(sibs), len(bits))
	}
	switch arity {
	case 2:
		b := bits[0]
		return []num.Num{Pick(g, b, sibs[0], x), Pick(g, b, x, sibs[0])}, nil
	case 4:
		b0, b1 := bits[0], bits[1]
		a, b, c, d := x, sibs[0], sibs[1], sibs[2]
		t0 := Pick(g, b0, b, a)
		p0 := Pick(g, b1, b, t0)
		t1 := Pick(g, b0, a, b)
		p1 := Pick(g, b1, c, t1)
		t2 := Pick(g, b0, d, a)
		p2 := Pick(g, b1, t2, c)
		t3 := Pick(g, b0, a, d)
		p3 := Pick(g, b1, t3, d)
		return []num.Num{p0, p1, p2, p3}, nil
	case 8:
		b0, b1, b2 := bits[0], bits[1], bits[2]
		a, b, c, d, e, f, gg, h := x, sibs[0], sibs[1], sibs[2], sibs[3], sibs[4], sibs[5], sibs[6]
		n := g.NorBits(b0, b1)
		m := g.AndBits(b0, b1)
		q0 := Pick(g, n, a, b)
		p0 := Pick(g, b2, b, q0)
		q1 := Pick(g, b0, a, b)
		q1 = Pick(g, b1, c, q1)
		p1 := Pick(g, b2, c, q1)
		q2 := Pick(g, b0, d, a)
		q2 = Pick(g, b1, q2, c)
		p2 := Pick(g, b2, d, q2)
		q3 := Pick(g, m, a, d)
		p3 := Pick(g, b2, e, q3)
		q4 := Pick(g, n, a, f)
		p4 := Pick(g, b2, q4, e)
		q5 := Pick(g, b0, a, f)
		q5 = Pick(g, b1, gg, q5)
		p5 := Pick(g, b2, q5, f)
		q6 := Pick(g, b0, h, a)
		q6 = Pick(g, b1, q6, gg)
		p6 := Pick(g, b2, q6, gg)
		q7 := Pick(g, m, a, h)
		p7 := Pick(g, b2, q7, h)
		return []num.Num{p0, p1, p2, p3, p4, p5, p6, p7}, nil
	}
	return nil, fmt.Errorf("%w: %d", ErrArity, arity)
}

// Hasher is a node hash gadget.
type Hasher interface {
	// HashNode hashes the children of one node (len = the level's arity).
	HashNode(children []num.Num) (num.Num, error)
}

// PoseidonHasher hashes with neptune's Poseidon circuit of the level's arity.
type PoseidonHasher struct{ g *poseidon.Gadget }

// NewPoseidonHasher returns a Poseidon node hasher sharing b.
func NewPoseidonHasher(b *boolean.Builder) *PoseidonHasher {
	return &PoseidonHasher{g: poseidon.New(b)}
}

// HashNode implements Hasher.
func (h *PoseidonHasher) HashNode(children []num.Num) (num.Num, error) { return h.g.Hash(children) }

// SHA256Hasher hashes with Sha256Function::hash_multi_leaf_circuit (tree D).
type SHA256Hasher struct{ g *sha256.Gadget }

// NewSHA256Hasher returns a SHA-256 node hasher sharing b.
func NewSHA256Hasher(b *boolean.Builder) *SHA256Hasher {
	return &SHA256Hasher{g: sha256.NewWithBuilder(b)}
}

// HashNode implements Hasher.
func (h *SHA256Hasher) HashNode(children []num.Num) (num.Num, error) {
	return h.g.HashLeaves(children...)
}

// Value is storage-proofs-core's Root: an existing variable (Var) or a
// value the gadget allocates (Val).
type Value struct {
	Num       num.Num
	Allocated bool
}

// Var refers to an already allocated variable.
func Var(n num.Num) Value { return Value{Num: n, Allocated: true} }

// Val is a value for the gadget to allocate.
func Val(v fr.Element) Value { return Value{Num: num.Num{Value: v}} }

func (v Value) get(g *boolean.Builder) num.Num {
	if v.Allocated {
		return v.Num
	}
	return num.Alloc(g, v.Num.Value)
}

// Result holds what the inclusion gadget allocated that callers may need.
type Result struct {
	Leaf, Root, Computed num.Num
	Index                num.Num // the packed index public input
}

// Synthesize is PoRCircuit::synthesize: the inclusion of leaf under root
// along path, exposing the packed index bits as one public input and, if
// private is false, the root as another.
func Synthesize(g *boolean.Builder, h Hasher, leaf Value, path merkle.Path, root Value, private bool) (Result, error) {
	var res Result
	res.Leaf = leaf.get(g)
	cur := res.Leaf
	var allBits []boolean.Boolean
	for l, e := range path {
		arity := len(e.Siblings) + 1
		if arity&(arity-1) != 0 || arity < 2 || e.Index < 0 || e.Index >= arity {
			return Result{}, fmt.Errorf("%w: level %d has arity %d, index %d", ErrArity, l, arity, e.Index)
		}
		nb := bits.TrailingZeros(uint(arity))
		idx := make([]boolean.Boolean, nb)
		for j := range idx {
			idx[j] = g.AllocBit(e.Index>>uint(j)&1 == 1)
		}
		allBits = append(allBits, idx...)
		sibs := make([]num.Num, len(e.Siblings))
		for j := range sibs {
			sibs[j] = num.Alloc(g, e.Siblings[j])
		}
		ins, err := Insert(g, cur, idx, sibs)
		if err != nil {
			return Result{}, err
		}
		if cur, err = h.HashNode(ins); err != nil {
			return Result{}, err
		}
	}
	if len(allBits) > num.Capacity {
		return Result{}, fmt.Errorf("%w: %d index bits", num.ErrTooManyBits, len(allBits))
	}
	if len(allBits) > 0 {
		res.Index = num.PackIntoInputs(g, allBits)[0]
	}
	res.Computed = cur
	res.Root = root.get(g)
	num.Equal(g, cur.Var, res.Root.Var)
	if !private {
		num.Inputize(g, res.Root)
	}
	return res, nil
}
