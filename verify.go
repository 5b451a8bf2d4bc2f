package gpuc2

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"

	commcid "github.com/filecoin-project/go-fil-commcid"
	"github.com/ipfs/go-cid"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/filecoin-project/go-state-types/abi"
	"github.com/filecoin-project/go-state-types/proof"

	"github.com/gpuc2/gpuc2/groth16"
	"github.com/gpuc2/gpuc2/groth16/aggregate"
	"github.com/gpuc2/gpuc2/internal/circuits"
	"github.com/gpuc2/gpuc2/internal/par"
	"github.com/gpuc2/gpuc2/synth/porep"
)

// VerifySeal verifies a seal proof as filecoin-ffi's VerifySeal does: the
// public inputs of every partition are recomputed from the info alone
// (replica_id from the miner, sector number, ticket and comm_d; challenges
// from replica_id and the seed, and comm_r for synthetic PoRep), with t's
// verifying key from the .vk file beside the parameters, or from the loaded
// parameters (TEST-ONLY ones included). For NI-PoRep types the proof is
// the SnarkPack aggregate (V2) of the sector's partition proofs that
// SealCommitPhase2 returns, checked as VerifyAggregateSeals checks one of
// a single sector (filecoin-proofs' verify_seal does so). A proof that
// does not verify is (false, nil); malformed info is an error wrapping
// ErrBadInput.
func (p *Prover) VerifySeal(info proof.SealVerifyInfo) (ok bool, err error) {
	err = guard(p.log, "VerifySeal", func() error {
		ok, err = p.verifySeal(info)
		return err
	})
	return ok, err
}

func (p *Prover) verifySeal(info proof.SealVerifyInfo) (bool, error) {
	if err := p.enter(); err != nil {
		return false, err
	}
	defer p.leave()
	sp, err := porep.ParamsFor(info.SealProof)
	if err != nil { // before any parameter file is read
		return false, fmt.Errorf("%w: SealProof: %w", ErrBadInput, err)
	}
	if !sp.NonInteractive() {
		vk, err := p.verifyingKey(sealKind(info.SealProof))
		if err != nil {
			return false, err
		}
		return verifySealVK(vk, info)
	}
	sector, err := checkSealSector(info.SealProof, info.Miner, info.Number, info.SealedCID, info.UnsealedCID,
		info.Randomness, info.InteractiveRandomness)
	if err != nil {
		return false, err
	}
	agg, err := decodeAggregate(info.Proof) // before any parameter file is read
	if err != nil {
		return false, err
	}
	vk, err := p.verifyingKey(sealKind(info.SealProof))
	if err != nil {
		return false, err
	}
	return p.verifySealAggregate(context.Background(), sp, vk, []sealSector{sector}, agg, aggregate.V2)
}

// verifyingKey returns t's verifying key: the loaded key's, the real .vk
// file's, or an existing TEST-ONLY setup's. It never creates a setup.
func (p *Prover) verifyingKey(t circuits.Type) (*groth16.VerifyingKey, error) {
	if e := p.keys.loaded(t); e != nil {
		return e.pk.VerifyingKey(), nil
	}
	vkPath, err := findVerifyingKey(p.cfg.ParamsDir, t) // the .params file is not needed
	if err == nil {
		vk, err := groth16.ReadVerifyingKeyFile(context.Background(), vkPath, groth16.WithDigestCheck())
		if err != nil {
			return nil, paramsError(vkPath, err)
		}
		return vk, nil
	}
	if !errors.Is(err, ErrParamsMissing) || p.cfg.TestParamsDir == "" {
		return nil, missingParamsHint(err, t)
	}
	if present, statErr := testParamsExist(testParamsPath(p.cfg.TestParamsDir, t)); statErr != nil {
		return nil, statErr
	} else if !present { // of any size: what is there is opened (never a setup), or its fault named
		return nil, err
	}
	key, err := p.keys.acquire(context.Background(), t)
	if err != nil {
		return nil, err
	}
	p.keys.release(t)
	return key.pk.VerifyingKey(), nil
}

// partitionVerifier self-verifies the partition proofs of one C1 as they
// come, computing the public inputs with one graph.
type partitionVerifier struct {
	pvk   *groth16.PreparedVerifyingKey
	c1    *porep.C1
	graph *porep.Graph
}

