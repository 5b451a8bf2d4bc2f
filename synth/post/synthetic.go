package post

import (
	"context"
	"encoding/binary"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/gpuc2/gpuc2/internal/par"
	"github.com/gpuc2/gpuc2/synth/hash/poseidon"
	"github.com/gpuc2/gpuc2/synth/merkle"
)

// SyntheticSectorProofs makes one vanilla proof per sector, as
// GenerateSingleVanillaProof would for sectors of p's size under
// randomness, in the order given (pass them ascending). Each sector's tree R
// is sparse: only the challenged paths are computed, every other node is
// random, so a 32 GiB partition of 2,349 sectors takes seconds. comm_c is
// random and comm_r = Poseidon(comm_c, comm_r_last). Deterministic from
// seed and the sector ids. TEST-ONLY data for tests and benchmarks, never a
// real sector.
func SyntheticSectorProofs(ctx context.Context, p Params, randomness [32]byte, sectorIDs []uint64, seed uint64) ([]*SectorProof, error) {
	arities, err := p.Shape.Arities(p.leaves())
	if err != nil {
		return nil, err
	}
	out := make([]*SectorProof, len(sectorIDs))
	err = par.Range(ctx, len(sectorIDs), 4, func(lo, hi int) error {
		for i := lo; i < hi; i++ {
			challenges := p.SectorChallenges(randomness, sectorIDs[i], i)
			sp, err := syntheticSector(p.Shape, arities, sectorIDs[i], challenges, seed)
			if err != nil {
				return err
			}
			out[i] = sp
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

func syntheticSector(shape merkle.Shape, arities []int, id uint64, challenges []uint64, seed uint64) (*SectorProof, error) {
	rng := rand.New(rand.NewPCG(seed, id))
	random := func() fr.Element {
		var b [32]byte
		for k := 0; k < 32; k += 8 {
			binary.LittleEndian.PutUint64(b[k:], rng.Uint64())
		}
		var e fr.Element
		e.SetBytes(b[:])
		return e
	}
	// levels[l] holds the nodes of level l that the paths need.
	levels := make([]map[uint64]fr.Element, len(arities)+1)
	for l := range levels {
		levels[l] = map[uint64]fr.Element{}
	}
	get := func(l int, j uint64) fr.Element {
		v, ok := levels[l][j]
		if !ok {
			v = random()
			levels[l][j] = v
		}
		return v
	}
	for _, c := range challenges {
		get(0, c)
	}
	children := make([]fr.Element, 0, 16)
	for l, a := range arities {
		parents := map[uint64]bool{}
		for j := range levels[l] {
			parents[j/uint64(a)] = true
		}
		for _, j := range slices.Sorted(maps.Keys(parents)) { // in order, for determinism
			children = children[:0]
			for k := range uint64(a) {
				children = append(children, get(l, j*uint64(a)+k))
			}
			h, err := poseidon.Hash(children)
			if err != nil {
				return nil, err
			}
			levels[l+1][j] = h
		}
	}
	root := levels[len(arities)][0]
	o := Opening{CommC: random(), CommRLast: root, Inclusions: make([]merkle.Proof[fr.Element], len(challenges))}
	for n, c := range challenges {
		elems := make([]merkle.ProofElement[fr.Element], len(arities))
		j := c
		for l, a := range arities {
			idx := j % uint64(a)
			group := j - idx
			hashes := make([]fr.Element, 0, a-1)
			for k := range uint64(a) {
				if k != idx {
					hashes = append(hashes, levels[l][group+k])
				}
			}
			elems[l] = merkle.ProofElement[fr.Element]{Hashes: hashes, Index: idx}
			j /= uint64(a)
		}
		o.Inclusions[n] = merkle.NewProof(shape, root, levels[0][c], elems)
	}
	commR, err := poseidon.Hash([]fr.Element{o.CommC, o.CommRLast})
	if err != nil {
		return nil, fmt.Errorf("post: synthetic sector %d: %w", id, err)
	}
	return &SectorProof{SectorID: id, CommR: commR, Openings: []Opening{o}}, nil
}
