package porep

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"math/big"

	"github.com/filecoin-project/go-state-types/abi"
	"golang.org/x/crypto/blake2b"
	"golang.org/x/crypto/chacha20"
)

// ProverID is the 32-byte prover id of a miner: the ID address payload
// (unsigned LEB128 of the actor id) zero-padded, as filecoin-ffi builds it.
func ProverID(miner abi.ActorID) [32]byte {
	var out [32]byte
	binary.PutUvarint(out[:], uint64(miner))
	return out
}

// ReplicaIDFromProverID is SHA256(prover_id ‖ sector_id u64 BE ‖ ticket ‖
// comm_d ‖ porep_id) with the top two bits cleared (a canonical Fr, LE).
func ReplicaIDFromProverID(proverID [32]byte, sectorID uint64, ticket, commD, porepID [32]byte) [32]byte {
	h := sha256.New()
	h.Write(proverID[:])
	var s [8]byte
	binary.BigEndian.PutUint64(s[:], sectorID)
	h.Write(s[:])
	h.Write(ticket[:])
	h.Write(commD[:])
	h.Write(porepID[:])
	var out [32]byte
	h.Sum(out[:0])
	out[31] &= 0x3f
	return out
}

// ReplicaID derives the replica id of a sector sealed with proof type p.
func ReplicaID(p abi.RegisteredSealProof, miner abi.ActorID, sector abi.SectorNumber, ticket, commD [32]byte) ([32]byte, error) {
	sp, err := ParamsFor(p) // not abi's PoRepID: it has none for NI-PoRep
	if err != nil {
		return [32]byte{}, err
	}
	return ReplicaIDFromProverID(ProverID(miner), uint64(sector), ticket, commD, sp.PoRepID), nil
}

// Challenges derives the challenged nodes of partition k, in order, as
// rust-fil-proofs does for p's challenge kind. commR is only used by
// synthetic and non-interactive PoRep, seed only by interactive and
// synthetic PoRep.
func Challenges(p abi.RegisteredSealProof, replicaID, commR, seed [32]byte, partition int) ([]uint64, error) {
	sp, err := ParamsFor(p)
	if err != nil {
		return nil, err
	}
	return sp.PartitionChallenges(replicaID, commR, seed, partition)
}

// PartitionChallenges derives partition k's challenged nodes under sp (see
// Challenges).
func (sp SealParams) PartitionChallenges(replicaID, commR, seed [32]byte, partition int) ([]uint64, error) {
	if partition < 0 || partition >= sp.Partitions {
		return nil, fmt.Errorf("porep: partition %d out of range (%v has %d)", partition, ProofName(sp.Proof), sp.Partitions)
	}
	n := sp.ChallengesPerPartition
	first := uint32(n * partition)
	out := make([]uint64, n)
	switch sp.Challenges {
	case ChallengesInteractive:
		for i := range out {
			h := sha256.New()
			h.Write(replicaID[:])
			h.Write(seed[:])
			out[i] = challengeFromHash(h, first+uint32(i), sp.Nodes)
		}
	case ChallengesNonInteractive:
		for i := range out {
			h := sha256.New()
			h.Write([]byte("filecoin.io|PoRep|1|NonInteractive|1"))
			h.Write(replicaID[:])
			h.Write(commR[:])
			out[i] = challengeFromHash(h, first+uint32(i), sp.Nodes)
		}
	case ChallengesSynthetic:
		s := newSynth(sp.Nodes, replicaID, commR, min(sp.Nodes, 1<<18))
		for i, idx := range s.partitionIndexes(n, seed, partition) {
			out[i] = s.challenge(idx)
		}
	}
	return out, nil
}

type hashWriter interface {
	Write([]byte) (int, error)
	Sum([]byte) []byte
}

func challengeFromHash(h hashWriter, j uint32, nodes uint64) uint64 {
	var jb [4]byte
	binary.LittleEndian.PutUint32(jb[:], j)
	h.Write(jb[:])
	var d [32]byte
	h.Sum(d[:0])
	return challengeFromLE(d[:], nodes)
}

// challengeFromLE reads b as a little-endian integer: value mod (nodes−1), +1.
func challengeFromLE(b []byte, nodes uint64) uint64 {
	be := make([]byte, len(b))
	for k := range b {
		be[len(b)-1-k] = b[k]
	}
	v := new(big.Int).SetBytes(be)
	v.Mod(v, new(big.Int).SetUint64(nodes-1))
	return v.Uint64() + 1
}

// synth generates synthetic PoRep challenges (challenges.rs, synthetic).
type synth struct {
	nodes   uint64
	replica [32]byte
	count   uint64 // number of synthetic challenges
	genKey  []byte // of the ChaCha20 stream the challenges are read from
}

var synthNonce = [12]byte{'s', 'y', 'n', 't', 'h', '-', 'p', 'o', 'r', 'e', 'p', 0}

func newSynth(nodes uint64, replicaID, commR [32]byte, count uint64) *synth {
	key := synthKey("filecoin.io|PoRep|1|Synthetic|1|Generation", replicaID, commR)
	return &synth{nodes: nodes, replica: replicaID, count: count, genKey: key}
}

// synthKey is BLAKE2b-256 keyed by tag of a ‖ b.
func synthKey(tag string, a, b [32]byte) []byte {
	h, err := blake2b.New256([]byte(tag))
	if err != nil {
		panic(err) // a key of at most 64 bytes is always accepted
	}
	h.Write(a[:])
	h.Write(b[:])
	return h.Sum(nil)
}

// keystreamAt fills out with the IETF ChaCha20 keystream (RustCrypto's
// ChaCha20) of key and the synthetic-PoRep nonce from byte offset off; off/64
// must fit the 32-bit block counter (2^38 bytes, far beyond any use here). A
// fresh cipher per call: x/crypto's cannot seek backwards.
func keystreamAt(key []byte, out []byte, off uint64) {
	c, err := chacha20.NewUnauthenticatedCipher(key, synthNonce[:])
	if err != nil {
		panic(err) // 32-byte key, 12-byte nonce
	}
	clear(out)
	c.SetCounter(uint32(off / 64))
	skip := int(off % 64)
	if skip == 0 {
		c.XORKeyStream(out, out)
		return
	}
	var head [64]byte
	c.XORKeyStream(head[:], head[:])
	n := copy(out, head[skip:])
	c.XORKeyStream(out[n:], out[n:])
}

// challenge returns synthetic challenge i: 32 keystream bytes at 32·i.
func (s *synth) challenge(i uint64) uint64 {
	var b [32]byte
	keystreamAt(s.genKey, b[:], 32*i)
	return challengeFromLE(b[:], s.nodes)
}

// partitionIndexes selects which synthetic challenges partition k uses:
// u32 LE words of a second keystream keyed by replica_id and seed.
func (s *synth) partitionIndexes(n int, seed [32]byte, k int) []uint64 {
	buf := make([]byte, 4*n)
	keystreamAt(synthKey("filecoin.io|PoRep|1|Synthetic|1|Selection", s.replica, seed), buf, uint64(4*n*k))
	out := make([]uint64, n)
	for i := range out {
		out[i] = uint64(binary.LittleEndian.Uint32(buf[4*i:])) % s.count
	}
	return out
}
