package update

import (
	"encoding/binary"
	"math/rand/v2"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	commcid "github.com/filecoin-project/go-fil-commcid"
	"github.com/ipfs/go-cid"

	"github.com/gpuc2/gpuc2/synth/merkle"
)

// Synthetic is a made-up sector update, deterministic from a seed: an old
// replica (tree R old) and comm_c, new data (tree D new), the new replica
// encoded from them with rho (tree R new), the commitments that follow and
// every partition's vanilla proof, as generate_partition_proofs would
// return them. TEST-ONLY data for tests, examples and benchmarks, never a
// real sector.
//
// Up to 8 MiB every node is random and the trees are built in full. Larger
// sectors cannot be sparse as synth/porep's SyntheticC1 is (the challenges
// derive from comm_r_new, which commits to every node of the new replica),
// so they are structured instead: old replica and data repeat with a period
// of 64 random nodes, and the new replica differs from block to block of
// nodes that share a rho; then a tree's nodes repeat too and each is
// computed once (lazyTree). Such a sector is cheap at 32 GiB, but its
// lower tree levels have equal siblings, so order bugs there show only in
// the small, fully random ones.
type Synthetic struct {
	Params
	H                            int // DefaultH
	CommROld, CommDNew, CommRNew fr.Element
	Proofs                       []*PartitionProof
}

// maxFullNodes is the largest sector NewSynthetic builds in full (8 MiB:
// 2^18 nodes, about a second).
const maxFullNodes = 1 << 18

// structuredPeriod is the period of a structured sector's old replica and
// data (a power of two, so that it divides the larger subtree sizes).
const structuredPeriod = 64

// NewSynthetic makes a synthetic update for p: random up to 8 MiB,
// structured beyond.
func NewSynthetic(p Params, seed uint64) (*Synthetic, error) {
	return newSynthetic(p, seed, p.Nodes > maxFullNodes)
}

// CIDs are s's commitments as filecoin-ffi's update calls take them:
// comm_r_old and comm_r_new as replica (sealed) CIDs, comm_d_new as a data
// (unsealed) CID.
func (s *Synthetic) CIDs() (oldSealed, newSealed, newUnsealed cid.Cid, err error) {
	old, nw, d := CommitmentBytes(s.CommROld), CommitmentBytes(s.CommRNew), CommitmentBytes(s.CommDNew)
	if oldSealed, err = commcid.ReplicaCommitmentV1ToCID(old[:]); err != nil {
		return
	}
	if newSealed, err = commcid.ReplicaCommitmentV1ToCID(nw[:]); err != nil {
		return
	}
	newUnsealed, err = commcid.DataCommitmentV1ToCID(d[:])
	return
}

// tree is what a synthetic update opens: a merkle.Tree or a lazyTree.
type tree interface {
	Root() fr.Element
	Path(i int) (merkle.Path, error)
}

