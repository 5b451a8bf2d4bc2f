package porep

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// RegisteredSealProof is a seal proof type; the values are the wire values of
// go-state-types abi.RegisteredSealProof and of filecoin-ffi.
type RegisteredSealProof int64

// Registered seal proofs, named as in go-state-types abi.
const (
	RegisteredSealProof_StackedDrg2KiBV1   RegisteredSealProof = 0
	RegisteredSealProof_StackedDrg8MiBV1   RegisteredSealProof = 1
	RegisteredSealProof_StackedDrg512MiBV1 RegisteredSealProof = 2
	RegisteredSealProof_StackedDrg32GiBV1  RegisteredSealProof = 3
	RegisteredSealProof_StackedDrg64GiBV1  RegisteredSealProof = 4

	RegisteredSealProof_StackedDrg2KiBV1_1   RegisteredSealProof = 5
	RegisteredSealProof_StackedDrg8MiBV1_1   RegisteredSealProof = 6
	RegisteredSealProof_StackedDrg512MiBV1_1 RegisteredSealProof = 7
	RegisteredSealProof_StackedDrg32GiBV1_1  RegisteredSealProof = 8
	RegisteredSealProof_StackedDrg64GiBV1_1  RegisteredSealProof = 9

	RegisteredSealProof_StackedDrg2KiBV1_1_Feat_SyntheticPoRep   RegisteredSealProof = 10
	RegisteredSealProof_StackedDrg8MiBV1_1_Feat_SyntheticPoRep   RegisteredSealProof = 11
	RegisteredSealProof_StackedDrg512MiBV1_1_Feat_SyntheticPoRep RegisteredSealProof = 12
	RegisteredSealProof_StackedDrg32GiBV1_1_Feat_SyntheticPoRep  RegisteredSealProof = 13
	RegisteredSealProof_StackedDrg64GiBV1_1_Feat_SyntheticPoRep  RegisteredSealProof = 14

	RegisteredSealProof_StackedDrg2KiBV1_2_Feat_NiPoRep   RegisteredSealProof = 15
	RegisteredSealProof_StackedDrg8MiBV1_2_Feat_NiPoRep   RegisteredSealProof = 16
	RegisteredSealProof_StackedDrg512MiBV1_2_Feat_NiPoRep RegisteredSealProof = 17
	RegisteredSealProof_StackedDrg32GiBV1_2_Feat_NiPoRep  RegisteredSealProof = 18
	RegisteredSealProof_StackedDrg64GiBV1_2_Feat_NiPoRep  RegisteredSealProof = 19
)

// SectorNumber is a sector's number within its miner (go-state-types abi).
type SectorNumber uint64

// ActorID is a miner actor's ID-address payload (go-state-types abi).
type ActorID uint64

// APIVersion is the rust-fil-proofs API version a proof type runs under.
type APIVersion int

// API versions (storage-proofs-core api_version.rs).
const (
	APIVersion1_0_0 APIVersion = iota
	APIVersion1_1_0
	APIVersion1_2_0
)

func (v APIVersion) String() string {
	switch v {
	case APIVersion1_0_0:
		return "1.0.0"
	case APIVersion1_1_0:
		return "1.1.0"
	case APIVersion1_2_0:
		return "1.2.0"
	}
	return fmt.Sprintf("APIVersion(%d)", int(v))
}

// ChallengeKind says how a proof type derives its PoRep challenges.
type ChallengeKind int

// Challenge derivations (storage-proofs-porep challenges.rs).
const (
	ChallengesInteractive    ChallengeKind = iota // SHA256(replica_id ‖ seed ‖ j)
	ChallengesSynthetic                           // selected from the synthetic set with seed
	ChallengesNonInteractive                      // SHA256(tag ‖ replica_id ‖ comm_r ‖ j)
)

