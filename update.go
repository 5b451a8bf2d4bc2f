package gpuc2

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	commcid "github.com/filecoin-project/go-fil-commcid"
	"github.com/filecoin-project/go-state-types/abi"
	"github.com/filecoin-project/go-state-types/proof"
	"github.com/ipfs/go-cid"

	"github.com/gpuc2/gpuc2/groth16"
	"github.com/gpuc2/gpuc2/synth"
	"github.com/gpuc2/gpuc2/synth/update"
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
	Timings          ProofTimings // Parse covers the vanilla proofs' decode and check
}

// SplitUpdateVanillaProofsJSON splits the vanilla proofs of a sector update
// as Curio stores them (the snap-vproof JSON array, base64 byte strings)
// into the partition proofs UpdateRequest.VanillaProofs takes, one bincode
// PartitionProof per partition. It does not decode them (ProveUpdate
// does). A malformed array, an empty one and more partitions than any
// update has are errors wrapping ErrBadInput.
func SplitUpdateVanillaProofsJSON(data []byte) (proofs [][]byte, err error) {
	err = guard(slog.Default(), "SplitUpdateVanillaProofsJSON", func() error {
		if proofs, err = update.ParseVanillaProofsJSON(data); err != nil {
			return fmt.Errorf("vanilla proofs JSON (%d bytes): %w", len(data), err)
		}
		if len(proofs) == 0 {
			return fmt.Errorf("%w: vanilla proofs JSON (%d bytes) holds no partition proof", ErrBadInput, len(data))
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return proofs, nil
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
// whatever other proofs (seal or update) are in flight: the vanilla
// proofs are decoded and checked against the commitments first (every
// fault an error wrapping ErrBadInput that names partition, challenge and
// field), then each partition is synthesized and proved with the update
// type's parameters and self-verified. It returns at the first error, once
// the partitions still in the pipeline are withdrawn.
func (p *Prover) ProveUpdate(ctx context.Context, req UpdateRequest) (res *UpdateResult, err error) {
	err = guard(p.log, "ProveUpdate", func() error {
		res, err = p.proveUpdate(ctx, req)
		return err
	})
	return res, err
}

func (p *Prover) proveUpdate(ctx context.Context, req UpdateRequest) (*UpdateResult, error) {
	start := time.Now()
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer p.leave()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	res := &UpdateResult{Backend: p.cfg.Backend}
	parseStart := time.Now()
	in, err := parseUpdate(ctx, req)
	res.Timings.Parse = time.Since(parseStart)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, err
	}
	a := in.admission()
	if err := p.admitShape(ctx, a, &res.Timings); err != nil {
		return nil, err
	}
	defer p.keys.release(a.kind)
	var verifier partitionChecker
	if !p.cfg.SkipSelfVerify {
		verifier = &updateVerifier{pvk: a.key.prepared(), in: in}
	}
	meta := requestMeta{priority: req.Priority, label: req.Label}
	res.Partitions, res.PartitionDevices, err = p.provePartitions(ctx, a, meta, verifier, &res.Timings)
	if err != nil {
		return nil, err
	}
	if res.Proof, err = marshalProofs(res.Partitions); err != nil {
		return nil, err
	}
	res.Devices = usedDevices(res.PartitionDevices)
	res.VerifyInfo = proof.ReplicaUpdateInfo{UpdateProofType: req.ProofType, OldSealedSectorCID: req.OldSealed,
		NewSealedSectorCID: req.NewSealed, NewUnsealedSectorCID: req.NewUnsealed, Proof: res.Proof}
	res.Timings.Total = time.Since(start)
	return res, nil
}

// updateInputs are an update request's decoded, checked inputs.
type updateInputs struct {
	t                            abi.RegisteredUpdateProof
	params                       update.Params
	h                            int
	commROld, commDNew, commRNew fr.Element
	proofs                       []*update.PartitionProof
}

// parseUpdate decodes req's commitments and vanilla proofs and checks every
// proof against the commitments (update.Check), as filecoin-proofs does
// before it synthesizes. synth/update's errors become ErrBadInput at the
// boundary (classify).
func parseUpdate(ctx context.Context, req UpdateRequest) (*updateInputs, error) {
	in, err := updateCommitments(req.ProofType, req.OldSealed, req.NewSealed, req.NewUnsealed)
	if err != nil {
		return nil, err
	}
	if in.proofs, err = update.DecodeVanillaProofs(in.params, req.VanillaProofs); err != nil {
		return nil, err
	}
	if err := update.Check(ctx, in.params, in.proofs, in.h, in.commROld, in.commDNew, in.commRNew); err != nil {
		return nil, err
	}
	return in, nil
}

// updateCommitments reads t's parameters and the three commitments out of
// their CIDs (go-fil-commcid), as filecoin-ffi does: comm_r_old and
// comm_r_new sealed (replica) CIDs, comm_d_new an unsealed (data) one.
func updateCommitments(t abi.RegisteredUpdateProof, oldSealed, newSealed, newUnsealed cid.Cid) (*updateInputs, error) {
	params, err := update.ParamsFor(t)
	if err != nil {
		return nil, err
	}
	in := &updateInputs{t: t, params: params, h: params.DefaultH()}
	for _, c := range []struct {
		cid  cid.Cid
		read func(cid.Cid) ([]byte, error)
		name string
		out  *fr.Element
	}{
		{oldSealed, commcid.CIDToReplicaCommitmentV1, "comm_r_old (old sealed CID)", &in.commROld},
		{newSealed, commcid.CIDToReplicaCommitmentV1, "comm_r_new (new sealed CID)", &in.commRNew},
		{newUnsealed, commcid.CIDToDataCommitmentV1, "comm_d_new (new unsealed CID)", &in.commDNew},
	} {
		b, err := commitmentOf(c.cid, c.read, c.name)
		if err != nil {
			return nil, err
		}
		if *c.out, err = update.CommitmentFromBytes(c.name, b); err != nil {
			return nil, err
		}
	}
	return in, nil
}

// admission is in's admission before its shape and key: partition k's
// circuit is its witness, made when the pipeline synthesizes it.
func (in *updateInputs) admission() *admission {
	circuit := func(k int) (synth.Circuit, error) {
		if k < 0 || k >= len(in.proofs) {
			return nil, fmt.Errorf("%w: partition %d of %d", ErrBadInput, k, len(in.proofs))
		}
		w, err := update.WitnessFor(in.params, k, in.h, in.proofs[k], in.commROld, in.commDNew, in.commRNew)
		if err != nil {
			return nil, err
		}
		return &update.Circuit{Params: in.params, Witness: w}, nil
	}
	return &admission{kind: updateKind(in.t), partitions: len(in.proofs), circuit: circuit, pipelined: circuit}
}

// publicInputs are partition k's public inputs.
func (in *updateInputs) publicInputs(k int) ([]fr.Element, error) {
	return update.PublicInputs(in.params, k, in.h, in.commROld, in.commDNew, in.commRNew)
}

// updateVerifier self-verifies an update's partition proofs as they come.
type updateVerifier struct {
	pvk *groth16.PreparedVerifyingKey
	in  *updateInputs
}

func (v *updateVerifier) verify(proof *groth16.Proof, k int) error {
	public, err := v.in.publicInputs(k)
	if err != nil {
		return err
	}
	return verifyPartition(v.pvk, proof, public, k)
}

// VerifyUpdateProof verifies an update proof as filecoin-ffi's
// SectorUpdate.VerifyUpdateProof does: every partition's public inputs
// from the info's commitments alone, with the update type's verifying key
// from the .vk file beside the parameters, or from the loaded parameters
// (TEST-ONLY ones included). A proof that does not verify is (false,
// nil); malformed info is an error wrapping ErrBadInput.
func (p *Prover) VerifyUpdateProof(info proof.ReplicaUpdateInfo) (ok bool, err error) {
	err = guard(p.log, "VerifyUpdateProof", func() error {
		if err := p.enter(); err != nil {
			return err
		}
		defer p.leave()
		in, err := updateCommitments(info.UpdateProofType, info.OldSealedSectorCID, info.NewSealedSectorCID, info.NewUnsealedSectorCID)
		if err != nil {
			return err
		}
		vk, err := p.verifyingKey(updateKind(info.UpdateProofType))
		if err != nil {
			return err
		}
		ok, err = verifyUpdate(vk, in, info.Proof)
		return err
	})
	return ok, err
}

// verifyUpdate batch-verifies proofBytes, in's partition proofs, with vk.
func verifyUpdate(vk *groth16.VerifyingKey, in *updateInputs, proofBytes []byte) (bool, error) {
	want := in.params.Partitions * groth16.ProofSize
	if len(proofBytes) != want {
		return false, fmt.Errorf("%w: the proof has %d bytes, an update %v proof %d", ErrBadInput, len(proofBytes),
			update.ProofName(in.t), want)
	}
	proofs, err := groth16.UnmarshalProofs(proofBytes)
	if err != nil {
		return false, fmt.Errorf("%w: %w", ErrBadInput, err)
	}
	public := make([][]fr.Element, len(proofs))
	for k := range proofs {
		if public[k], err = in.publicInputs(k); err != nil {
			return false, fmt.Errorf("%w: %w", ErrBadInput, err)
		}
	}
	ok, err := groth16.BatchVerify(vk, proofs, public)
	if err != nil {
		return false, fmt.Errorf("%w: %w", ErrBadInput, err)
	}
	return ok, nil
}

// PreloadUpdate is Preload for an update proof type's parameters (they
// stay loaded until EvictUpdate or Close).
func (p *Prover) PreloadUpdate(ctx context.Context, t abi.RegisteredUpdateProof) error {
	return p.preload(ctx, "PreloadUpdate", updateKind(t))
}

// EvictUpdate is Evict for an update proof type's parameters.
func (p *Prover) EvictUpdate(t abi.RegisteredUpdateProof) error {
	return p.evict("EvictUpdate", updateKind(t), nil)
}

// UpdateRequirements is Requirements for an update proof type: the same
// model over the EmptySectorUpdate circuit's shape. Where its parameter
// file is absent, the key's a and b sections are bounded by the circuit's
// variables (no published counts are pinned for it).
func UpdateRequirements(t abi.RegisteredUpdateProof, cfg Config) (r Resources, err error) {
	err = guard(slog.Default(), "UpdateRequirements", func() error {
		r, _, err = requirements(updateKind(t), cfg)
		return err
	})
	return r, err
}

// FindUpdateParams returns the paths of t's real Filecoin .params and .vk
// files in dir (v28-empty-sector-update-merkletree-poseidon_hasher-…), or
// ErrParamsMissing naming the file it looked for.
func FindUpdateParams(dir string, t abi.RegisteredUpdateProof) (params, vk string, err error) {
	err = guard(slog.Default(), "FindUpdateParams", func() error {
		params, vk, err = findParams(dir, updateKind(t))
		return err
	})
	return params, vk, err
}

// UpdateTestParamsPath is where the TEST-ONLY setup of t is kept under
// cacheDir (Config.TestParamsDir; as TestParamsPath, and made on demand
// the same way, up to 512 MiB sectors).
func UpdateTestParamsPath(cacheDir string, t abi.RegisteredUpdateProof) string {
	return testParamsPath(cacheDir, updateKind(t))
}

// UpdateTestParams is TestParams for an update proof type.
func UpdateTestParams(ctx context.Context, cacheDir string, t abi.RegisteredUpdateProof) (pk *groth16.ProvingKey, path string, created bool, err error) {
	err = guard(slog.Default(), "UpdateTestParams", func() error {
		pk, path, created, err = testParams(ctx, cacheDir, updateKind(t))
		return err
	})
	return pk, path, created, err
}
