package porep

import (
	"encoding/binary"
	"math/bits"
	"math/rand/v2"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/filecoin-project/go-state-types/abi"

	"github.com/gpuc2/gpuc2/synth/merkle"
)

// ShapeC1 builds a C1 of the right shape for p with random values (test
// data only: no hash in it is real). Challenge nodes, path indices, column
// indices, parents, shared roots, label parents and replica_id are made
// consistent with the graph and the challenge derivation for miner and
// sector, so Validate and Check pass.
func ShapeC1(p abi.RegisteredSealProof, seed uint64, miner abi.ActorID, sector abi.SectorNumber) *C1 {
	sp, err := ParamsFor(p)
	if err != nil {
		panic(err)
	}
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	g := newGraph(sp.Nodes, sp.PoRepID, sp.APIVersion)
	c := &C1{RegisteredProof: p}
	c.CommD = rnd32(r)
	c.Seed = rnd32(r)
	c.Ticket = rnd32(r)
	c.CommR = rndFr(r)
	rid, _ := ReplicaID(p, miner, sector, c.Ticket, c.CommD)
	c.ReplicaID, _ = fr.LittleEndian.Element(&rid)
	commC, commRLast := rndFr(r), rndFr(r)

	c.VanillaProofs = make([][]ChallengeProof, sp.Partitions)
	for k := range c.VanillaProofs {
		chals, err := Challenges(p, rid, leBytes(&c.CommR), c.Seed, k)
		if err != nil {
			panic(err)
		}
		c.VanillaProofs[k] = make([]ChallengeProof, len(chals))
		for i, ch := range chals {
			cp := &c.VanillaProofs[k][i]
			cp.CommDProof = shapeMerkle(r, merkle.Shape{Base: 2}, sp.TreeDDepth, ch, c.CommD, rnd32)
			cp.CommRLastProof = shapeMerkle(r, sp.Shape, baseLevels(&sp), ch, commRLast, rndFr)
			drg, exp, _ := g.Parents(ch)
			col := func(n uint64) ColumnProof {
				rows := make([]fr.Element, sp.Layers)
				for l := range rows {
					rows[l] = rndFr(r)
				}
				return ColumnProof{
					Column:         Column{Index: uint32(n), Rows: rows},
					InclusionProof: shapeMerkle(r, sp.Shape, baseLevels(&sp), n, commC, rndFr),
				}
			}
			rc := &cp.ReplicaColumnProofs
			rc.CX = col(ch)
			for _, n := range drg {
				rc.DRGParents = append(rc.DRGParents, col(uint64(n)))
			}
			for _, n := range exp {
				rc.ExpParents = append(rc.ExpParents, col(uint64(n)))
			}
			for l := 0; l < sp.Layers; l++ {
				var base []fr.Element
				for j := range rc.DRGParents {
					base = append(base, rc.DRGParents[j].Column.Rows[l])
				}
				if l > 0 {
					for j := range rc.ExpParents {
						base = append(base, rc.ExpParents[j].Column.Rows[l-1])
					}
				}
				ps := make([]fr.Element, TotalParents)
				for j := range ps {
					ps[j] = base[j%len(base)]
				}
				cp.LabelingProofs = append(cp.LabelingProofs, LabelingProof{Parents: ps, LayerIndex: uint32(l + 1), Node: ch})
			}
			last := cp.LabelingProofs[sp.Layers-1]
			cp.EncodingProof = LabelingProof{Parents: append([]fr.Element(nil), last.Parents...), LayerIndex: last.LayerIndex, Node: ch}
		}
	}
	return c
}

func baseLevels(sp *SealParams) int {
	leaves := sp.Nodes
	if sp.Shape.Sub > 0 {
		leaves /= uint64(sp.Shape.Sub)
	}
	if sp.Shape.Top > 0 {
		leaves /= uint64(sp.Shape.Top)
	}
	return (bits.Len64(leaves) - 1) / 3
}

func shapeMerkle[T merkle.Domain](r *rand.Rand, s merkle.Shape, base int, node uint64, root T, rv func(*rand.Rand) T) merkle.Proof[T] {
	m := merkle.Proof[T]{Root: root, Leaf: rv(r)}
	level := func(arity int) merkle.ProofElement[T] {
		e := merkle.ProofElement[T]{Index: node & uint64(arity-1), Hashes: make([]T, arity-1)}
		node >>= uint(bits.Len(uint(arity)) - 1)
		for j := range e.Hashes {
			e.Hashes[j] = rv(r)
		}
		return e
	}
	for range base {
		m.Base = append(m.Base, level(s.Base))
	}
	if s.Sub > 0 {
		m.Kind = merkle.ProofSub
		m.Sub = []merkle.ProofElement[T]{level(s.Sub)}
	}
	if s.Top > 0 {
		m.Kind = merkle.ProofTop
		m.Top = []merkle.ProofElement[T]{level(s.Top)}
	}
	return m
}

func rnd32(r *rand.Rand) [32]byte {
	var b [32]byte
	for k := 0; k < 32; k += 8 {
		v := r.Uint64()
		for j := 0; j < 8; j++ {
			b[k+j] = byte(v >> (8 * j))
		}
	}
	b[31] &= 0x3f
	return b
}

func rndFr(r *rand.Rand) fr.Element {
	b := rnd32(r)
	e, _ := fr.LittleEndian.Element(&b)
	return e
}

// Internal hooks for tests.
var (
	NewSynthForTest = func(nodes uint64, replicaID, commR [32]byte, count uint64) (func(i uint64) uint64, func(n int, seed [32]byte, k int) []uint64) {
		s := newSynth(nodes, replicaID, commR, count)
		return s.challenge, s.partitionIndexes
	}
	// ChaChaBlockForTest is one block of ChaCha with a 32-bit counter and a
	// 96-bit nonce (the IETF layout) from the block function ChaCha8Rng uses.
	ChaChaBlockForTest = func(key [32]byte, counter uint32, nonce [12]byte, rounds int) [64]byte {
		s := chachaKeyState(&key)
		s[12] = counter
		for k := 0; k < 3; k++ {
			s[13+k] = binary.LittleEndian.Uint32(nonce[4*k:])
		}
		var out [64]byte
		chachaBlock(&out, &s, rounds)
		return out
	}
)