// verify returns an error wrapping ErrProofInvalid unless proof is
// partition k's.
func (v *partitionVerifier) verify(proof *groth16.Proof, k int) error {
	if v.graph == nil {
		g, err := porep.NewGraph(v.c1.RegisteredProof)
		if err != nil {
			return err
		}
		v.graph = g
	}
	c := v.c1
	public, err := porep.PublicInputsFor(v.graph, c.RegisteredProof, frBytesLE(&c.ReplicaID), c.CommD, frBytesLE(&c.CommR), c.Seed, k)
	if err != nil {
		return err
	}
	return verifyPartition(v.pvk, proof, public, k)
}

// verifyPartition returns an error wrapping ErrProofInvalid unless proof
// verifies with pvk for partition k's public inputs.
func verifyPartition(pvk *groth16.PreparedVerifyingKey, proof *groth16.Proof, public []fr.Element, k int) error {
	ok, err := pvk.Verify(proof, public)
	if err != nil {
		return fmt.Errorf("%w: partition %d: %w", ErrProofInvalid, k, err)
	}
	if !ok {
		return fmt.Errorf("%w: partition %d", ErrProofInvalid, k)
	}
	return nil
}

// VerifySealVK is VerifySeal with a given verifying key, for the types
// whose proofs are partition proofs: an NI-PoRep proof, an aggregate, also
// needs the SRS (Prover.VerifySeal), and is refused with ErrUnsupported.
func VerifySealVK(vk *groth16.VerifyingKey, info proof.SealVerifyInfo) (ok bool, err error) {
	err = guard(slog.Default(), "VerifySealVK", func() error {
		ok, err = verifySealVK(vk, info)
		return err
	})
	return ok, err
}

func verifySealVK(vk *groth16.VerifyingKey, info proof.SealVerifyInfo) (bool, error) {
	t := info.SealProof
	sp, err := porep.ParamsFor(t)
	if err != nil {
		return false, fmt.Errorf("%w: %w", ErrBadInput, err)
	}
	if sp.NonInteractive() {
		return false, fmt.Errorf("%w: %s is NI-PoRep, whose proof is a SnarkPack aggregate: VerifySealVK has no SRS to check it with "+
			"(Prover.VerifySeal has)", ErrUnsupported, porep.ProofName(t))
	}
	sector, err := checkSealSector(t, info.Miner, info.Number, info.SealedCID, info.UnsealedCID, info.Randomness, info.InteractiveRandomness)
	if err != nil {
		return false, err
	}
	if len(info.Proof) != sp.Partitions*groth16.ProofSize {
		return false, fmt.Errorf("%w: the proof has %d bytes, a %v proof %d", ErrBadInput, len(info.Proof), porep.ProofName(t), sp.Partitions*groth16.ProofSize)
	}
	proofs, err := groth16.UnmarshalProofs(info.Proof)
	if err != nil {
		return false, fmt.Errorf("%w: %w", ErrBadInput, err)
	}
	public, err := sealPublicInputs(context.Background(), sp, []sealSector{sector})
	if err != nil {
		return false, err
	}
	ok, err := groth16.BatchVerify(vk, proofs, public)
	if err != nil {
		return false, fmt.Errorf("%w: %w", ErrBadInput, err)
	}
	return ok, nil
}

// sealSector is what one sector's seal proof is checked against: the
// values its public inputs are computed from.
type sealSector struct {
	replicaID, commD, commR, seed [32]byte
}

// checkSealSector checks a sector's on-chain values (the commitment CIDs,
// 32 bytes of ticket and of seed) and derives its replica_id from them and
// the miner. Errors wrap ErrBadInput.
func checkSealSector(t abi.RegisteredSealProof, miner abi.ActorID, number abi.SectorNumber, sealed, unsealed cid.Cid,
	ticket abi.SealRandomness, seed abi.InteractiveSealRandomness) (sealSector, error) {
	var s sealSector
	var err error
	if s.commR, err = commitmentOf(sealed, commcid.CIDToReplicaCommitmentV1, "SealedCID (comm_r)"); err != nil {
		return s, err
	}
	if s.commD, err = commitmentOf(unsealed, commcid.CIDToDataCommitmentV1, "UnsealedCID (comm_d)"); err != nil {
		return s, err
	}
	if len(ticket) != 32 || len(seed) != 32 {
		return s, fmt.Errorf("%w: randomness of %d and interactive randomness of %d bytes, want 32 each",
			ErrBadInput, len(ticket), len(seed))
	}
	var tk [32]byte
	copy(tk[:], ticket)
	copy(s.seed[:], seed)
	if s.replicaID, err = porep.ReplicaID(t, miner, number, tk, s.commD); err != nil {
		return s, fmt.Errorf("%w: %w", ErrBadInput, err)
	}
	return s, nil
}

