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
	"github.com/gpuc2/gpuc2/internal/circuits"
	"github.com/gpuc2/gpuc2/synth/porep"
)

// VerifySeal verifies a seal proof as filecoin-ffi's VerifySeal does: the
// public inputs of every partition are recomputed from the info alone
// (replica_id from the miner, sector number, ticket and comm_d; challenges
// from replica_id and the seed, and comm_r for synthetic PoRep), with t's
// verifying key from the .vk file beside the parameters, or from the loaded
// parameters (TEST-ONLY ones included). A proof that does not verify is
// (false, nil); malformed info is an error wrapping ErrBadInput; an
// NI-PoRep info (an aggregate in ffi) one wrapping ErrUnsupported.
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
	if sp, err := porep.ParamsFor(info.SealProof); err != nil { // before any parameter file is read
		return false, fmt.Errorf("%w: SealProof: %w", ErrBadInput, err)
	} else if sp.NonInteractive() {
		return false, errNonInteractive(info.SealProof)
	}
	vk, err := p.verifyingKey(sealKind(info.SealProof))
	if err != nil {
		return false, err
	}
	return verifySealVK(vk, info)
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

// VerifySealVK is VerifySeal with a given verifying key.
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
		return false, errNonInteractive(t)
	}
	commR, err := commitmentOf(info.SealedCID, commcid.CIDToReplicaCommitmentV1, "SealedCID (comm_r)")
	if err != nil {
		return false, err
	}
	commD, err := commitmentOf(info.UnsealedCID, commcid.CIDToDataCommitmentV1, "UnsealedCID (comm_d)")
	if err != nil {
		return false, err
	}
	if len(info.Randomness) != 32 || len(info.InteractiveRandomness) != 32 {
		return false, fmt.Errorf("%w: randomness of %d and interactive randomness of %d bytes, want 32 each",
			ErrBadInput, len(info.Randomness), len(info.InteractiveRandomness))
	}
	if len(info.Proof) != sp.Partitions*groth16.ProofSize {
		return false, fmt.Errorf("%w: the proof has %d bytes, a %v proof %d", ErrBadInput, len(info.Proof), porep.ProofName(t), sp.Partitions*groth16.ProofSize)
	}
	proofs, err := groth16.UnmarshalProofs(info.Proof)
	if err != nil {
		return false, fmt.Errorf("%w: %w", ErrBadInput, err)
	}
	var ticket, seed [32]byte
	copy(ticket[:], info.Randomness)
	copy(seed[:], info.InteractiveRandomness)
	replicaID, err := porep.ReplicaID(t, info.Miner, info.Number, ticket, commD)
	if err != nil {
		return false, fmt.Errorf("%w: %w", ErrBadInput, err)
	}
	g, err := porep.NewGraph(t)
	if err != nil {
		return false, fmt.Errorf("%w: %w", ErrBadInput, err)
	}
	public := make([][]fr.Element, len(proofs))
	for k := range proofs {
		if public[k], err = porep.PublicInputsFor(g, t, replicaID, commD, commR, seed, k); err != nil {
			return false, fmt.Errorf("%w: %w", ErrBadInput, err)
		}
	}
	ok, err := groth16.BatchVerify(vk, proofs, public)
	if err != nil {
		return false, fmt.Errorf("%w: %w", ErrBadInput, err)
	}
	return ok, nil
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
