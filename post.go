package gpuc2

import (
	"context"
	"fmt"
	"strings"

	"github.com/filecoin-project/go-state-types/abi"
	"github.com/filecoin-project/go-state-types/proof"

	"github.com/gpuc2/gpuc2/groth16"
)

// PoStRequest is one PoSt SNARK: a WindowPoSt partition or a WinningPoSt.
type PoStRequest struct {
	ProofType  abi.RegisteredPoStProof
	Miner      abi.ActorID
	Randomness abi.PoStRandomness // 32 bytes, a canonical field element (Lotus and Curio clear the top two bits)
	// VanillaProofs are the sector proofs filecoin-ffi's
	// GenerateSingleVanillaProof returns, one per challenged sector, in
	// ascending sector order (the order the chain verifies them in): at
	// most the partition's sector count for a WindowPoSt, exactly one for
	// a WinningPoSt.
	VanillaProofs [][]byte
	// Partition is a WindowPoSt partition's index (Curio's partitionIdx);
	// 0 for a WinningPoSt. The live window types' challenges do not depend
	// on it; it names the partition in logs and errors.
	Partition int
	Priority  Priority // as SealRequest's: Curio sends WindowPoSt HIGH, WinningPoSt CRITICAL
	Label     string   // names the proof in Status, as SealRequest's
}

// PoStResult is a finished, self-verified (unless SkipSelfVerify) PoSt proof.
type PoStResult struct {
	Proof   proof.PoStProof // the proof type and its 192 bytes
	Sectors []abi.SectorNumber
	// The partition proof, decoded.
	Partition groth16.Proof
	Backend   Backend
	Devices   []int
	Timings   ProofTimings // Parse covers the vanilla proofs' decode and check
}

// FaultySectorsError reports the sectors of a PoSt request whose vanilla
// proofs do not hold (filecoin-ffi's FaultySectors): a path that does not
// reach comm_r_last, comm_r ≠ H(comm_c, comm_r_last), a proof made for
// other challenges (another randomness), a malformed proof. Curio declares
// such sectors faulty and proves the rest. It wraps ErrBadInput.
type FaultySectorsError struct {
	Sectors []abi.SectorNumber
	// Reasons holds each faulty sector's first problem, in Sectors' order.
	Reasons []string
}

func (e *FaultySectorsError) Error() string {
	parts := make([]string, len(e.Sectors))
	for i, s := range e.Sectors {
		parts[i] = fmt.Sprintf("sector %d: %s", s, e.Reasons[i])
	}
	return fmt.Sprintf("%v: faulty sectors %v: %s", ErrBadInput, e.Sectors, strings.Join(parts, "; "))
}

func (e *FaultySectorsError) Unwrap() error { return ErrBadInput }

// ProvePoSt proves one WindowPoSt partition or one WinningPoSt.
func (p *Prover) ProvePoSt(ctx context.Context, req PoStRequest) (*PoStResult, error) {
	return nil, fmt.Errorf("%w: PoSt is not built yet", ErrUnsupported)
}

// GenerateSinglePartitionWindowPoStWithVanilla is filecoin-ffi's call of
// the same name (ffi returns *ffi.PartitionProof, a proof.PoStProof).
func (p *Prover) GenerateSinglePartitionWindowPoStWithVanilla(ctx context.Context, t abi.RegisteredPoStProof,
	miner abi.ActorID, randomness abi.PoStRandomness, vanillaProofs [][]byte, partitionIndex uint) (*proof.PoStProof, error) {
	res, err := p.ProvePoSt(ctx, PoStRequest{ProofType: t, Miner: miner, Randomness: randomness,
		VanillaProofs: vanillaProofs, Partition: int(partitionIndex)})
	if err != nil {
		return nil, err
	}
	return &res.Proof, nil
}

// GenerateWinningPoStWithVanilla is filecoin-ffi's call of the same name.
func (p *Prover) GenerateWinningPoStWithVanilla(ctx context.Context, t abi.RegisteredPoStProof,
	miner abi.ActorID, randomness abi.PoStRandomness, vanillaProofs [][]byte) ([]proof.PoStProof, error) {
	res, err := p.ProvePoSt(ctx, PoStRequest{ProofType: t, Miner: miner, Randomness: randomness, VanillaProofs: vanillaProofs})
	if err != nil {
		return nil, err
	}
	return []proof.PoStProof{res.Proof}, nil
}

// VerifyWindowPoSt is filecoin-ffi's VerifyWindowPoSt.
func (p *Prover) VerifyWindowPoSt(info proof.WindowPoStVerifyInfo) (bool, error) {
	return false, fmt.Errorf("%w: PoSt is not built yet", ErrUnsupported)
}

// VerifyWinningPoSt is filecoin-ffi's VerifyWinningPoSt.
func (p *Prover) VerifyWinningPoSt(info proof.WinningPoStVerifyInfo) (bool, error) {
	return false, fmt.Errorf("%w: PoSt is not built yet", ErrUnsupported)
}

// PoStProofName is t's name as go-state-types spells it
// ("StackedDrgWindow32GiBV1_1").
func PoStProofName(t abi.RegisteredPoStProof) string { return fmt.Sprintf("RegisteredPoStProof(%d)", t) }

// PoStProofCircuit returns the circuit that proves PoSt proof type t
// ("wpost-32g", "winning-32g"), and false for a type gpuc2 does not serve.
func PoStProofCircuit(t abi.RegisteredPoStProof) (CircuitInfo, bool) { return CircuitInfo{}, false }
