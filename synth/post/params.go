package post

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"

	"github.com/filecoin-project/go-state-types/abi"

	"github.com/gpuc2/gpuc2/synth/merkle"
)

// Kind is a PoSt kind.
type Kind int

const (
	Window  Kind = iota // WindowPoSt: one partition of a deadline's sectors
	Winning             // WinningPoSt: one sector, for a block
)

func (k Kind) String() string {
	if k == Winning {
		return "WinningPoSt"
	}
	return "WindowPoSt"
}

// Errors of this package; each names what is wrong.
var (
	// ErrProofType reports a RegisteredPoStProof that is not served.
	ErrProofType = errors.New("post: proof type not served")
	// ErrVanillaProof reports a malformed or false vanilla proof.
	ErrVanillaProof = errors.New("post: bad vanilla proof")
	// ErrRequest reports inputs that do not fit the proof type: the
	// randomness, the number or order of sectors.
	ErrRequest = errors.New("post: bad request")
)

// The counts of filecoin-proofs constants.rs.
const (
	WindowChallenges  = 10 // WINDOW_POST_CHALLENGE_COUNT
	WinningChallenges = 66 // WINNING_POST_CHALLENGE_COUNT
	WinningSectors    = 1  // WINNING_POST_SECTOR_COUNT
)

// sizeClass is what a sector size fixes: tree R's shape and
// WINDOW_POST_SECTOR_COUNT.
type sizeClass struct {
	name          string // as in the type names
	size          uint64
	shape         merkle.Shape
	windowSectors int
}

// sizes are indexed by the type's value mod 5 (abi's order).
var sizes = [5]sizeClass{
	{"2KiB", 2 << 10, merkle.Shape{Base: 8}, 2},
	{"8MiB", 8 << 20, merkle.Shape{Base: 8}, 2},
	{"512MiB", 512 << 20, merkle.Shape{Base: 8}, 2},
	{"32GiB", 32 << 30, merkle.Shape{Base: 8, Sub: 8}, 2349},
	{"64GiB", 64 << 30, merkle.Shape{Base: 8, Sub: 8, Top: 2}, 2300},
}

// Params are one PoSt proof type's facts.
type Params struct {
	Type       abi.RegisteredPoStProof
	Kind       Kind
	SectorSize uint64
	Nodes      uint64 // SectorSize / 32: a challenge is below it
	Shape      merkle.Shape
	// Sectors and Challenges are the API's: the most sectors a proof
	// takes and the challenges per sector (WindowPoSt: 2,349 and 10 at 32
	// GiB; WinningPoSt: 1 and 66).
	Sectors, Challenges int
	// CircuitSectors and CircuitChallenges are the circuit's (WinningPoSt:
	// 66 sectors of 1 challenge).
	CircuitSectors, CircuitChallenges int
	// PerSectorIndex: the challenge index is n alone (API 1.2.0), not the
	// sector's index × challenges + n.
	PerSectorIndex bool
}

// ProofName is t's name as go-state-types spells it
// ("StackedDrgWindow32GiBV1_1"; the Rust API calls that type
// StackedDrgWindow32GiBV1_2).
func ProofName(t abi.RegisteredPoStProof) string {
	if t < 0 || t > 14 {
		return fmt.Sprintf("RegisteredPoStProof(%d)", int64(t))
	}
	s := sizes[t%5].name
	switch t / 5 {
	case 0:
		return "StackedDrgWinning" + s + "V1"
	case 1:
		return "StackedDrgWindow" + s + "V1"
	}
	return "StackedDrgWindow" + s + "V1_1"
}

// ParamsFor returns t's Params: the five WinningPoSt V1 and the five
// WindowPoSt V1_1 types. Others are ErrProofType, the retired WindowPoSt
// V1 types named as such.
func ParamsFor(t abi.RegisteredPoStProof) (Params, error) {
	if t < 0 || t > 14 {
		return Params{}, fmt.Errorf("%w: %d is no RegisteredPoStProof (StackedDrgWinning2KiBV1 = 0 … StackedDrgWindow64GiBV1_1 = 14)",
			ErrProofType, int64(t))
	}
	sc := sizes[t%5]
	p := Params{Type: t, SectorSize: sc.size, Nodes: sc.size / 32, Shape: sc.shape}
	switch t / 5 {
	case 0:
		p.Kind, p.Sectors, p.Challenges = Winning, WinningSectors, WinningChallenges
		// parameters.rs winning_post_setup_params
		p.CircuitSectors = p.Challenges / p.Sectors
		p.CircuitChallenges = p.Challenges / p.CircuitSectors
	case 1:
		return Params{}, fmt.Errorf("%w: %s was retired by FIP-0061 at network version 19 (every miner moved to %s)",
			ErrProofType, ProofName(t), ProofName(t+5))
	default:
		p.Kind, p.Sectors, p.Challenges = Window, sc.windowSectors, WindowChallenges
		p.CircuitSectors, p.CircuitChallenges = p.Sectors, p.Challenges
		p.PerSectorIndex = true
	}
	return p, nil
}

// Types are the served proof types, in abi's order.
func Types() []abi.RegisteredPoStProof {
	var out []abi.RegisteredPoStProof
	for t := abi.RegisteredPoStProof(0); t <= 14; t++ {
		if _, err := ParamsFor(t); err == nil {
			out = append(out, t)
		}
	}
	return out
}

// ParamsFileBase is the name of p's Filecoin parameter files without
// ".params" or ".vk".
func (p Params) ParamsFileBase() string {
	id := fmt.Sprintf("FallbackPoSt::PublicParams{sector_size: %d, challenge_count: %d, sector_count: %d}",
		p.SectorSize, p.CircuitChallenges, p.CircuitSectors)
	h := sha256.Sum256([]byte(id))
	return fmt.Sprintf("v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-%v-%s", p.Shape, hex.EncodeToString(h[:]))
}

// leaves is the number of tree R leaves.
func (p Params) leaves() int { return int(p.Nodes) }
