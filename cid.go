package gpuc2

import (
	"fmt"

	"github.com/ipfs/go-cid"
	"github.com/multiformats/go-multihash"
)

// Filecoin's commitment CIDs (go-fil-commcid): CIDv1 with
//
//	comm_r: codec fil-commitment-sealed (0xf102), multihash poseidon-bls12_381-a1-fc1 (0xb401)
//	comm_d: codec fil-commitment-unsealed (0xf101), multihash sha2-256-trunc254-padded (0x1012)
//
// and the 32-byte commitment (little-endian field element bytes, as
// filecoin-ffi hands them over) as the digest.
const (
	codecSealed     = cid.FilCommitmentSealed
	codecUnsealed   = cid.FilCommitmentUnsealed
	hashPoseidon    = multihash.POSEIDON_BLS12_381_A1_FC1
	hashSHA256Trunc = multihash.SHA2_256_TRUNC254_PADDED
)

// ReplicaCommitmentToCID returns comm_r as the sealed CID (SealedCID).
func ReplicaCommitmentToCID(commR [32]byte) cid.Cid {
	return commitmentCID(codecSealed, hashPoseidon, commR)
}

// DataCommitmentToCID returns comm_d as the unsealed CID (UnsealedCID).
func DataCommitmentToCID(commD [32]byte) cid.Cid {
	return commitmentCID(codecUnsealed, hashSHA256Trunc, commD)
}

// CIDToReplicaCommitment returns the comm_r inside a sealed CID; any other
// CID is an error wrapping ErrBadInput.
func CIDToReplicaCommitment(c cid.Cid) ([32]byte, error) {
	return commitment(c, codecSealed, hashPoseidon, "sealed (comm_r)")
}

// CIDToDataCommitment returns the comm_d inside an unsealed CID; any other
// CID is an error wrapping ErrBadInput.
func CIDToDataCommitment(c cid.Cid) ([32]byte, error) {
	return commitment(c, codecUnsealed, hashSHA256Trunc, "unsealed (comm_d)")
}

func commitmentCID(codec, hash uint64, comm [32]byte) cid.Cid {
	mh, _ := multihash.Encode(comm[:], hash) // the error return is always nil
	return cid.NewCidV1(codec, mh)
}

func commitment(c cid.Cid, codec, hash uint64, what string) ([32]byte, error) {
	var out [32]byte
	if !c.Defined() {
		return out, fmt.Errorf("%w: %s CID is undefined", ErrBadInput, what)
	}
	p := c.Prefix()
	if p.Version != 1 || p.Codec != codec || p.MhType != hash {
		return out, fmt.Errorf("%w: %s CID %s has version %d, codec %#x, multihash %#x", ErrBadInput, what, c, p.Version, p.Codec, p.MhType)
	}
	dec, err := multihash.Decode(c.Hash())
	if err != nil {
		return out, fmt.Errorf("%w: %s CID %s: %w", ErrBadInput, what, c, err)
	}
	if len(dec.Digest) != len(out) {
		return out, fmt.Errorf("%w: %s CID %s has a %d-byte digest, want 32", ErrBadInput, what, c, len(dec.Digest))
	}
	copy(out[:], dec.Digest)
	return out, nil
}