// sealSectorOf is the sector a C1 proves, as it states it.
func sealSectorOf(c *porep.C1) sealSector {
	return sealSector{replicaID: frBytesLE(&c.ReplicaID), commD: c.CommD, commR: frBytesLE(&c.CommR), seed: c.Seed}
}

// sealPublicInputs are the public inputs of every partition of sectors
// under sp: sector by sector, partition by partition (filecoin-proofs'
// get_seal_inputs of each, concatenated as filecoin-ffi's
// verify_aggregate_seal_proof concatenates them). Errors wrap ErrBadInput.
func sealPublicInputs(ctx context.Context, sp porep.SealParams, sectors []sealSector) ([][]fr.Element, error) {
	g := sp.Graph()
	k := sp.Partitions
	public := make([][]fr.Element, len(sectors)*k)
	err := par.Range(ctx, len(public), 4, func(lo, hi int) error {
		for i := lo; i < hi; i++ {
			s := &sectors[i/k]
			var err error
			if public[i], err = sp.PublicInputs(g, s.replicaID, s.commD, s.commR, s.seed, i%k); err != nil {
				return fmt.Errorf("%w: sector %d of %d, partition %d: %w", ErrBadInput, i/k, len(sectors), i%k, err)
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return public, nil
}

// commitmentOf reads a 32-byte commitment out of a Filecoin commitment CID
// with go-fil-commcid's reader for its kind.
func commitmentOf(c cid.Cid, read func(cid.Cid) ([]byte, error), what string) ([32]byte, error) {
	var out [32]byte
	if !c.Defined() {
		return out, fmt.Errorf("%w: %s is undefined", ErrBadInput, what)
	}
	b, err := read(c)
	if err != nil {
		return out, fmt.Errorf("%w: %s %s: %w", ErrBadInput, what, c, err)
	}
	copy(out[:], b) // commcid checked the length
	return out, nil
}

// NewSealVerifyInfo builds the proof.SealVerifyInfo of a C2 proof from
// the C1 it was proven from (filecoin-ffi JSON or the Commit2In envelope):
// the proof type, ticket and seed, comm_r and comm_d as the sealed and
// unsealed CIDs (go-fil-commcid), the sector and miner. It checks that the
// C1's replica_id is the sector's. Errors wrap ErrBadInput.
func NewSealVerifyInfo(c1 []byte, proofBytes []byte, sector abi.SectorNumber, miner abi.ActorID) (info proof.SealVerifyInfo, err error) {
	err = guard(slog.Default(), "NewSealVerifyInfo", func() error {
		in, err := porep.ParseC1(c1)
		if err != nil {
			return err
		}
		if err := in.CheckReplicaID(miner, sector); err != nil {
			return err
		}
		info, err = sealVerifyInfo(in, proofBytes, sector, miner)
		return err
	})
	return info, err
}

// sealVerifyInfo is the SealVerifyInfo of proofBytes, proven from in.
func sealVerifyInfo(in *porep.C1, proofBytes []byte, sector abi.SectorNumber, miner abi.ActorID) (proof.SealVerifyInfo, error) {
	sealed, unsealed, err := commitmentCIDs(frBytesLE(&in.CommR), in.CommD)
	if err != nil {
		return proof.SealVerifyInfo{}, fmt.Errorf("%w: %w", ErrBadInput, err)
	}
	return proof.SealVerifyInfo{
		SealProof:             in.RegisteredProof,
		SectorID:              abi.SectorID{Miner: miner, Number: sector},
		Randomness:            slices.Clone(in.Ticket[:]),
		InteractiveRandomness: slices.Clone(in.Seed[:]),
		Proof:                 proofBytes,
		SealedCID:             sealed,
		UnsealedCID:           unsealed,
	}, nil
}

// commitmentCIDs are comm_r and comm_d as the chain names them: the sealed
// and unsealed CIDs of go-fil-commcid.
func commitmentCIDs(commR, commD [32]byte) (sealed, unsealed cid.Cid, err error) {
	if sealed, err = commcid.ReplicaCommitmentV1ToCID(commR[:]); err != nil {
		return cid.Undef, cid.Undef, err
	}
	if unsealed, err = commcid.DataCommitmentV1ToCID(commD[:]); err != nil {
		return cid.Undef, cid.Undef, err
	}
	return sealed, unsealed, nil
}

// frBytesLE is the 32-byte little-endian form of a field element, as
// commitments travel.
func frBytesLE(e *fr.Element) [32]byte {
	var b [32]byte
	fr.LittleEndian.PutElement(&b, *e)
	return b
}
