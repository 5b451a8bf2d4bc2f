package porep

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"math/bits"

	"github.com/filecoin-project/go-state-types/abi"
	"golang.org/x/crypto/blake2b"
)

// Graph is the SDR graph of one registered proof: a bucket-sampled DRG of
// degree 6 (storage-proofs-core drgraph.rs) and a Feistel-permutation
// expander of degree 8 (storage-proofs-porep stacked/vanilla/graph.rs),
// both seeded from porep_id. It is immutable and safe for concurrent use.
type Graph struct {
	nodes   uint64
	api     APIVersion
	drgSeed [28]byte
	keys    [4]uint64 // Feistel keys; the first 3 are used
	// Feistel parameters for nodes·8 elements
	leftMask, rightMask uint64
	halfBits            uint
}

// NewGraph returns the graph of proof type p.
func NewGraph(p abi.RegisteredSealProof) (*Graph, error) {
	sp, err := ParamsFor(p)
	if err != nil {
		return nil, err
	}
	return sp.Graph(), nil
}

// Graph returns the graph of sp's sector size, porep_id and API version.
func (sp SealParams) Graph() *Graph { return newGraph(sp.Nodes, sp.PoRepID, sp.APIVersion) }

func newGraph(nodes uint64, porepID [32]byte, api APIVersion) *Graph {
	g := &Graph{nodes: nodes, api: api}
	drg := domainSeed("Filecoin_DRSample", porepID)
	copy(g.drgSeed[:], drg[:28])
	fk := domainSeed("Filecoin_Feistel", porepID)
	for k := range g.keys {
		g.keys[k] = binary.LittleEndian.Uint64(fk[8*k:])
	}
	// smallest power of 4 ≥ nodes·8 (at least 4), split into two halves
	n := nodes * ExpDegree
	next, log4 := uint64(4), uint(1)
	for next < n {
		next *= 4
		log4++
	}
	g.halfBits = log4
	g.rightMask = 1<<log4 - 1
	g.leftMask = g.rightMask << log4
	return g
}

// domainSeed is SHA256(tag ‖ porep_id).
func domainSeed(tag string, porepID [32]byte) [32]byte {
	h := sha256.New()
	h.Write([]byte(tag))
	h.Write(porepID[:])
	var out [32]byte
	h.Sum(out[:0])
	return out
}

// Nodes returns the number of nodes.
func (g *Graph) Nodes() uint64 { return g.nodes }

// Parents returns the 6 DRG and 8 expander parents of node, in the order
// the labels and the circuit use them. The DRG parents are not sorted: from
// API 1.1.0 on the immediate predecessor comes first, before that last.
// Nodes 0 and 1 have DRG parents all 0.
func (g *Graph) Parents(node uint64) (drg [DRGDegree]uint32, exp [ExpDegree]uint32, err error) {
	if node >= g.nodes {
		return drg, exp, fmt.Errorf("porep: node %d out of range (graph has %d nodes)", node, g.nodes)
	}
	drg = g.drgParents(uint32(node))
	for i := range exp {
		exp[i] = g.expParent(node, uint64(i))
	}
	return drg, exp, nil
}

func (g *Graph) drgParents(node uint32) (p [DRGDegree]uint32) {
	if node < 2 {
		return p
	}
	var seed [32]byte
	copy(seed[:28], g.drgSeed[:])
	binary.LittleEndian.PutUint32(seed[28:], node)
	rng := newChaCha8Rng(&seed)

	const mPrime = DRGDegree - 1
	meta := uint64(node) * mPrime
	// ceil(log2(meta)), exactly as Rust's f64 log2().ceil() for these sizes
	nBuckets := uint64(bits.Len64(meta - 1))

	others, pred := p[:mPrime], mPrime
	if g.api != APIVersion1_0_0 {
		others, pred = p[1:], 0
	}
	for k := range others {
		bucket := rng.nextU64()%nBuckets + 1
		largest := min(meta, uint64(1)<<bucket)
		smallest := max(2, largest>>1)
		dist := smallest + rng.nextU64()%(largest-smallest+1)
		parent := uint32((meta - dist) / mPrime)
		if parent == node {
			parent = node - 1
		}
		others[k] = parent
	}
	p[pred] = node - 1
	return p
}

func (g *Graph) expParent(node, i uint64) uint32 {
	n := g.nodes * ExpDegree
	t := g.feistelEncode(node*ExpDegree + i)
	for t >= n {
		t = g.feistelEncode(t)
	}
	if g.api == APIVersion1_0_0 {
		// API 1.0.0 truncates to u32 before dividing
		return uint32(t) / ExpDegree
	}
	return uint32(t / ExpDegree)
}

// feistelHash is the Feistel round function before masking: the first 8
// bytes (big-endian) of BLAKE2b-512 of right ‖ key, both u64 big-endian.
func feistelHash(right, key uint64) uint64 {
	var in [16]byte
	binary.BigEndian.PutUint64(in[0:], right)
	binary.BigEndian.PutUint64(in[8:], key)
	h := blake2b.Sum512(in[:])
	return binary.BigEndian.Uint64(h[:8])
}

// feistelEncode is 3 Feistel rounds over the two halves of index.
func (g *Graph) feistelEncode(index uint64) uint64 {
	left := (index & g.leftMask) >> g.halfBits
	right := index & g.rightMask
	for r := 0; r < 3; r++ {
		left, right = right, left^(feistelHash(right, g.keys[r])&g.rightMask)
	}
	return left<<g.halfBits | right
}
