package porep

import (
	"errors"
	"fmt"

	"github.com/filecoin-project/go-state-types/abi"

	"github.com/gpuc2/gpuc2/internal/errtext"
	"github.com/gpuc2/gpuc2/synth/merkle"
)

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

// SealParams are the fixed parameters of one registered seal proof.
type SealParams struct {
	Proof                  abi.RegisteredSealProof
	SectorSize             uint64 // bytes
	Nodes                  uint64 // SectorSize / 32
	Layers                 int
	Partitions             int
	ChallengesPerPartition int
	Shape                  merkle.Shape // of trees R and C, e.g. 8-8-0 for 32 GiB
	TreeDDepth             int          // log2(Nodes)
	APIVersion             APIVersion
	Challenges             ChallengeKind
	PoRepID                [32]byte
}

// NonInteractive reports whether p is an NI-PoRep type, whose C2 output
// filecoin-ffi aggregates with SnarkPack.
func (sp SealParams) NonInteractive() bool { return sp.Challenges == ChallengesNonInteractive }

// What go-state-types' abi does not say about a sector size: the circuit's
// layers, partitions, challenges and tree shape (filecoin-proofs constants.rs).
type sizeClass struct {
	name       string // as in the Rust enum names
	layers     int
	partitions int // interactive
	challenges int // per partition; NI-PoRep's too (its minimum over niParts, rounded up)
	niParts    int
	shape      merkle.Shape
}

var sizeClasses = [5]sizeClass{
	{"2KiB", 2, 1, 2, 13, merkle.Shape{Base: 8}},
	{"8MiB", 2, 1, 2, 13, merkle.Shape{Base: 8}},
	{"512MiB", 2, 1, 2, 13, merkle.Shape{Base: 8}},
	{"32GiB", 11, 10, 18, 126, merkle.Shape{Base: 8, Sub: 8}},
	{"64GiB", 11, 10, 18, 126, merkle.Shape{Base: 8, Sub: 8, Top: 2}},
}

// The variants of a size, in abi's order: the value is 5·variant + size.
var variantSuffix = [4]string{"V1", "V1_1", "V1_1_Feat_SyntheticPoRep", "V1_2_Feat_NonInteractivePoRep"}

// ErrUnknownProof is returned for a RegisteredSealProof outside 0–19.
var ErrUnknownProof = errors.New("porep: unknown registered seal proof")

func split(p abi.RegisteredSealProof) (size, variant int, err error) {
	if p < 0 || p > 19 {
		return 0, 0, fmt.Errorf("%w: %d", ErrUnknownProof, int64(p))
	}
	return int(p % 5), int(p / 5), nil
}

// ProofName is the name rust-filecoin-proofs-api gives p (and C1 JSON
// carries), e.g. "StackedDrg32GiBV1_1"; abi's type has no String.
func ProofName(p abi.RegisteredSealProof) string {
	s, v, err := split(p)
	if err != nil {
		return fmt.Sprintf("RegisteredSealProof(%d)", int64(p))
	}
	return "StackedDrg" + sizeClasses[s].name + variantSuffix[v]
}

// ParseProofName maps a Rust enum name (as ProofName returns) back.
func ParseProofName(name string) (abi.RegisteredSealProof, error) {
	return parseProofName([]byte(name))
}

// parseProofName is ParseProofName without a copy of name: a C1's may be
// as long as the C1.
func parseProofName(name []byte) (abi.RegisteredSealProof, error) {
	for p := abi.RegisteredSealProof(0); p <= 19; p++ {
		if ProofName(p) == string(name) {
			return p, nil
		}
	}
	return 0, fmt.Errorf("%w: %s", ErrUnknownProof, errtext.Quote(name))
}

// ParamsFor returns every fixed parameter of p. The sector size, porep_id
// and the synthetic / non-interactive features come from go-state-types'
// abi; the circuit's shape from this package's table. abi has no porep_id
// for NI-PoRep types: theirs is formed the same way (id u64 LE, nonce 0).
func ParamsFor(p abi.RegisteredSealProof) (SealParams, error) {
	s, v, err := split(p)
	if err != nil {
		return SealParams{}, err
	}
	size, err := p.SectorSize()
	if err != nil {
		return SealParams{}, fmt.Errorf("%w: %d: %w", ErrUnknownProof, int64(p), err)
	}
	c := sizeClasses[s]
	sp := SealParams{
		Proof:                  p,
		SectorSize:             uint64(size),
		Nodes:                  uint64(size) / 32,
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
	switch {
	case p.IsNonInteractive():
		sp.Challenges = ChallengesNonInteractive
		sp.Partitions = c.niParts
		sp.PoRepID[0] = byte(p) // 15–19; the rest (nonce 0) stays zero
	case p.IsSynthetic():
		sp.Challenges = ChallengesSynthetic
	case v == 0:
		sp.APIVersion = APIVersion1_0_0
	default:
		sp.APIVersion = APIVersion1_1_0
	}
	if !p.IsNonInteractive() {
		if sp.PoRepID, err = p.PoRepID(); err != nil {
			return SealParams{}, fmt.Errorf("%w: %d: %w", ErrUnknownProof, int64(p), err)
		}
	}
	return sp, nil
}

// ProofForSectorSize returns the StackedDrg V1_1 seal proof of a sector
// size written as Filecoin names it: 2KiB, 8MiB, 512MiB, 32GiB or 64GiB.
func ProofForSectorSize(size string) (abi.RegisteredSealProof, error) {
	for s, c := range sizeClasses {
		if c.name == size {
			return abi.RegisteredSealProof(5 + s), nil // the V1_1 row
		}
	}
	return 0, fmt.Errorf("porep: sector size %s: want 2KiB, 8MiB, 512MiB, 32GiB or 64GiB", errtext.Quote(size))
}

// SectorSizeName is the sector size as Filecoin writes it (2KiB … 64GiB),
// the form ProofForSectorSize reads.
func SectorSizeName(p abi.RegisteredSealProof) (string, error) {
	s, _, err := split(p)
	if err != nil {
		return "", err
	}
	return sizeClasses[s].name, nil
}

// vanillaKey is the key of the vanilla_proofs enum in C1 JSON: the size
// without the version, e.g. "StackedDrg32GiBV1", for every variant.
func (sp SealParams) vanillaKey() string {
	s, _, err := split(sp.Proof)
	if err != nil {
		return ""
	}
	return "StackedDrg" + sizeClasses[s].name + "V1"
}