func newSynthetic(p Params, seed uint64, structured bool) (*Synthetic, error) {
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

	n := p.Nodes
	if structured {
		n = min(n, structuredPeriod)
	}
	rOld, data := make([]fr.Element, n), make([]fr.Element, n)
	for i := range rOld {
		rOld[i] = random()
		// tree D leaves are SHA-254 sized (Fr32 data): the top two bits clear
		data[i] = random()
		b := leBytes(&data[i])
		b[31] &= 0x3f
		data[i], _ = fr.LittleEndian.Element(&b)
	}
	commC := random()
	s := &Synthetic{Params: p, H: p.DefaultH()}
	shift := uint(p.ChallengeBits() - s.H)
	rArities, err := p.TreeR.Arities(p.Nodes)
	if err != nil {
		return nil, err
	}
	dArities := make([]int, p.ChallengeBits())
	for l := range dArities {
		dArities[l] = 2
	}

	var treeROld, treeD tree
	if structured {
		period := uint64(len(rOld))
		treeROld, err = newLazy(rArities, period, 64, func(pos, _ uint64) fr.Element { return rOld[pos] }, merkle.PoseidonHash)
		if err == nil {
			treeD, err = newLazy(dArities, period, 64, func(pos, _ uint64) fr.Element { return data[pos] }, merkle.SHA256Hash)
		}
	} else {
		treeROld, err = merkle.NewPoseidon(rOld, p.TreeR)
		if err == nil {
			treeD, err = merkle.NewSHA256(data)
		}
	}
	if err != nil {
		return nil, err
	}
	if s.CommROld, err = hash2(commC, treeROld.Root()); err != nil {
		return nil, err
	}
	s.CommDNew = treeD.Root()

	phi := Phi(s.CommDNew, s.CommROld)
	rhos := map[uint64]fr.Element{}
	newNode := func(pos, high uint64) fr.Element {
		rho, ok := rhos[high]
		if !ok {
			rho = Rho(phi, uint32(high))
			rhos[high] = rho
		}
		var v fr.Element
		v.Mul(&data[pos], &rho)
		return *v.Add(&v, &rOld[pos])
	}
	var treeRNew tree
	var rNew func(i uint64) fr.Element
	if structured {
		treeRNew, err = newLazy(rArities, uint64(len(rOld)), shift, newNode, merkle.PoseidonHash)
		rNew = func(i uint64) fr.Element { return newNode(i%uint64(len(rOld)), i>>shift) }
	} else {
		all := make([]fr.Element, p.Nodes)
		for i := range all {
			all[i] = newNode(uint64(i), uint64(i)>>shift)
		}
		treeRNew, err = merkle.NewPoseidon(all, p.TreeR)
		rNew = func(i uint64) fr.Element { return all[i] }
	}
	if err != nil {
		return nil, err
	}
	if s.CommRNew, err = hash2(commC, treeRNew.Root()); err != nil {
		return nil, err
	}

	apex, err := apexNodes(p, data, treeD, structured)
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
			pos := uint64(c) % uint64(len(rOld))
			var cp ChallengeProof
			if cp.ROld, err = rProof(p.TreeR, treeROld, int(c), rOld[pos]); err != nil {
				return nil, err
			}
			if cp.DNew, err = dProof(treeD, int(c), data[pos]); err != nil {
				return nil, err
			}
			if cp.RNew, err = rProof(p.TreeR, treeRNew, int(c), rNew(uint64(c))); err != nil {
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
func apexNodes(p Params, data []fr.Element, treeD tree, structured bool) ([]fr.Element, error) {
	toApex := p.ChallengeBits() - p.PartitionBits() - p.ApexBits()
	out := make([]fr.Element, p.Partitions*p.ApexLeaves)
	if structured {
		lt := treeD.(*lazyTree)
		for j := range out {
			var err error
			if out[j], err = lt.node(toApex, uint64(j)); err != nil {
				return nil, err
			}
		}
		return out, nil
	}
	if toApex == 0 {
		return data, nil
	}
	width := 1 << uint(toApex)
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
func rProof(s merkle.Shape, t tree, i int, leaf fr.Element) (merkle.Proof[fr.Element], error) {
	path, err := t.Path(i)
	if err != nil {
		return merkle.Proof[fr.Element]{}, err
	}
	elems := make([]merkle.ProofElement[fr.Element], len(path))
	for l, e := range path {
		elems[l] = merkle.ProofElement[fr.Element]{Hashes: e.Siblings, Index: uint64(e.Index)}
	}
	return merkle.NewProof(s, t.Root(), leaf, elems), nil
}

// dProof opens leaf i of tree D as a Single MerkleProof of 32-byte values.
func dProof(t tree, i int, leaf fr.Element) (merkle.Proof[[32]byte], error) {
	path, err := t.Path(i)
	if err != nil {
		return merkle.Proof[[32]byte]{}, err
	}
	root := t.Root()
	m := merkle.Proof[[32]byte]{Kind: merkle.ProofSingle, Root: leBytes(&root), Leaf: leBytes(&leaf)}
	for _, e := range path {
		m.Base = append(m.Base, merkle.ProofElement[[32]byte]{Hashes: [][32]byte{leBytes(&e.Siblings[0])}, Index: uint64(e.Index)})
	}
	return m, nil
}
