// Package stackedtest generates synthetic, internally consistent PoRep
// witnesses (stacked.Partition) for any stacked.Params: deterministic from a
// seed, with sparse Merkle trees (random untouched subtrees), labels computed
// from pseudo-random parent labels, real encodings, and commitments that
// are the roots of those trees. Such a witness satisfies the circuit but
// comes from no real sector; say so wherever it is used.
//
// Usage:
//
//	w, err := stackedtest.Partition(stacked.Params2KiB, 1)
//	err = (&stacked.Circuit{Params: stacked.Params2KiB, Witness: w}).Synthesize(ctx, synth.NewChecker())
//
// Generate makes several partitions of one sector (shared trees, so they
// share comm_d, comm_c and comm_r_last), with the challenged nodes and the
// parent graph supplied by the caller when they must be the real ones.
package stackedtest

import (
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/gpuc2/gpuc2/synth/merkle"
	"github.com/gpuc2/gpuc2/synth/stacked"
)

// ParentsFunc returns a node's DRG and expander parents, in graph order.
type ParentsFunc func(node uint64) (drg [stacked.DRGParents]uint64, exp [stacked.ExpParents]uint64, err error)

// Options control Generate. The zero value gives one partition with
// pseudo-random challenges and parents.
type Options struct {
	Seed uint64
	// Partitions is the number of partitions (default 1); ignored when
	// Challenges is set.
	Partitions int
	// Challenges lists, per partition, the challenged nodes (each
	// params.Challenges long). Nil: pseudo-random nodes in [1, Nodes).
	Challenges [][]uint64
	// Parents gives the parent graph. Nil: pseudo-random DRG parents below
	// the node and expander parents anywhere (not Filecoin's graph).
	Parents ParentsFunc
	// ReplicaID, if set, is used instead of a pseudo-random one.
	ReplicaID *fr.Element
}

// ErrOptions is returned for options that do not fit the parameters.
var ErrOptions = errors.New("stackedtest: bad options")

// Partition returns one synthetic partition witness for p.
func Partition(p stacked.Params, seed uint64) (*stacked.Partition, error) {
	ws, err := Generate(p, Options{Seed: seed})
	if err != nil {
		return nil, err
	}
	return ws[0], nil
}

// Value kinds that seed the deterministic pseudo-random values.
const (
	tagReplica byte = iota + 1
	tagData
	tagLabel
	tagTreeD
	tagTreeR
	tagTreeC
	tagParents
	tagChallenges
)

type gen struct {
	p       stacked.Params
	o       Options
	rid     fr.Element
	nodes   map[uint64]bool // challenged nodes
	parents map[uint64]*parentSet
	labels  map[labelKey]fr.Element // labels of challenged nodes
	busy    map[labelKey]bool       // labels being computed (cycle check)
}

type labelKey struct {
	node  uint64
	layer int
}

type parentSet struct {
	drg [stacked.DRGParents]uint64
	exp [stacked.ExpParents]uint64
}

// value is a pseudo-random field element below 2^254 (as fr32 data and
// labels are), a function of the seed, a tag and two indices only, so that
// it does not depend on generation order.
func (g *gen) value(tag byte, a, b uint64) fr.Element {
	var in [25]byte
	binary.LittleEndian.PutUint64(in[0:], g.o.Seed)
	in[8] = tag
	binary.LittleEndian.PutUint64(in[9:], a)
	binary.LittleEndian.PutUint64(in[17:], b)
	h := sha256.Sum256(in[:])
	h[31] &= 0x3f
	var e fr.Element
	_ = e.SetBytesCanonical(reverse(h)) // below 2^254 < r: always canonical
	return e
}

func reverse(b [32]byte) []byte {
	out := make([]byte, 32)
	for i := range b {
		out[31-i] = b[i]
	}
	return out
}

func (g *gen) rng(tag byte, a uint64) *rand.Rand {
	return rand.New(rand.NewPCG(g.o.Seed^uint64(tag)<<56, a*0x9e3779b97f4a7c15+1))
}