func (k ChallengeKind) String() string {
	switch k {
	case ChallengesInteractive:
		return "interactive"
	case ChallengesSynthetic:
		return "synthetic"
	case ChallengesNonInteractive:
		return "non-interactive"
	}
	return fmt.Sprintf("ChallengeKind(%d)", int(k))
}

// TreeShape is the arity of the base, sub and top levels of tree R and
// tree C (0 = level absent), e.g. 8-8-0 for 32 GiB.
type TreeShape struct {
	Base, Sub, Top int
}

func (s TreeShape) String() string { return fmt.Sprintf("%d-%d-%d", s.Base, s.Sub, s.Top) }

// SealParams are the fixed parameters of one registered seal proof.
type SealParams struct {
	Proof                  RegisteredSealProof
	SectorSize             uint64 // bytes
	Nodes                  uint64 // SectorSize / 32
	Layers                 int
	Partitions             int
	ChallengesPerPartition int
	Shape                  TreeShape
	TreeDDepth             int // log2(Nodes)
	APIVersion             APIVersion
	Challenges             ChallengeKind
	PoRepID                [32]byte
}

const (
	kib = uint64(1) << 10
	mib = kib << 10
	gib = mib << 10
)

type sizeClass struct {
	bytes      uint64
	name       string // as in the Rust enum names
	layers     int
	partitions int // interactive
	challenges int // per partition, interactive
	niParts    int
	shape      TreeShape
}

var sizeClasses = [5]sizeClass{
	{2 * kib, "2KiB", 2, 1, 2, 13, TreeShape{8, 0, 0}},
	{8 * mib, "8MiB", 2, 1, 2, 13, TreeShape{8, 0, 0}},
	{512 * mib, "512MiB", 2, 1, 2, 13, TreeShape{8, 0, 0}},
	{32 * gib, "32GiB", 11, 10, 18, 126, TreeShape{8, 8, 0}},
	{64 * gib, "64GiB", 11, 10, 18, 126, TreeShape{8, 8, 2}},
}

var variantSuffix = [4]string{"V1", "V1_1", "V1_1_Feat_SyntheticPoRep", "V1_2_Feat_NonInteractivePoRep"}

// ErrUnknownProof is returned for a RegisteredSealProof outside 0–19.
var ErrUnknownProof = errors.New("porep: unknown registered seal proof")

func (p RegisteredSealProof) split() (size, variant int, err error) {
	if p < 0 || p > 19 {
		return 0, 0, fmt.Errorf("%w: %d", ErrUnknownProof, int64(p))
	}
	return int(p % 5), int(p / 5), nil
}

// String gives the name used by rust-filecoin-proofs-api (and in C1 JSON),
// e.g. "StackedDrg32GiBV1_1".
func (p RegisteredSealProof) String() string {
	s, v, err := p.split()
	if err != nil {
		return fmt.Sprintf("RegisteredSealProof(%d)", int64(p))
	}
	return "StackedDrg" + sizeClasses[s].name + variantSuffix[v]
}

// ParseRegisteredSealProof maps a Rust enum name (as String returns) back.
func ParseRegisteredSealProof(name string) (RegisteredSealProof, error) {
	for p := RegisteredSealProof(0); p <= 19; p++ {
		if p.String() == name {
			return p, nil
		}
	}
	return 0, fmt.Errorf("%w: %q", ErrUnknownProof, name)
}

// Params returns every fixed parameter of p.
func (p RegisteredSealProof) Params() (SealParams, error) {
	s, v, err := p.split()
	if err != nil {
		return SealParams{}, err
	}
	c := sizeClasses[s]
	sp := SealParams{
		Proof:                  p,
		SectorSize:             c.bytes,
		Nodes:                  c.bytes / 32,
		Layers:                 c.layers,
		Partitions:             c.partitions,
		ChallengesPerPartition: c.challenges,
		Shape:                  c.shape,
		APIVersion:             APIVersion1_2_0,
		Challenges:             ChallengesInteractive,
	}
	for n := sp.Nodes; n > 1; n >>= 1 {
		sp.TreeDDepth++
	}
	switch v {
	case 0:
		sp.APIVersion = APIVersion1_0_0
	case 1:
		sp.APIVersion = APIVersion1_1_0
	case 2:
		sp.Challenges = ChallengesSynthetic
	case 3:
		sp.Challenges = ChallengesNonInteractive
		sp.Partitions = c.niParts
	}
	// porep_id: registered id u64 LE, then the nonce (0) u64 LE, rest zero.
	binary.LittleEndian.PutUint64(sp.PoRepID[:8], uint64(p))
	return sp, nil
}

