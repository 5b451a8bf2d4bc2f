package update

import (
	"errors"
	"fmt"
	"math"
	"sync"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/gpuc2/gpuc2/synth/hash/poseidon"
)

// randomnessConstants are POSEIDON_CONSTANTS_GEN_RANDOMNESS: arity 2,
// HashType::Custom(CType::Arbitrary(1)), i.e. domain tag 2^40. phi, rho
// and the challenge digests are hashed with them.
var randomnessConstants = sync.OnceValue(func() *poseidon.Constants {
	c, err := poseidon.CustomConstants(2, 1)
	if err != nil {
		panic(err) // arity 2 and id 1 are always valid
	}
	return c
})

func hashRandomness(a, b fr.Element) fr.Element {
	h, _ := randomnessConstants().Hash([]fr.Element{a, b}) // two inputs for arity 2: cannot fail
	return h
}

// Phi is vanilla.rs phi: Poseidon-randomness(comm_d_new, comm_r_old).
func Phi(commDNew, commROld fr.Element) fr.Element { return hashRandomness(commDNew, commROld) }

// Rho is vanilla.rs rho: Poseidon-randomness(phi, high), where high is the
// h high bits of a node index; a new replica node is old + data·rho.
func Rho(phi fr.Element, high uint32) fr.Element {
	var h fr.Element
	h.SetUint64(uint64(high))
	return hashRandomness(phi, h)
}

// digestLayout is how challenges.rs draws a partition's challenges: each
// digest Poseidon-randomness(comm_r_new, index) gives perDigest challenges
// of randomBits bits (from bit 0 up); partition k uses the digest indices
// k·perPartition … (k+1)·perPartition − 1.
type digestLayout struct{ randomBits, perDigest, perPartition int }

func (p Params) digests() digestLayout {
	rb := p.RandomBits()
	per := frCapacity / rb
	// challenges.rs and gadgets.rs round up in f32; exact for these sizes,
	// and kept in the same arithmetic on purpose.
	return digestLayout{rb, per, int(math.Ceil(float64(float32(p.Challenges) / float32(per))))}
}

// frCapacity is Fr::CAPACITY, the bits a digest lends its challenges.
const frCapacity = 254

// Challenges returns partition k's challenges (node indices), as
// challenges.rs Challenges::new derives them from comm_r_new: every one
// lies in the k-th of Partitions equal slices of the sector.
func Challenges(p Params, commRNew fr.Element, k int) ([]uint32, error) {
	if k < 0 || k >= p.Partitions {
		return nil, fmt.Errorf("%w: partition %d of %d", ErrParams, k, p.Partitions)
	}
	d := p.digests()
	out := make([]uint32, 0, p.Challenges)
	var bits [4]uint64
	for i := 0; i < p.Challenges; i++ {
		if i%d.perDigest == 0 {
			var idx fr.Element
			idx.SetUint64(uint64(k*d.perPartition + i/d.perDigest))
			digest := hashRandomness(commRNew, idx)
			bits = digest.Bits()
		}
		start := (i % d.perDigest) * d.randomBits
		var c uint32
		for b := 0; b < d.randomBits; b++ {
			pos := start + b
			c |= uint32(bits[pos>>6]>>(uint(pos)&63)&1) << uint(b)
		}
		out = append(out, c|uint32(k)<<uint(d.randomBits))
	}
	return out, nil
}

// KAndHSelect packs a partition index and h into the first public input:
// k | h_select << PartitionBits.
func KAndHSelect(p Params, k, h int) (uint64, error) {
	if k < 0 || k >= p.Partitions {
		return 0, fmt.Errorf("%w: partition %d of %d", ErrParams, k, p.Partitions)
	}
	hs, err := p.HSelect(h)
	if err != nil {
		return 0, err
	}
	return uint64(k) | hs<<uint(p.PartitionBits()), nil
}

// PublicInputs returns partition k's Groth16 public inputs (without ONE),
// as circuit.rs PublicInputs::new and to_vec compute them:
// k_and_h_select, comm_r_old, comm_d_new, comm_r_new.
func PublicInputs(p Params, k, h int, commROld, commDNew, commRNew fr.Element) ([]fr.Element, error) {
	kh, err := KAndHSelect(p, k, h)
	if err != nil {
		return nil, err
	}
	var khe fr.Element
	khe.SetUint64(kh)
	return []fr.Element{khe, commROld, commDNew, commRNew}, nil
}

// ErrBadCommitment reports a commitment that cannot be a sector's.
var ErrBadCommitment = errors.New("update: bad commitment")

// CommitmentFromBytes reads a 32-byte commitment (comm_r_old, comm_d_new or
// comm_r_new, little-endian, as a CID's digest holds it) as a field
// element. It must be canonical (filecoin-proofs' try_from_bytes) and not
// zero (get_sector_update_inputs refuses zero commitments); name is used in
// the error.
func CommitmentFromBytes(name string, b [32]byte) (fr.Element, error) {
	if b == [32]byte{} {
		return fr.Element{}, fmt.Errorf("%w: %s is all zero", ErrBadCommitment, name)
	}
	e, err := fr.LittleEndian.Element(&b)
	if err != nil {
		return fr.Element{}, fmt.Errorf("%w: %s %x is not a canonical field element (>= r)", ErrBadCommitment, name, b)
	}
	return e, nil
}
