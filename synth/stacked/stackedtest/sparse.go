package stackedtest

import (
	"fmt"
	"slices"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/gpuc2/gpuc2/synth/merkle"
)

// sparseTree is a Merkle tree of which only a few leaves are known: every
// node outside the paths of those leaves is a pseudo-random value (the root
// of an untouched subtree), so a path can be opened for any known leaf and
// all of them lead to one root.
type sparseTree struct {
	arities []int
	hash    merkle.HashFunc
	fill    func(level int, idx uint64) fr.Element
	levels  []map[uint64]fr.Element // levels[0]: leaves; built by build
	built   bool
}

func newSparseTree(arities []int, h merkle.HashFunc, fill func(int, uint64) fr.Element) *sparseTree {
	t := &sparseTree{arities: arities, hash: h, fill: fill}
	t.levels = make([]map[uint64]fr.Element, len(arities)+1)
	for i := range t.levels {
		t.levels[i] = map[uint64]fr.Element{}
	}
	return t
}

// set fixes a leaf; setting it twice to different values is an error.
func (t *sparseTree) set(leaf uint64, v fr.Element) error {
	if old, ok := t.levels[0][leaf]; ok && old != v {
		return fmt.Errorf("leaf %d set to two different values", leaf)
	}
	t.levels[0][leaf] = v
	t.built = false
	return nil
}

// build fills the siblings of every known node and hashes up to the root.
func (t *sparseTree) build() (fr.Element, error) {
	for l := 1; l < len(t.levels); l++ {
		clear(t.levels[l])
	}
	children := make([]fr.Element, 0, 16)
	for l, a := range t.arities {
		cur, next := t.levels[l], t.levels[l+1]
		groups := make([]uint64, 0, len(cur))
		for idx := range cur {
			groups = append(groups, idx/uint64(a))
		}
		slices.Sort(groups)
		groups = slices.Compact(groups)
		for _, g := range groups {
			children = children[:0]
			for k := uint64(0); k < uint64(a); k++ {
				idx := g*uint64(a) + k
				v, ok := cur[idx]
				if !ok {
					v = t.fill(l, idx)
					cur[idx] = v
				}
				children = append(children, v)
			}
			h, err := t.hash(children)
			if err != nil {
				return fr.Element{}, err
			}
			next[g] = h
		}
	}
	top := t.levels[len(t.arities)]
	if len(top) != 1 {
		return fr.Element{}, fmt.Errorf("sparse tree has %d roots", len(top))
	}
	var root fr.Element
	for _, r := range top {
		root = r
	}
	t.built = true
	return root, nil
}

// path opens a known leaf (after build).
func (t *sparseTree) path(leaf uint64) (merkle.Path, error) {
	if !t.built {
		return nil, fmt.Errorf("sparse tree not built")
	}
	if _, ok := t.levels[0][leaf]; !ok {
		return nil, fmt.Errorf("leaf %d is not known", leaf)
	}
	p := make(merkle.Path, len(t.arities))
	idx := leaf
	for l, a := range t.arities {
		g := idx / uint64(a) * uint64(a)
		sib := make([]fr.Element, 0, a-1)
		for k := uint64(0); k < uint64(a); k++ {
			if g+k != idx {
				sib = append(sib, t.levels[l][g+k])
			}
		}
		p[l] = merkle.PathElement{Siblings: sib, Index: int(idx - g)}
		idx /= uint64(a)
	}
	return p, nil
}