// ProofForSectorSize returns the StackedDrg V1_1 seal proof of a sector
// size written as Filecoin names it: 2KiB, 8MiB, 512MiB, 32GiB or 64GiB.
func ProofForSectorSize(size string) (RegisteredSealProof, error) {
	for _, p := range []RegisteredSealProof{RegisteredSealProof_StackedDrg2KiBV1_1, RegisteredSealProof_StackedDrg8MiBV1_1,
		RegisteredSealProof_StackedDrg512MiBV1_1, RegisteredSealProof_StackedDrg32GiBV1_1, RegisteredSealProof_StackedDrg64GiBV1_1} {
		if p.String() == "StackedDrg"+size+"V1_1" {
			return p, nil
		}
	}
	return 0, fmt.Errorf("porep: sector size %q: want 2KiB, 8MiB, 512MiB, 32GiB or 64GiB", size)
}

// SectorSizeName is the sector size as Filecoin writes it (2KiB … 64GiB),
// the form ProofForSectorSize reads.
func (p RegisteredSealProof) SectorSizeName() (string, error) {
	s, _, err := p.split()
	if err != nil {
		return "", err
	}
	return sizeClasses[s].name, nil
}

// SectorSize returns the sector size in bytes.
func (p RegisteredSealProof) SectorSize() (uint64, error) {
	sp, err := p.Params()
	return sp.SectorSize, err
}

// Nodes returns the number of 32-byte nodes of a sector.
func (p RegisteredSealProof) Nodes() (uint64, error) {
	sp, err := p.Params()
	return sp.Nodes, err
}

// Partitions returns the number of partition proofs (Groth16 proofs).
func (p RegisteredSealProof) Partitions() (int, error) {
	sp, err := p.Params()
	return sp.Partitions, err
}

// ChallengesPerPartition returns the number of challenges per partition.
func (p RegisteredSealProof) ChallengesPerPartition() (int, error) {
	sp, err := p.Params()
	return sp.ChallengesPerPartition, err
}

// Layers returns the number of SDR layers.
func (p RegisteredSealProof) Layers() (int, error) {
	sp, err := p.Params()
	return sp.Layers, err
}

// TreeShape returns the shape of tree R and tree C.
func (p RegisteredSealProof) TreeShape() (TreeShape, error) {
	sp, err := p.Params()
	return sp.Shape, err
}

// PoRepID returns the 32-byte porep_id that seeds the graph and replica_id.
func (p RegisteredSealProof) PoRepID() ([32]byte, error) {
	sp, err := p.Params()
	return sp.PoRepID, err
}

// APIVersion returns the proofs API version of p.
func (p RegisteredSealProof) APIVersion() (APIVersion, error) {
	sp, err := p.Params()
	return sp.APIVersion, err
}

// ChallengeKind returns how p derives its challenges.
func (p RegisteredSealProof) ChallengeKind() (ChallengeKind, error) {
	sp, err := p.Params()
	return sp.Challenges, err
}

// vanillaKey is the key of the vanilla_proofs enum in C1 JSON: the size
// without the version, e.g. "StackedDrg32GiBV1", for every variant.
func (sp SealParams) vanillaKey() string {
	for _, c := range sizeClasses {
		if c.bytes == sp.SectorSize {
			return "StackedDrg" + c.name + "V1"
		}
	}
	return ""
}
