package merkle

import (
	"errors"
	"fmt"
	"math/bits"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/gpuc2/gpuc2/synth/hash/poseidon"
	"github.com/gpuc2/gpuc2/synth/hash/sha256"
)

// Errors for bad input.
var (
	ErrShape = errors.New("merkle: leaf count does not fit the tree shape")
	ErrIndex = errors.New("merkle: leaf index out of range")
	ErrPath  = errors.New("merkle: malformed path")
)

// Shape is a tree type: base arity and optional sub and top arities (0 = none).
type Shape struct{ Base, Sub, Top int }

// Arities returns the arity of each level, leaf to root, for n leaves.
func (s Shape) Arities(n int) ([]int, error) {
	base, err := s.BaseLevels(n)
	if err != nil {
		return nil, err
	}
	out := repeat(s.Base, base)
	if s.Sub != 0 {
		out = append(out, s.Sub)
	}
	if s.Top != 0 {
		out = append(out, s.Top)
	}
	return out, nil
}

// BaseLevels returns the number of base levels of a tree of n leaves (the
// sub and top levels, if any, follow them), or ErrShape where the shape
// does not fit n.
func (s Shape) BaseLevels(n int) (int, error) {
	if !pow2(s.Base) || s.Base < 2 || s.Sub != 0 && !pow2(s.Sub) || s.Top != 0 && !pow2(s.Top) {
		return 0, fmt.Errorf("%w: arities %d-%d-%d", ErrShape, s.Base, s.Sub, s.Top)
	}
	if s.Top != 0 && s.Sub == 0 {
		return 0, fmt.Errorf("%w: a top arity needs a sub arity", ErrShape)
	}
	rest, prod := n, 1
	for _, a := range [2]int{s.Sub, s.Top} {
		if a != 0 {
			rest /= a
			prod *= a
		}
	}
	levels := 0
	for rest > 1 {
		levels++
		rest /= s.Base
		prod *= s.Base
	}
	if n < 1 || prod != n || rest != 1 {
		return 0, fmt.Errorf("%w: %d leaves, shape %d-%d-%d", ErrShape, n, s.Base, s.Sub, s.Top)
	}
	return levels, nil
}

// String is the shape as rust-fil-proofs names tree types: "8-8-0".
func (s Shape) String() string { return fmt.Sprintf("%d-%d-%d", s.Base, s.Sub, s.Top) }

func pow2(a int) bool { return a > 0 && a&(a-1) == 0 }

// HashFunc hashes the children of one node (len = the level's arity).
type HashFunc func(children []fr.Element) (fr.Element, error)

// PoseidonHash is the node hash of trees R and C: Poseidon with the arity
// of the level.
func PoseidonHash(children []fr.Element) (fr.Element, error) { return poseidon.Hash(children) }

// SHA256Hash is the node hash of tree D (binary only).
func SHA256Hash(children []fr.Element) (fr.Element, error) {
	if len(children) != 2 {
		return fr.Element{}, fmt.Errorf("%w: SHA-256 trees are binary", ErrShape)
	}
	return sha256.HashFr(&children[0], &children[1]), nil
}

// Tree is a Merkle tree with every level kept.
type Tree struct {
	arities []int
	levels  [][]fr.Element // levels[0] = leaves; the last has one node
	hash    HashFunc
}

// New builds a tree over the leaves with the given level arities.
func New(leaves []fr.Element, arities []int, h HashFunc) (*Tree, error) {
	t := &Tree{arities: arities, hash: h}
	cur := append([]fr.Element(nil), leaves...)
	t.levels = append(t.levels, cur)
	for _, a := range arities {
		if len(cur)%a != 0 {
			return nil, fmt.Errorf("%w: %d nodes at arity %d", ErrShape, len(cur), a)
		}
		next := make([]fr.Element, len(cur)/a)
		for i := range next {
			var err error
			if next[i], err = h(cur[i*a : (i+1)*a]); err != nil {
				return nil, err
			}
		}
		t.levels = append(t.levels, next)
		cur = next
	}
	if len(cur) != 1 {
		return nil, fmt.Errorf("%w: %d roots", ErrShape, len(cur))
	}
	return t, nil
}

// NewSHA256 builds a binary SHA-254 tree (tree D).
func NewSHA256(leaves []fr.Element) (*Tree, error) {
	if !pow2(len(leaves)) {
		return nil, fmt.Errorf("%w: %d leaves", ErrShape, len(leaves))
	}
	return New(leaves, repeat(2, bits.TrailingZeros(uint(len(leaves)))), SHA256Hash)
}

// NewPoseidon builds a Poseidon tree of the given shape (trees R and C).
func NewPoseidon(leaves []fr.Element, s Shape) (*Tree, error) {
	ar, err := s.Arities(len(leaves))
	if err != nil {
		return nil, err
	}
	return New(leaves, ar, PoseidonHash)
}

func repeat(a, n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = a
	}
	return out
}

// Root returns the root.
func (t *Tree) Root() fr.Element { return t.levels[len(t.levels)-1][0] }

// Leaves returns the number of leaves.
func (t *Tree) Leaves() int { return len(t.levels[0]) }

// Arities returns the level arities, leaf to root.
func (t *Tree) Arities() []int { return t.arities }

// PathElement is one level of a path: the siblings in order and the index
// of the path's node among them.
type PathElement struct {
	Siblings []fr.Element
	Index    int
}

// Path lists the levels of an inclusion path, leaf to root.
type Path []PathElement

// Path opens the path of leaf i.
func (t *Tree) Path(i int) (Path, error) {
	if i < 0 || i >= t.Leaves() {
		return nil, fmt.Errorf("%w: %d of %d", ErrIndex, i, t.Leaves())
	}
	p := make(Path, len(t.arities))
	for l, a := range t.arities {
		group := i / a * a
		sib := make([]fr.Element, 0, a-1)
		for k := 0; k < a; k++ {
			if group+k != i {
				sib = append(sib, t.levels[l][group+k])
			}
		}
		p[l] = PathElement{Siblings: sib, Index: i % a}
		i /= a
	}
	return p, nil
}

// LeafIndex returns the leaf index the path's indices spell.
func (p Path) LeafIndex() uint64 {
	var idx, mul uint64 = 0, 1
	for _, e := range p {
		idx += uint64(e.Index) * mul
		mul *= uint64(len(e.Siblings) + 1)
	}
	return idx
}

// Compute returns the root the path leads to from leaf.
func (p Path) Compute(h HashFunc, leaf fr.Element) (fr.Element, error) {
	cur := leaf
	var buf [16]fr.Element
	for _, e := range p {
		a := len(e.Siblings) + 1
		if a > len(buf) || e.Index < 0 || e.Index >= a {
			return fr.Element{}, ErrPath
		}
		children := buf[:a]
		copy(children, e.Siblings[:e.Index])
		children[e.Index] = cur
		copy(children[e.Index+1:], e.Siblings[e.Index:])
		var err error
		if cur, err = h(children); err != nil {
			return fr.Element{}, err
		}
	}
	return cur, nil
}

// Verify reports whether the path leads from leaf to root.
func (p Path) Verify(h HashFunc, leaf, root fr.Element) bool {
	r, err := p.Compute(h, leaf)
	return err == nil && r == root
}