// Generate returns consistent witnesses for the partitions of one synthetic
// sector: every partition's paths lead to the same three tree roots.
func Generate(p stacked.Params, o Options) ([]*stacked.Partition, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	g := &gen{p: p, o: o, nodes: map[uint64]bool{}, parents: map[uint64]*parentSet{},
		labels: map[labelKey]fr.Element{}, busy: map[labelKey]bool{}}
	chals, err := g.challenges()
	if err != nil {
		return nil, err
	}
	g.rid = g.value(tagReplica, 0, 0)
	if o.ReplicaID != nil {
		g.rid = *o.ReplicaID
	}
	for _, cs := range chals {
		for _, n := range cs {
			g.nodes[n] = true
		}
	}
	ar, _ := p.TreeArities()
	dArities := make([]int, p.TreeDDepth)
	for i := range dArities {
		dArities[i] = 2
	}
	fill := func(tag byte) func(int, uint64) fr.Element {
		return func(l int, idx uint64) fr.Element { return g.value(tag, uint64(l), idx) }
	}
	treeD := newSparseTree(dArities, merkle.SHA256Hash, fill(tagTreeD))
	treeR := newSparseTree(ar, merkle.PoseidonHash, fill(tagTreeR))
	treeC := newSparseTree(ar, merkle.PoseidonHash, fill(tagTreeC))

	// Leaves: data and encoding of every challenged node, column hashes of
	// every challenged node and parent.
	setColumn := func(n uint64) error {
		rows, err := g.column(n)
		if err != nil {
			return err
		}
		h, err := stacked.ColumnHash(rows)
		if err != nil {
			return err
		}
		return treeC.set(n, h)
	}
	for n := range g.nodes {
		ps, err := g.parentsOf(n)
		if err != nil {
			return nil, err
		}
		rows, err := g.column(n)
		if err != nil {
			return nil, err
		}
		data := g.value(tagData, n, 0)
		var enc fr.Element
		enc.Add(&rows[p.Layers-1], &data)
		if err := treeD.set(n, data); err != nil {
			return nil, err
		}
		if err := treeR.set(n, enc); err != nil {
			return nil, err
		}
		if err := setColumn(n); err != nil {
			return nil, err
		}
		for _, q := range append(ps.drg[:], ps.exp[:]...) {
			if err := setColumn(q); err != nil {
				return nil, err
			}
		}
	}
	commD, err := treeD.build()
	if err != nil {
		return nil, fmt.Errorf("tree D: %w", err)
	}
	commRLast, err := treeR.build()
	if err != nil {
		return nil, fmt.Errorf("tree R: %w", err)
	}
	commC, err := treeC.build()
	if err != nil {
		return nil, fmt.Errorf("tree C: %w", err)
	}

	out := make([]*stacked.Partition, len(chals))
	for k, cs := range chals {
		w := &stacked.Partition{ReplicaID: g.rid, CommD: commD, CommC: commC, CommRLast: commRLast,
			CommR: stacked.CommR(commC, commRLast), Challenges: make([]stacked.Challenge, len(cs))}
		for i, n := range cs {
			if err := g.challenge(&w.Challenges[i], n, treeD, treeR, treeC); err != nil {
				return nil, fmt.Errorf("partition %d, challenge %d (node %d): %w", k, i, n, err)
			}
		}
		out[k] = w
	}
	return out, nil
}

func (g *gen) challenges() ([][]uint64, error) {
	if g.o.Challenges != nil {
		for k, cs := range g.o.Challenges {
			if len(cs) != g.p.Challenges {
				return nil, fmt.Errorf("%w: partition %d has %d challenges, want %d", ErrOptions, k, len(cs), g.p.Challenges)
			}
			for i, n := range cs {
				if n >= g.p.Nodes {
					return nil, fmt.Errorf("%w: partition %d, challenge %d: node %d of %d", ErrOptions, k, i, n, g.p.Nodes)
				}
			}
		}
		if len(g.o.Challenges) == 0 {
			return nil, fmt.Errorf("%w: no partitions", ErrOptions)
		}
		return g.o.Challenges, nil
	}
	parts := g.o.Partitions
	if parts <= 0 {
		parts = 1
	}
	if parts > 1<<10 {
		return nil, fmt.Errorf("%w: %d partitions", ErrOptions, parts)
	}
	r := g.rng(tagChallenges, 0)
	out := make([][]uint64, parts)
	for k := range out {
		out[k] = make([]uint64, g.p.Challenges)
		for i := range out[k] {
			// Challenges are never node 0 (challenges.rs: mod (nodes − 1), + 1).
			out[k][i] = 1 + r.Uint64N(g.p.Nodes-1)
		}
	}
	return out, nil
}

