package porep

import (
	"context"
	stdsha256 "crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/filecoin-project/go-state-types/abi"

	"github.com/gpuc2/gpuc2/internal/par"

	"github.com/gpuc2/gpuc2/synth/hash/sha256"
	"github.com/gpuc2/gpuc2/synth/merkle"
)

// dataBlockLevels is log2 of the data block that tree D repeats.
const dataBlockLevels = 12

// maxDenseNodes bounds the sectors SyntheticC1 builds in full (synthetic
// and NI-PoRep): 8 MiB, 2^18 nodes, costs about 17 s of CPU (half of it Poseidon,
// a quarter the expander's Feistel hashes) and 0.2 GB; 512 MiB would cost
// 64 times as much of both.
const maxDenseNodes = 1 << 18

// SyntheticC1 generates the C1 output of a made-up sector sealed with p by
// miner as sector number sector: synthetic data for tests, examples and
// benchmarks, not a real sector. The result is deterministic in its
// arguments and internally consistent: it parses back from every encoding
// and passes CheckAll, and its partitions satisfy the circuit.
//
// The sector data repeats one random block of 2^12 nodes (the whole
// sector at 2 KiB), so comm_d is a real tree-D root that is cheap to
// compute: comm_d must be fixed before the challenges, which depend on it
// through replica_id, so tree D cannot be sparse around them. Ticket and
// seed are random; replica_id and the challenges are derived from them as
// rust-fil-proofs does. Beyond tree D, how much is real depends on when the
// challenges are known:
//
//   - Interactive types (V1, V1_1), any size: the challenges come from
//     replica_id and seed, so only what the C1 opens is real and the work
//     is proportional to the number of challenges. Every column that the
//     proofs open (challenged nodes and their 6 DRG and 8 expander parents)
//     holds random labels, except that the labels of challenged nodes are
//     computed from their parents' labels (layer by layer, node by node, so
//     a challenged node that is another's parent has its computed labels
//     everywhere). The replica node of a challenged node is its data plus
//     its last label. Trees C and R are sparse: the opened leaves are real,
//     every subtree that no proof enters has a random root.
//   - Synthetic PoRep (V1_1_Feat_SyntheticPoRep) and NI-PoRep
//     (V1_2_Feat_NonInteractivePoRep), up to 8 MiB: the challenges depend on
//     comm_r (selected with seed from a set derived from replica_id and
//     comm_r; for NI-PoRep hashed from replica_id and comm_r, without the
//     seed), and comm_r on every node, so the sector is built in full: every
//     label of every node (SDR labeling), every replica node, trees C and R,
//     then comm_r, then the challenges. Larger sizes give an error wrapping
//     errors.ErrUnsupported.
//
// Random values come from SHA-256 of seed and their position, so a value
// does not depend on the order of the work.
func SyntheticC1(ctx context.Context, p abi.RegisteredSealProof, miner abi.ActorID, sector abi.SectorNumber, seed [32]byte) (*C1, error) {
	sp, err := ParamsFor(p)
	if err != nil {
		return nil, err
	}
	dense := sp.Challenges != ChallengesInteractive // the challenges depend on comm_r
	if dense && sp.Nodes > maxDenseNodes {
		return nil, fmt.Errorf("porep: no synthetic C1 for %v: its challenges depend on comm_r, so every node must be labelled, which is done only up to %d nodes (8 MiB): %w",
			ProofName(p), maxDenseNodes, errors.ErrUnsupported)
	}
	rnd := synthRand(seed)
	ps, err := newPoseidonSet()
	if err != nil {
		return nil, err
	}
	g := newGraph(sp.Nodes, sp.PoRepID, sp.APIVersion)

	treeD := newBlockTree(&rnd, sp.TreeDDepth)
	c := &C1{
		RegisteredProof: p,
		CommD:           treeD.root(),
		Ticket:          rnd.bytes(tagTicket, 0, 0),
		Seed:            rnd.bytes(tagSeed, 0, 0),
	}
	rid, err := ReplicaID(p, miner, sector, c.Ticket, c.CommD)
	if err != nil {
		return nil, err
	}
	c.ReplicaID, _ = fr.LittleEndian.Element(&rid) // top bits cleared: canonical

	// computed: the nodes whose labels and replica nodes are real
	var chals [][]uint64
	var computed []uint64
	if dense {
		computed = make([]uint64, sp.Nodes)
		for n := range computed {
			computed[n] = uint64(n)
		}
	} else {
		if chals, err = partitionChallenges(&sp, rid, [32]byte{}, c.Seed); err != nil {
			return nil, err
		}
		computed = slices.Sorted(maps.Keys(challengeSet(chals)))
	}
	parents, err := graphParents(ctx, g, computed)
	if err != nil {
		return nil, err
	}
	labels, err := makeLabels(ctx, &rnd, &sp, &rid, computed, parents)
	if err != nil {
		return nil, err
	}

	// tree C over the column hashes of every opened column
	opened := slices.Sorted(maps.Keys(labels))
	colHash := make([]fr.Element, len(opened))
	err = parallelFor(ctx, len(opened), func(lo, hi int) error {
		for i := lo; i < hi; i++ {
			var err error
			if colHash[i], err = ps.hash(labels[opened[i]]); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	leavesC := make(map[uint64]fr.Element, len(opened))
	for i, n := range opened {
		leavesC[n] = colHash[i]
	}
	arities := treeArities(&sp)
	treeC, err := newSparseTree(ctx, ps, leavesC, arities, func(level int, idx uint64) fr.Element {
		return rnd.fr(tagTreeC, uint64(level), idx)
	})
	if err != nil {
		return nil, err
	}

	// tree R over the replica nodes of the computed nodes
	leavesR := make(map[uint64]fr.Element, len(computed))
	for _, n := range computed {
		leaf := treeD.leaf(n)
		data, _ := fr.LittleEndian.Element(&leaf) // top bits cleared: canonical
		var replica fr.Element
		leavesR[n] = *replica.Add(&data, &labels[n][sp.Layers-1])
	}
	treeR, err := newSparseTree(ctx, ps, leavesR, arities, func(level int, idx uint64) fr.Element {
		return rnd.fr(tagTreeR, uint64(level), idx)
	})
	if err != nil {
		return nil, err
	}
	commC, commRLast := treeC.root(), treeR.root()
	if c.CommR, err = ps.hash([]fr.Element{commC, commRLast}); err != nil {
		return nil, err
	}
	if dense {
		if chals, err = partitionChallenges(&sp, rid, leBytes(&c.CommR), c.Seed); err != nil {
			return nil, err
		}
	}

	column := func(n uint64) ColumnProof {
		return ColumnProof{
			Column:         Column{Index: uint32(n), Rows: slices.Clone(labels[n])},
			InclusionProof: treeC.proof(n, sp.Shape),
		}
	}
	c.VanillaProofs = make([][]ChallengeProof, sp.Partitions)
	for k, part := range chals {
		c.VanillaProofs[k] = make([]ChallengeProof, len(part))
		for i, ch := range part {
			cp := &c.VanillaProofs[k][i]
			cp.CommDProof = treeD.proof(ch)
			cp.CommRLastProof = treeR.proof(ch, sp.Shape)
			rc := &cp.ReplicaColumnProofs
			rc.CX = column(ch)
			np := parents[ch]
			rc.DRGParents = make([]ColumnProof, DRGDegree)
			for j, n := range np.drg {
				rc.DRGParents[j] = column(uint64(n))
			}
			rc.ExpParents = make([]ColumnProof, ExpDegree)
			for j, n := range np.exp {
				rc.ExpParents[j] = column(uint64(n))
			}
			cp.LabelingProofs = make([]LabelingProof, sp.Layers)
			for l := range cp.LabelingProofs {
				par := expandedParents(labels, &np, l)
				cp.LabelingProofs[l] = LabelingProof{Parents: par[:], LayerIndex: uint32(l + 1), Node: ch}
			}
			last := &cp.LabelingProofs[sp.Layers-1]
			cp.EncodingProof = LabelingProof{Parents: slices.Clone(last.Parents), LayerIndex: last.LayerIndex, Node: ch}
		}
	}
	return c, nil
}

// partitionChallenges derives every partition's challenges.
func partitionChallenges(sp *SealParams, rid, commR, seed [32]byte) ([][]uint64, error) {
	chals := make([][]uint64, sp.Partitions)
	for k := range chals {
		var err error
		if chals[k], err = Challenges(sp.Proof, rid, commR, seed, k); err != nil {
			return nil, err
		}
	}
	return chals, nil
}

func challengeSet(chals [][]uint64) map[uint64]struct{} {
	set := map[uint64]struct{}{}
	for _, part := range chals {
		for _, ch := range part {
			set[ch] = struct{}{}
		}
	}
	return set
}

// graphParents returns the parents of each of nodes.
func graphParents(ctx context.Context, g *Graph, nodes []uint64) (map[uint64]nodeParents, error) {
	ps := make([]nodeParents, len(nodes))
	err := parallelFor(ctx, len(nodes), func(lo, hi int) error {
		for i := lo; i < hi; i++ {
			var err error
			if ps[i].drg, ps[i].exp, err = g.Parents(nodes[i]); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	out := make(map[uint64]nodeParents, len(nodes))
	for i, n := range nodes {
		out[n] = ps[i]
	}
	return out, nil
}

type nodeParents struct {
	drg [DRGDegree]uint32
	exp [ExpDegree]uint32
}

// makeLabels returns the labels (one per layer) of every computed node
// and of each of their parents. Parents that are not computed get random
// labels; computed nodes get labels computed from their parents', layer by
// layer and, within a layer, by increasing node: DRG parents (same layer)
// precede their node and expander parents are from the layer before, so
// every parent label is final when it is read. Node 0 has no parents: its
// label hashes only replica_id, layer and node (create_label).
func makeLabels(ctx context.Context, rnd *synthRand, sp *SealParams, rid *[32]byte, computed []uint64, parents map[uint64]nodeParents) (map[uint64][]fr.Element, error) {
	labels := make(map[uint64][]fr.Element, min(uint64(len(computed))*(1+DRGDegree+ExpDegree), sp.Nodes))
	for _, n := range computed {
		labels[n] = make([]fr.Element, sp.Layers)
	}
	random := func(n uint64) {
		if _, ok := labels[n]; ok {
			return
		}
		rows := make([]fr.Element, sp.Layers)
		for l := range rows {
			rows[l] = rnd.fr(tagLabel, n, uint64(l))
		}
		labels[n] = rows
	}
	for _, n := range computed {
		np := parents[n]
		for _, p := range np.drg {
			random(uint64(p))
		}
		for _, p := range np.exp {
			random(uint64(p))
		}
	}
	var lb labeler
	for l := 0; l < sp.Layers; l++ {
		for i, n := range computed {
			if i%(1<<12) == 0 {
				if err := ctx.Err(); err != nil {
					return nil, err
				}
			}
			if n == 0 {
				labels[n][l] = lb.label(rid, uint32(l+1), 0, nil)
				continue
			}
			np := parents[n]
			par := expandedParents(labels, &np, l)
			labels[n][l] = lb.label(rid, uint32(l+1), n, par[:])
		}
	}
	return labels, nil
}

// expandedParents lists the 37 label parents of layer index l (0-based):
// the DRG parents' layer-l labels and, from the second layer on, the
// expander parents' previous-layer labels, cycled.
func expandedParents(labels map[uint64][]fr.Element, np *nodeParents, l int) (out [TotalParents]fr.Element) {
	var base [DRGDegree + ExpDegree]fr.Element
	n := 0
	for _, p := range np.drg {
		base[n] = labels[uint64(p)][l]
		n++
	}
	if l > 0 {
		for _, p := range np.exp {
			base[n] = labels[uint64(p)][l-1]
			n++
		}
	}
	for j := range out {
		out[j] = base[j%n]
	}
	return out
}

// treeArities lists the arities of tree R/C's levels, leaf to root.
func treeArities(sp *SealParams) []int {
	s := sp.Shape
	leaves := sp.Nodes
	var tail []int
	if s.Sub > 0 {
		leaves /= uint64(s.Sub)
		tail = append(tail, s.Sub)
	}
	if s.Top > 0 {
		leaves /= uint64(s.Top)
		tail = append(tail, s.Top)
	}
	var out []int
	for ; leaves > 1; leaves /= uint64(s.Base) {
		out = append(out, s.Base)
	}
	return append(out, tail...)
}

// Tags of synthRand's values.
const (
	tagTicket byte = iota + 1
	tagSeed
	tagData
	tagLabel
	tagTreeC
	tagTreeR
)

// synthRand is the seed of a synthetic C1: each value is SHA-256 of the
// seed, a tag and two positions.
type synthRand [32]byte

// bytes returns a random value with the top two bits cleared (a canonical
// field element, as real tickets, seeds, data and labels are).
func (r *synthRand) bytes(tag byte, a, b uint64) [32]byte {
	var in [32 + 1 + 16]byte
	copy(in[:32], r[:])
	in[32] = tag
	binary.LittleEndian.PutUint64(in[33:], a)
	binary.LittleEndian.PutUint64(in[41:], b)
	out := stdsha256.Sum256(in[:])
	out[31] &= 0x3f
	return out
}

func (r *synthRand) fr(tag byte, a, b uint64) fr.Element {
	v := r.bytes(tag, a, b)
	e, _ := fr.LittleEndian.Element(&v) // < 2^254 < r
	return e
}

// blockTree is tree D over data that repeats a block of 2^k random nodes:
// full levels within the block, then one value per level above it.
type blockTree struct {
	k     int
	block [][][32]byte // block[h]: the 2^(k−h) nodes of level h within a block
	upper [][32]byte   // upper[h−k]: every node of level h ≥ k
}

func newBlockTree(rnd *synthRand, depth int) *blockTree {
	t := &blockTree{k: min(depth, dataBlockLevels)}
	level := make([][32]byte, 1<<t.k)
	for i := range level {
		level[i] = rnd.bytes(tagData, uint64(i), 0)
	}
	t.block = append(t.block, level)
	for len(level) > 1 {
		next := make([][32]byte, len(level)/2)
		for i := range next {
			next[i] = sha256.HashNodes(level[2*i], level[2*i+1])
		}
		t.block = append(t.block, next)
		level = next
	}
	t.upper = [][32]byte{level[0]}
	for h := t.k; h < depth; h++ {
		v := t.upper[len(t.upper)-1]
		t.upper = append(t.upper, sha256.HashNodes(v, v))
	}
	return t
}

func (t *blockTree) root() [32]byte { return t.upper[len(t.upper)-1] }

func (t *blockTree) leaf(node uint64) [32]byte { return t.block[0][node&(1<<t.k-1)] }

// proof opens node: below the block level the sibling is in the block,
// above it every node of a level has the same value.
func (t *blockTree) proof(node uint64) merkle.Proof[[32]byte] {
	depth := t.k + len(t.upper) - 1
	m := merkle.Proof[[32]byte]{Kind: merkle.ProofSingle, Root: t.root(), Leaf: t.leaf(node), Base: make([]merkle.ProofElement[[32]byte], depth)}
	for h := range depth {
		var sib [32]byte
		if h < t.k {
			sib = t.block[h][(node>>h)&(1<<(t.k-h)-1)^1]
		} else {
			sib = t.upper[h-t.k]
		}
		m.Base[h] = merkle.ProofElement[[32]byte]{Hashes: [][32]byte{sib}, Index: (node >> h) & 1}
	}
	return m
}

// sparseTree is a Poseidon tree (R or C) of which only the paths of some
// leaves are known: nodes[h] holds, per level, every node on those paths
// and their siblings; the other subtrees exist only as their random roots.
type sparseTree struct {
	arities []int
	nodes   []map[uint64]fr.Element
}

// newSparseTree builds the tree of the given leaves; fill gives the value
// of any other node whose parent is on a path.
func newSparseTree(ctx context.Context, ps *poseidonSet, leaves map[uint64]fr.Element, arities []int, fill func(level int, idx uint64) fr.Element) (*sparseTree, error) {
	t := &sparseTree{arities: arities, nodes: make([]map[uint64]fr.Element, len(arities)+1)}
	t.nodes[0] = make(map[uint64]fr.Element, len(leaves))
	for i, v := range leaves {
		t.nodes[0][i] = v
	}
	for h, a := range arities {
		known := t.nodes[h]
		groups := make([]uint64, 0, len(known))
		for i := range known {
			groups = append(groups, i/uint64(a))
		}
		slices.Sort(groups)
		groups = slices.Compact(groups)
		children := make([]fr.Element, len(groups)*a)
		hashes := make([]fr.Element, len(groups))
		// known is only read while the groups are hashed
		err := parallelFor(ctx, len(groups), func(lo, hi int) error {
			for gi := lo; gi < hi; gi++ {
				ch := children[gi*a : (gi+1)*a]
				for j := range ch {
					idx := groups[gi]*uint64(a) + uint64(j)
					if v, ok := known[idx]; ok {
						ch[j] = v
					} else {
						ch[j] = fill(h, idx)
					}
				}
				var err error
				if hashes[gi], err = ps.hash(ch); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		next := make(map[uint64]fr.Element, len(groups))
		for gi, grp := range groups {
			for j := range a {
				known[grp*uint64(a)+uint64(j)] = children[gi*a+j]
			}
			next[grp] = hashes[gi]
		}
		t.nodes[h+1] = next
	}
	return t, nil
}

func (t *sparseTree) root() fr.Element { return t.nodes[len(t.arities)][0] }

// proof opens leaf idx, which must be one of the tree's leaves, as a
// Single, Sub or Top proof for shape.
func (t *sparseTree) proof(idx uint64, shape merkle.Shape) merkle.Proof[fr.Element] {
	node := idx
	path := make([]merkle.ProofElement[fr.Element], len(t.arities))
	for h, a := range t.arities {
		grp, pos := node/uint64(a), node%uint64(a)
		e := merkle.ProofElement[fr.Element]{Index: pos, Hashes: make([]fr.Element, 0, a-1)}
		for j := range uint64(a) {
			if j != pos {
				e.Hashes = append(e.Hashes, t.nodes[h][grp*uint64(a)+j])
			}
		}
		path[h] = e
		node = grp
	}
	return merkle.NewProof(shape, t.root(), t.nodes[0][idx], path)
}

// parallelFor runs f over [0, n) in GOMAXPROCS contiguous chunks.
func parallelFor(ctx context.Context, n int, f func(lo, hi int) error) error {
	return par.Range(ctx, n, 1, f)
}
