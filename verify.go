package gpuc2

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/ipfs/go-cid"

	"github.com/gpuc2/gpuc2/groth16"
	"github.com/gpuc2/gpuc2/synth/porep"
)

// DealID mirrors go-state-types abi.DealID.
type DealID uint64

// SectorID mirrors go-state-types abi.SectorID.
type SectorID struct {
	Miner  porep.ActorID
	Number porep.SectorNumber
}

// SealVerifyInfo mirrors go-state-types proof.SealVerifyInfo field for
// field (that module cannot be fetched where gpuc2 is developed; the
// conversion is a struct literal): what filecoin-ffi's VerifySeal takes.
type SealVerifyInfo struct {
	SealProof porep.RegisteredSealProof
	SectorID
	DealIDs               []DealID
	Randomness            []byte // the ticket, 32 bytes
	InteractiveRandomness []byte // the seed, 32 bytes
	Proof                 []byte
	SealedCID             cid.Cid // comm_r
	UnsealedCID           cid.Cid // comm_d
}

// VerifySeal verifies a seal proof as filecoin-ffi's VerifySeal does: the
// public inputs of every partition are recomputed from the info alone
// (replica_id from the miner, sector number, ticket and comm_d; challenges
// from replica_id and the seed), with t's verifying key from the .vk file
// beside the parameters, or from the loaded parameters (TEST-ONLY ones
// included). A proof that does not verify is (false, nil); malformed info
// is an error wrapping ErrBadInput.
func (p *Prover) VerifySeal(info SealVerifyInfo) (bool, error) {
	if err := p.enter(); err != nil {
		return false, err
	}
	defer p.leave()
	vk, err := p.verifyingKey(info.SealProof)
	if err != nil {
		return false, err
	}
	return VerifySealVK(vk, info)
}

// verifyingKey returns t's verifying key: the loaded key's, the real .vk
// file's, or an existing TEST-ONLY setup's. It never creates a setup.
func (p *Prover) verifyingKey(t porep.RegisteredSealProof) (*groth16.VerifyingKey, error) {
	p.mu.Lock()
	e := p.keys[t]
	p.mu.Unlock()
	if e != nil {
		return e.pk.VerifyingKey(), nil
	}
	_, vkPath, err := FindParams(p.cfg.ParamsDir, t)
	if err == nil {
		vk, err := groth16.ReadVerifyingKeyFile(context.Background(), vkPath, groth16.WithDigestCheck())
		if err != nil {
			return nil, paramsError(vkPath, err)
		}
		return vk, nil
	}
	if !errors.Is(err, ErrParamsMissing) || p.cfg.TestParamsDir == "" {
		return nil, err
	}
	if _, statErr := os.Stat(TestParamsPath(p.cfg.TestParamsDir, t)); statErr != nil { // of any size
		return nil, err
	}
	key, err := p.acquireKey(context.Background(), t)
	if err != nil {
		return nil, err
	}
	p.releaseKey(t)
	return key.pk.VerifyingKey(), nil
}

// VerifySealVK is VerifySeal with a given verifying key.
func VerifySealVK(vk *groth16.VerifyingKey, info SealVerifyInfo) (bool, error) {
	t := info.SealProof
	sp, err := t.Params()
	if err != nil {
		return false, fmt.Errorf("%w: %w", ErrBadInput, err)
	}
	commR, err := CIDToReplicaCommitment(info.SealedCID)
	if err != nil {
		return false, err
	}
	commD, err := CIDToDataCommitment(info.UnsealedCID)
	if err != nil {
		return false, err
	}
	if len(info.Randomness) != 32 || len(info.InteractiveRandomness) != 32 {
		return false, fmt.Errorf("%w: randomness of %d and interactive randomness of %d bytes, want 32 each",
			ErrBadInput, len(info.Randomness), len(info.InteractiveRandomness))
	}
	if len(info.Proof) != sp.Partitions*groth16.ProofSize {
		return false, fmt.Errorf("%w: the proof has %d bytes, a %v proof %d", ErrBadInput, len(info.Proof), t, sp.Partitions*groth16.ProofSize)
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

// frBytesLE is the 32-byte little-endian form of a field element, as
// commitments travel.
func frBytesLE(e *fr.Element) [32]byte {
	var b [32]byte
	fr.LittleEndian.PutElement(&b, *e)
	return b
}
