package gpuc2

import (
	"context"
	"fmt"

	"github.com/filecoin-project/go-state-types/abi"
	"github.com/filecoin-project/go-state-types/proof"
	"github.com/ipfs/go-cid"

	"github.com/gpuc2/gpuc2/groth16"
)

// UpdateRequest is one SnapDeals sector update's proof (ProveReplicaUpdate2).
type UpdateRequest struct {
	ProofType abi.RegisteredUpdateProof
	// OldSealed, NewSealed and NewUnsealed are comm_r_old, comm_r_new and
	// comm_d_new as the chain names them (go-fil-commcid CIDs).
	OldSealed, NewSealed, NewUnsealed cid.Cid
	// VanillaProofs are the partition proofs filecoin-ffi's
	// SectorUpdate.GenerateUpdateVanillaProofs returns, one per partition
	// (update.ParseVanillaProofsJSON splits Curio's stored JSON array).
	VanillaProofs [][]byte
	Priority      Priority // as SealRequest's
	Label         string   // names the proof in Status, as SealRequest's
}

// UpdateResult is a finished, self-verified (unless SkipSelfVerify) update proof.
type UpdateResult struct {
	Proof      []byte          // the partition proofs, 192 bytes each, in order
	Partitions []groth16.Proof // the same, decoded
	// VerifyInfo is ready for VerifyUpdateProof (and for the chain's
	// ProveReplicaUpdates).
	VerifyInfo       proof.ReplicaUpdateInfo
	Backend          Backend
	Devices          []int // as SealResult's
	PartitionDevices []int
	Timings          SealTimings // Parse covers the vanilla proofs' decode and check
}

// GenerateUpdateProofWithVanilla proves a sector update from its vanilla
// partition proofs and returns the concatenated partition proofs, 192
// bytes each: filecoin-ffi's SectorUpdate.GenerateUpdateProofWithVanilla,
// the call Curio's UpdateProve task makes.
func (p *Prover) GenerateUpdateProofWithVanilla(ctx context.Context, t abi.RegisteredUpdateProof,
	oldSealed, newSealed, newUnsealed cid.Cid, vanillaProofs [][]byte) ([]byte, error) {
	res, err := p.ProveUpdate(ctx, UpdateRequest{ProofType: t, OldSealed: oldSealed, NewSealed: newSealed,
		NewUnsealed: newUnsealed, VanillaProofs: vanillaProofs})
	if err != nil {
		return nil, err
	}
	return res.Proof, nil
}

// ProveUpdate proves one sector update through the pipeline, beside
// whatever other proofs (seal or update) are in flight.
func (p *Prover) ProveUpdate(ctx context.Context, req UpdateRequest) (res *UpdateResult, err error) {
	return nil, fmt.Errorf("%w: ProveUpdate: not built yet", ErrUnsupported)
}

// VerifyUpdateProof verifies an update proof as filecoin-ffi's
// SectorUpdate.VerifyUpdateProof does.
func (p *Prover) VerifyUpdateProof(info proof.ReplicaUpdateInfo) (ok bool, err error) {
	return false, fmt.Errorf("%w: VerifyUpdateProof: not built yet", ErrUnsupported)
}

// PreloadUpdate is Preload for an update proof type's parameters.
func (p *Prover) PreloadUpdate(ctx context.Context, t abi.RegisteredUpdateProof) error {
	return fmt.Errorf("%w: PreloadUpdate: not built yet", ErrUnsupported)
}

// EvictUpdate is Evict for an update proof type's parameters.
func (p *Prover) EvictUpdate(t abi.RegisteredUpdateProof) error {
	return fmt.Errorf("%w: EvictUpdate: not built yet", ErrUnsupported)
}

// UpdateRequirements is Requirements for an update proof type.
func UpdateRequirements(t abi.RegisteredUpdateProof, cfg Config) (Resources, error) {
	return Resources{}, fmt.Errorf("%w: UpdateRequirements: not built yet", ErrUnsupported)
}

// FindUpdateParams returns the paths of t's real Filecoin .params and .vk
// files in dir (v28-empty-sector-update-merkletree-poseidon_hasher-…), or
// ErrParamsMissing naming the file it looked for.
func FindUpdateParams(dir string, t abi.RegisteredUpdateProof) (params, vk string, err error) {
	return "", "", fmt.Errorf("%w: FindUpdateParams: not built yet", ErrUnsupported)
}

// UpdateTestParamsPath is where TEST-ONLY setups of t are kept under
// cacheDir (Config.TestParamsDir).
func UpdateTestParamsPath(cacheDir string, t abi.RegisteredUpdateProof) string {
	return ""
}