func (g *gen) parentsOf(n uint64) (*parentSet, error) {
	if ps, ok := g.parents[n]; ok {
		return ps, nil
	}
	ps := &parentSet{}
	if g.o.Parents != nil {
		var err error
		if ps.drg, ps.exp, err = g.o.Parents(n); err != nil {
			return nil, fmt.Errorf("parents of node %d: %w", n, err)
		}
		for _, q := range append(ps.drg[:], ps.exp[:]...) {
			if q >= g.p.Nodes {
				return nil, fmt.Errorf("%w: parent %d of node %d out of range", ErrOptions, q, n)
			}
		}
	} else {
		r := g.rng(tagParents, n)
		for k := range ps.drg {
			if n > 0 {
				ps.drg[k] = r.Uint64N(n)
			}
		}
		for k := range ps.exp {
			ps.exp[k] = r.Uint64N(g.p.Nodes)
		}
	}
	g.parents[n] = ps
	return ps, nil
}

// column returns a node's labels, layer 1 first.
func (g *gen) column(n uint64) ([]fr.Element, error) {
	rows := make([]fr.Element, g.p.Layers)
	for l := range rows {
		var err error
		if rows[l], err = g.label(n, l+1); err != nil {
			return nil, err
		}
	}
	return rows, nil
}

// label returns a node's label in a layer: computed from its parents'
// labels for a challenged node, pseudo-random otherwise. A challenged node
// can be another's parent, so labels resolve recursively, per layer: DRG
// parents in the same layer (they precede the node in a real graph),
// expander parents in the layer below.
func (g *gen) label(n uint64, layer int) (fr.Element, error) {
	if !g.nodes[n] {
		return g.value(tagLabel, n, uint64(layer-1)), nil
	}
	key := labelKey{n, layer}
	if v, ok := g.labels[key]; ok {
		return v, nil
	}
	if g.busy[key] {
		return fr.Element{}, fmt.Errorf("%w: the parent graph has a cycle through node %d, layer %d", ErrOptions, n, layer)
	}
	g.busy[key] = true
	defer delete(g.busy, key)
	ps, err := g.parentsOf(n)
	if err != nil {
		return fr.Element{}, err
	}
	vals := make([]fr.Element, 0, stacked.DRGParents+stacked.ExpParents)
	for _, q := range ps.drg {
		v, err := g.label(q, layer)
		if err != nil {
			return fr.Element{}, err
		}
		vals = append(vals, v)
	}
	if layer > 1 {
		for _, q := range ps.exp {
			v, err := g.label(q, layer-1)
			if err != nil {
				return fr.Element{}, err
			}
			vals = append(vals, v)
		}
	}
	v, err := stacked.Label(&g.rid, uint32(layer), n, vals)
	if err != nil {
		return fr.Element{}, err
	}
	g.labels[key] = v
	return v, nil
}

func (g *gen) challenge(c *stacked.Challenge, n uint64, treeD, treeR, treeC *sparseTree) error {
	var err error
	c.Node = n
	c.DataLeaf = g.value(tagData, n, 0)
	if c.TreeD, err = treeD.path(n); err != nil {
		return fmt.Errorf("tree D: %w", err)
	}
	if c.TreeR, err = treeR.path(n); err != nil {
		return fmt.Errorf("tree R: %w", err)
	}
	col := func(q uint64) (stacked.Column, error) {
		rows, err := g.column(q)
		if err != nil {
			return stacked.Column{}, err
		}
		path, err := treeC.path(q)
		return stacked.Column{Rows: rows, Path: path}, err
	}
	if c.ColumnC, err = col(n); err != nil {
		return fmt.Errorf("own column: %w", err)
	}
	ps := g.parents[n]
	for k, q := range ps.drg {
		if c.DRG[k], err = col(q); err != nil {
			return fmt.Errorf("DRG parent %d: %w", k, err)
		}
	}
	for k, q := range ps.exp {
		if c.Exp[k], err = col(q); err != nil {
			return fmt.Errorf("expander parent %d: %w", k, err)
		}
	}
	return nil
}
