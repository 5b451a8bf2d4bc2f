package post

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

// Randomness reads a PoSt randomness as filecoin-proofs' as_safe_commitment
// does: 32 bytes that are a canonical field element (little-endian).
func Randomness(b []byte) ([32]byte, error) {
	var out [32]byte
	if len(b) != 32 {
		return out, fmt.Errorf("%w: randomness has %d bytes, want 32", ErrRequest, len(b))
	}
	copy(out[:], b)
	if _, err := fr.LittleEndian.Element(&out); err != nil {
		return out, fmt.Errorf("%w: randomness is not a field element (its last byte %#02x; Lotus and Curio clear the top two bits)",
			ErrRequest, out[31])
	}
	return out, nil
}

// challengeIndex is utils.rs get_challenge_index: sector i of the proof, its
// n-th challenge, challenges per sector c.
func challengeIndex(perSector bool, i, c, n int) uint64 {
	if perSector {
		return uint64(n)
	}
	return uint64(i*c + n)
}

// LeafChallenge is vanilla.rs generate_leaf_challenge: the challenged leaf
// of a sector of nodes nodes for challenge index idx.
func LeafChallenge(randomness [32]byte, sectorID, idx, nodes uint64) uint64 {
	var buf [48]byte
	copy(buf[:32], randomness[:])
	binary.LittleEndian.PutUint64(buf[32:], sectorID)
	binary.LittleEndian.PutUint64(buf[40:], idx)
	h := sha256.Sum256(buf[:])
	return binary.LittleEndian.Uint64(h[:8]) % nodes
}

// SectorChallenges are the leaves the API challenges in sector i of a
// proof (post_util.rs generate_fallback_sector_challenges): what
// GenerateSingleVanillaProof opened for it. i is the sector's index in the
// proof (the live types do not use it).
func (p Params) SectorChallenges(randomness [32]byte, sectorID uint64, i int) []uint64 {
	out := make([]uint64, p.Challenges)
	for n := range out {
		out[n] = LeafChallenge(randomness, sectorID, challengeIndex(p.PerSectorIndex, i, p.Challenges, n), p.Nodes)
	}
	return out
}
