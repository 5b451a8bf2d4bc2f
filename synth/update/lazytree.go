package update

import (
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/gpuc2/gpuc2/synth/merkle"
)

// lazyTree is a Merkle tree over a structured made-up sector, too large to
// build: leaf i is leaf(i mod period, i >> blockShift), so a subtree's
// content depends only on where it starts within the period and on its
// block, as long as it lies within one block. Nodes are computed on demand
// and memoized on that key (or on their position where they span blocks),
// so a 2^30-leaf tree costs thousands of hashes. TEST-ONLY, for synthetic
// updates beyond 8 MiB.
type lazyTree struct {
	arities    []int  // per level, leaf to root
	period     uint64 // divides every subtree size from some level up
	blockShift uint   // 64: one block
	leaf       func(pos, block uint64) fr.Element
	hash       merkle.HashFunc

	sizes []uint64 // sizes[l]: leaves under a node of level l
	memo  map[nodeKey]fr.Element
	rootV fr.Element
}

type nodeKey struct {
	level int
	pos   uint64 // start mod period, or the node's index if exact
	block uint64
	exact bool
}

func (t *lazyTree) block(i uint64) uint64 {
	if t.blockShift >= 64 {
		return 0
	}
	return i >> t.blockShift
}

// node returns node j of level l (level 0: the leaves).
func (t *lazyTree) node(l int, j uint64) (fr.Element, error) {
	size := t.sizes[l]
	start := j * size
	if l == 0 {
		return t.leaf(start%t.period, t.block(start)), nil
	}
	key := nodeKey{level: l, pos: start % t.period, block: t.block(start)}
	if t.block(start+size-1) != key.block {
		key = nodeKey{level: l, pos: j, exact: true}
	}
	if v, ok := t.memo[key]; ok {
		return v, nil
	}
	a := t.arities[l-1]
	children := make([]fr.Element, a)
	for k := range children {
		var err error
		if children[k], err = t.node(l-1, j*uint64(a)+uint64(k)); err != nil {
			return fr.Element{}, err
		}
	}
	v, err := t.hash(children)
	if err != nil {
		return fr.Element{}, err
	}
	t.memo[key] = v
	return v, nil
}

// newLazy returns a lazyTree with its root computed.
func newLazy(arities []int, period uint64, blockShift uint, leaf func(pos, block uint64) fr.Element, h merkle.HashFunc) (*lazyTree, error) {
	t := &lazyTree{arities: arities, period: period, blockShift: blockShift, leaf: leaf, hash: h, memo: map[nodeKey]fr.Element{}}
	t.sizes = []uint64{1}
	for _, a := range arities {
		t.sizes = append(t.sizes, t.sizes[len(t.sizes)-1]*uint64(a))
	}
	var err error
	t.rootV, err = t.node(len(arities), 0)
	return t, err
}

// Root returns the root.
func (t *lazyTree) Root() fr.Element { return t.rootV }

// Path opens leaf i, as merkle.Tree.Path does.
func (t *lazyTree) Path(li int) (merkle.Path, error) {
	i := uint64(li)
	p := make(merkle.Path, len(t.arities))
	for l, a := range t.arities {
		group := i / uint64(a) * uint64(a)
		sib := make([]fr.Element, 0, a-1)
		for k := uint64(0); k < uint64(a); k++ {
			if group+k == i {
				continue
			}
			v, err := t.node(l, group+k)
			if err != nil {
				return nil, err
			}
			sib = append(sib, v)
		}
		p[l] = merkle.PathElement{Siblings: sib, Index: int(i % uint64(a))}
		i /= uint64(a)
	}
	return p, nil
}
