package update

import (
	"errors"
	"fmt"
	"math/bits"

	"github.com/filecoin-project/go-state-types/abi"

	"github.com/gpuc2/gpuc2/internal/errtext"
	"github.com/gpuc2/gpuc2/synth/merkle"
)

// HCount is the number of h values a circuit offers (len(hs) in
// constants.rs): the public input selects one with a one-hot h_select.
const HCount = 6

// Params fix the shape of the EmptySectorUpdate circuit of one sector size
// (storage-proofs-update constants.rs and vanilla.rs PublicParams).
type Params struct {
	SectorSize uint64       // bytes
	Nodes      int          // 32-byte nodes, a power of two
	Partitions int          // partition_count
	Challenges int          // challenge_count, per partition
	ApexLeaves int          // apex_leaf_count, per partition
	TreeR      merkle.Shape // trees R old and R new (validate_tree_r_shape)
	Hs         [HCount]int  // the h values the circuit can select
}

// ChallengeBits is log2(Nodes), the height of tree D.
func (p Params) ChallengeBits() int { return bits.TrailingZeros(uint(p.Nodes)) }

// PartitionBits is log2(Partitions), the height of tree D above the apex roots.
func (p Params) PartitionBits() int { return bits.TrailingZeros(uint(p.Partitions)) }

// ApexBits is log2(ApexLeaves), the height of a partition's apex tree.
func (p Params) ApexBits() int { return bits.TrailingZeros(uint(p.ApexLeaves)) }

// RandomBits is the number of bits of a challenge drawn from a digest; the
// partition index fills the rest.
func (p Params) RandomBits() int { return p.ChallengeBits() - p.PartitionBits() }

// DefaultH is h_default: hs[3], the h every filecoin-proofs API uses (10
// for the production sizes).
func (p Params) DefaultH() int { return p.Hs[3] }

// HSelect returns h_select for h: 1 << (h's index in Hs).
func (p Params) HSelect(h int) (uint64, error) {
	for i, v := range p.Hs {
		if v == h {
			return 1 << uint(i), nil
		}
	}
	return 0, fmt.Errorf("%w: h = %d is not one of %v for %d-byte sectors", ErrParams, h, p.Hs, p.SectorSize)
}

// ErrParams reports an unknown sector size, proof type or h.
var ErrParams = errors.New("update: unsupported parameters")

// The sector sizes storage-proofs-update allows, in nodes, with the tree-R
// shape validate_tree_r_shape requires for each (the small ones are test
// sizes of tests/circuit.rs; 2 KiB, 8 MiB, 512 MiB, 32 GiB and 64 GiB are
// the registered proof types').
var sizes = []struct {
	nodes int
	shape merkle.Shape
}{
	{1 << 5, merkle.Shape{Base: 8, Sub: 4}},          // 1 KiB
	{1 << 6, merkle.Shape{Base: 8}},                  // 2 KiB
	{1 << 7, merkle.Shape{Base: 8, Sub: 2}},          // 4 KiB
	{1 << 8, merkle.Shape{Base: 8, Sub: 4}},          // 8 KiB
	{1 << 9, merkle.Shape{Base: 8, Sub: 8}},          // 16 KiB
	{1 << 10, merkle.Shape{Base: 8, Sub: 8, Top: 2}}, // 32 KiB
	{1 << 18, merkle.Shape{Base: 8}},                 // 8 MiB
	{1 << 19, merkle.Shape{Base: 8, Sub: 2}},         // 16 MiB
	{1 << 24, merkle.Shape{Base: 8}},                 // 512 MiB
	{1 << 30, merkle.Shape{Base: 8, Sub: 8}},         // 32 GiB
	{1 << 31, merkle.Shape{Base: 8, Sub: 8, Top: 2}}, // 64 GiB
}

// ParamsForSectorSize returns the parameters of a sector size in bytes:
// one of the registered sizes or a test size of storage-proofs-update
// (1, 4, 8, 16, 32 KiB, 16 MiB).
func ParamsForSectorSize(size uint64) (Params, error) {
	for _, s := range sizes {
		if uint64(s.nodes)<<5 != size {
			continue
		}
		n := s.nodes
		p := Params{SectorSize: size, Nodes: n, TreeR: s.shape}
		// constants.rs partition_count, challenge_count, apex_leaf_count, hs
		switch {
		case n <= 1<<8:
			p.Partitions = 1
		case n <= 1<<10:
			p.Partitions = 2
		case n <= 1<<19:
			p.Partitions = 4
		default:
			p.Partitions = 16
		}
		p.Challenges = 86
		if n <= 1<<19 {
			p.Challenges = 10
		}
		p.ApexLeaves = 128
		if n <= 1<<8 {
			p.ApexLeaves = 8
		}
		p.Hs = [HCount]int{7, 8, 9, 10, 11, 12}
		if n <= 1<<10 {
			p.Hs = [HCount]int{1, 1, 1, 1, 1, 1}
		}
		return p, nil
	}
	return Params{}, fmt.Errorf("%w: sector size %d bytes", ErrParams, size)
}

// ParamsFor returns the parameters of a registered update proof type. Every
// abi.RegisteredUpdateProof (StackedDrg{2KiB,8MiB,512MiB,32GiB,64GiB}V1)
// proves the EmptySectorUpdate circuit of this package: filecoin-proofs-api
// maps them all to API version 1.1.0 and filecoin-proofs' update.rs to
// EmptySectorUpdateCompound. The EmptySectorUpdate-Poseidon circuit
// (storage-proofs-update src/poseidon, one partition, its own
// "empty-sector-update-poseidon" parameters) has no proof type on chain and
// is not served (ErrPoseidonVariant).
func ParamsFor(p abi.RegisteredUpdateProof) (Params, error) {
	size, ok := updateSizes[p]
	if !ok {
		return Params{}, fmt.Errorf("%w: unknown update proof type %d", ErrParams, int64(p))
	}
	return ParamsForSectorSize(size)
}

var updateSizes = map[abi.RegisteredUpdateProof]uint64{
	abi.RegisteredUpdateProof_StackedDrg2KiBV1:   2 << 10,
	abi.RegisteredUpdateProof_StackedDrg8MiBV1:   8 << 20,
	abi.RegisteredUpdateProof_StackedDrg512MiBV1: 512 << 20,
	abi.RegisteredUpdateProof_StackedDrg32GiBV1:  32 << 30,
	abi.RegisteredUpdateProof_StackedDrg64GiBV1:  64 << 30,
}

// ProofName is the Rust enum name of p ("StackedDrg32GiBV1").
func ProofName(p abi.RegisteredUpdateProof) string {
	if size, ok := updateSizes[p]; ok {
		return "StackedDrg" + sizeName(size) + "V1"
	}
	return fmt.Sprintf("RegisteredUpdateProof(%d)", int64(p))
}

func sizeName(size uint64) string {
	switch {
	case size >= 1<<30:
		return fmt.Sprintf("%dGiB", size>>30)
	case size >= 1<<20:
		return fmt.Sprintf("%dMiB", size>>20)
	}
	return fmt.Sprintf("%dKiB", size>>10)
}

// ProofForSectorSize returns the update proof type of a sector size as
// Filecoin writes it (2KiB … 64GiB).
func ProofForSectorSize(size string) (abi.RegisteredUpdateProof, error) {
	for p, s := range updateSizes {
		if sizeName(s) == size {
			return p, nil
		}
	}
	return 0, fmt.Errorf("%w: sector size %s: want 2KiB, 8MiB, 512MiB, 32GiB or 64GiB", ErrParams, errtext.Quote(size))
}
