package update

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/gpuc2/gpuc2/synth/merkle"
	"github.com/gpuc2/gpuc2/synth/porep"
)

// Synthetic is a made-up sector update, deterministic from a seed: a random
// old replica (tree R old) and comm_c, random new data (tree D new), the
// new replica encoded from them with rho (tree R new), the commitments that
// follow and every partition's vanilla proof, as
// generate_partition_proofs would return them. TEST-ONLY data for tests,
// examples and benchmarks, never a real sector.
type Synthetic struct {
	Params
	H                            int // DefaultH
	CommROld, CommDNew, CommRNew fr.Element
	Proofs                       []*PartitionProof
}

// maxSyntheticNodes bounds NewSynthetic: it builds the three trees in full
// (8 MiB: 2^18 nodes, about a second). Larger sizes would need sparse
// trees, which the challenges forbid here: they derive from comm_r_new,
// which commits to every node of the new replica.
const maxSyntheticNodes = 1 << 18

// NewSynthetic makes a synthetic update for p (up to 8 MiB).
func NewSynthetic(p Params, seed uint64) (*Synthetic, error) {
	if p.Nodes > maxSyntheticNodes {
		return nil, fmt.Errorf("%w: synthetic update inputs are built in full, up to %d nodes (8 MiB); %d-byte sectors are not supported", ErrParams, maxSyntheticNodes, p.SectorSize)
	}
	var key [32]byte
	binary.LittleEndian.PutUint64(key[:], seed)
	copy(key[8:], "gpuc2 synthetic sector update")
	rng := rand.New(rand.NewChaCha8(key))
	random := func() fr.Element {
		var b [32]byte
		for i := 0; i < 4; i++ {
			binary.LittleEndian.PutUint64(b[8*i:], rng.Uint64())
		}
		var e fr.Element
		e.SetBytes(b[:]) // reduced mod r
		return e
	}

	s := &Synthetic{Params: p, H: p.DefaultH()}
	rOld, data, rNew := make([]fr.Element, p.Nodes), make([]fr.Element, p.Nodes), make([]fr.Element, p.Nodes)
	for i := range rOld {
		rOld[i] = random()
		// tree D leaves are SHA-254 sized (Fr32 data): the top two bits clear
		data[i] = random()
		b := leBytes(&data[i])
		b[31] &= 0x3f
		data[i], _ = fr.LittleEndian.Element(&b)
	}
	commC := random()

	treeROld, err := merkle.NewPoseidon(rOld, p.TreeR)
	if err != nil {
		return nil, err
	}
	treeD, err := merkle.NewSHA256(data)
	if err != nil {
		return nil, err
	}
	if s.CommROld, err = hash2(commC, treeROld.Root()); err != nil {
		return nil, err
	}
	s.CommDNew = treeD.Root()
	phi := Phi(s.CommDNew, s.CommROld)
	shift := uint(p.ChallengeBits() - s.H)
	rhos := map[uint32]fr.Element{}
	for i := range rNew {
		high := uint32(i >> shift)
		rho, ok := rhos[high]
		if !ok {
			rho = Rho(phi, high)
			rhos[high] = rho
		}
		var t fr.Element
		t.Mul(&data[i], &rho)
		rNew[i].Add(&rOld[i], &t)
	}
	treeRNew, err := merkle.NewPoseidon(rNew, p.TreeR)
	if err != nil {
		return nil, err
	}
	if s.CommRNew, err = hash2(commC, treeRNew.Root()); err != nil {
		return nil, err
	}

	apex, err := apexNodes(p, data)
	if err != nil {
		return nil, err
	}
	for k := 0; k < p.Partitions; k++ {
		pp := &PartitionProof{CommC: commC}
		for _, a := range apex[k*p.ApexLeaves : (k+1)*p.ApexLeaves] {
			pp.ApexLeaves = append(pp.ApexLeaves, leBytes(&a))
		}
		chals, err := Challenges(p, s.CommRNew, k)
		if err != nil {
			return nil, err
		}
		for _, c := range chals {
			var cp ChallengeProof
			if cp.ROld, err = rProof(p.TreeR, treeROld, int(c), rOld[c]); err != nil {
				return nil, err
			}
			if cp.DNew, err = dProof(treeD, int(c), data[c]); err != nil {
				return nil, err
			}
			if cp.RNew, err = rProof(p.TreeR, treeRNew, int(c), rNew[c]); err != nil {
				return nil, err
			}
			pp.Challenges = append(pp.Challenges, cp)
		}
		s.Proofs = append(s.Proofs, pp)
	}
	return s, nil
}

// Witness returns partition k's circuit witness.
func (s *Synthetic) Witness(k int) (*Partition, error) {
	return WitnessFor(s.Params, k, s.H, s.Proofs[k], s.CommROld, s.CommDNew, s.CommRNew)
}

// PublicInputs returns partition k's public inputs.
func (s *Synthetic) PublicInputs(k int) ([]fr.Element, error) {
	return PublicInputs(s.Params, k, s.H, s.CommROld, s.CommDNew, s.CommRNew)
}

func hash2(a, b fr.Element) (fr.Element, error) { return merkle.PoseidonHash([]fr.Element{a, b}) }

// apexNodes returns the nodes of tree D at the apex-leaf height, left to
// right: Partitions·ApexLeaves of them.
func apexNodes(p Params, data []fr.Element) ([]fr.Element, error) {
	toApex := p.ChallengeBits() - p.PartitionBits() - p.ApexBits()
	if toApex == 0 {
		return data, nil
	}
	width := 1 << uint(toApex)
	out := make([]fr.Element, len(data)/width)
	for j := range out {
		t, err := merkle.NewSHA256(data[j*width : (j+1)*width])
		if err != nil {
			return nil, err
		}
		out[j] = t.Root()
	}
	return out, nil
}

// rProof opens leaf i of a tree R as storage-proofs-core's MerkleProof.
func rProof(s merkle.Shape, t *merkle.Tree, i int, leaf fr.Element) (porep.MerkleProof[fr.Element], error) {
	path, err := t.Path(i)
	if err != nil {
		return porep.MerkleProof[fr.Element]{}, err
	}
	elems := make([]porep.PathElement[fr.Element], len(path))
	for l, e := range path {
		elems[l] = porep.PathElement[fr.Element]{Hashes: e.Siblings, Index: uint64(e.Index)}
	}
	m := porep.MerkleProof[fr.Element]{Kind: porep.ProofSingle, Root: t.Root(), Leaf: leaf}
	n := len(elems)
	switch {
	case s.Top != 0:
		m.Kind, m.Base, m.Sub, m.Top = porep.ProofTop, elems[:n-2], elems[n-2:n-1], elems[n-1:]
	case s.Sub != 0:
		m.Kind, m.Base, m.Sub = porep.ProofSub, elems[:n-1], elems[n-1:]
	default:
		m.Base = elems
	}
	return m, nil
}

// dProof opens leaf i of tree D as a Single MerkleProof of 32-byte values.
func dProof(t *merkle.Tree, i int, leaf fr.Element) (porep.MerkleProof[[32]byte], error) {
	path, err := t.Path(i)
	if err != nil {
		return porep.MerkleProof[[32]byte]{}, err
	}
	root := t.Root()
	m := porep.MerkleProof[[32]byte]{Kind: porep.ProofSingle, Root: leBytes(&root), Leaf: leBytes(&leaf)}
	for _, e := range path {
		m.Base = append(m.Base, porep.PathElement[[32]byte]{Hashes: [][32]byte{leBytes(&e.Siblings[0])}, Index: uint64(e.Index)})
	}
	return m, nil
}
