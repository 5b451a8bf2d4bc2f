package porep_test

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"math/big"
	"testing"

	"github.com/filecoin-project/go-state-types/abi"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/crypto/chacha20"

	"github.com/gpuc2/gpuc2/synth/porep"
)

// The DRG keeps its own ChaCha block function because rand_chacha's
// ChaCha8Rng needs 8 rounds and a 64-bit counter, which x/crypto's chacha20
// (20 rounds, 32-bit counter) cannot give. At 20 rounds the same function must
// equal x/crypto's keystream, block for block, and the RFC 8439 vector.
func TestChaChaBlockMatchesXCrypto(t *testing.T) {
	var key [32]byte
	for k := range key {
		key[k] = byte(k)
	}
	nonce := [12]byte{0, 0, 0, 9, 0, 0, 0, 0x4a, 0, 0, 0, 0}
	got := porep.ChaChaBlockForTest(key, 1, nonce, 20)
	// RFC 8439 §2.3.2 block function test vector
	assert.Equal(t, "10f1e7e4d13b5915500fdd1fa32071c4c7d1f4c733c068030422aa9ac3d46c4ed2826446079faa0914c2d705d98b02a2b5129cd1de164eb9cbd083e8a2503c4e", hex.EncodeToString(got[:]))

	c, err := chacha20.NewUnauthenticatedCipher(key[:], nonce[:])
	require.NoError(t, err)
	stream := make([]byte, 64*8)
	c.XORKeyStream(stream, stream)
	for b := uint32(0); b < 8; b++ {
		blk := porep.ChaChaBlockForTest(key, b, nonce, 20)
		assert.Equal(t, stream[64*b:64*(b+1)], blk[:], "block %d", b)
	}
}

// TestSyntheticChallengesKnownAnswer holds the synthetic-PoRep derivation
// to rust-fil-proofs' storage-proofs-porep/src/stacked/vanilla/challenges.rs,
// with the vectors of its test_synth_challenges_against_hardcoded: the
// synthetic challenges of SynthChallengeGenerator (gen_synth_challenge:
// ChaCha20 keyed by chacha20_gen, BLAKE2b of replica_id and comm_r), the
// indexes that select a partition's challenges among them
// (gen_partition_synth_indexes: chacha20_select, keyed with the seed) and
// the selected challenges (gen_porep_challenges, i.e.
// gen_porep_partition_challenges for partition 0).
func TestSyntheticChallengesKnownAnswer(t *testing.T) {
	var replicaID, commR, rand [32]byte
	replicaID[0], commR[0] = 55, 101
	for k := range rand {
		rand[k] = 1
	}
	gen, sel := porep.NewSynthForTest(1<<10, replicaID, commR, 21)
	want := []uint64{178, 297, 869, 211, 875, 477, 94, 781, 124, 332, 856, 801, 176, 692, 429, 691, 290, 204, 986, 210, 973}
	for i, w := range want {
		assert.Equal(t, w, gen(uint64(i)), "synthetic challenge %d", i)
	}
	var porepChallenges []uint64
	for _, idx := range sel(10, rand, 0) {
		porepChallenges = append(porepChallenges, gen(idx))
	}
	assert.Equal(t, []uint64{176, 781, 801, 986, 290, 211, 692, 856, 986, 332}, porepChallenges)
	// partition k continues the selection stream
	all := sel(20, rand, 0)
	assert.Equal(t, all[10:], sel(10, rand, 1))
}

// Challenges for a synthetic type is SynthChallenges::derive in
// challenges.rs: SynthChallengeGenerator::default, whose set has
// min(sector_nodes, 2^18) challenges (DEFAULT_SYNTH_CHALLENGE_COUNT), then
// gen_porep_partition_challenges for partition k.
func TestSyntheticChallenges(t *testing.T) {
	var rid, commR, seed [32]byte
	rid[0], commR[0], seed[0] = 3, 4, 5
	p := abi.RegisteredSealProof_StackedDrg32GiBV1_1_Feat_SyntheticPoRep
	sp, err := porep.ParamsFor(p)
	require.NoError(t, err)
	gen, sel := porep.NewSynthForTest(sp.Nodes, rid, commR, 1<<18)
	for k := range sp.Partitions {
		var want []uint64
		for _, i := range sel(sp.ChallengesPerPartition, seed, k) {
			require.Less(t, i, uint64(1<<18))
			want = append(want, gen(i))
		}
		got, err := porep.Challenges(p, rid, commR, seed, k)
		require.NoError(t, err)
		assert.Equal(t, want, got, "partition %d", k)
	}
}

func TestInteractiveChallenges(t *testing.T) {
	var rid, seed [32]byte
	rid[0], seed[0] = 7, 9
	p := abi.RegisteredSealProof_StackedDrg32GiBV1_1
	var all []uint64
	for k := 0; k < 10; k++ {
		ch, err := porep.Challenges(p, rid, [32]byte{}, seed, k)
		require.NoError(t, err)
		require.Len(t, ch, 18)
		all = append(all, ch...)
	}
	// j = 18·k + i; value = SHA256(replica_id ‖ seed ‖ j LE) as LE mod (nodes−1) + 1
	for j, got := range all {
		h := sha256.New()
		h.Write(rid[:])
		h.Write(seed[:])
		binary.Write(h, binary.LittleEndian, uint32(j))
		d := h.Sum(nil)
		for a, b := 0, len(d)-1; a < b; a, b = a+1, b-1 {
			d[a], d[b] = d[b], d[a]
		}
		v := new(big.Int).SetBytes(d)
		v.Mod(v, big.NewInt(1<<30-1))
		assert.Equal(t, v.Uint64()+1, got, "challenge %d", j)
		assert.True(t, got >= 1 && got < 1<<30)
	}
	_, err := porep.Challenges(p, rid, [32]byte{}, seed, 10)
	assert.Error(t, err)
	_, err = porep.Challenges(20, rid, [32]byte{}, seed, 0)
	assert.ErrorIs(t, err, porep.ErrUnknownProof)
}

func TestNonInteractiveChallenges(t *testing.T) {
	var rid, commR, seed [32]byte
	rid[0], commR[0] = 3, 4
	p := abi.RegisteredSealProof_StackedDrg2KiBV1_2_Feat_NiPoRep
	ch, err := porep.Challenges(p, rid, commR, seed, 12)
	require.NoError(t, err)
	require.Len(t, ch, 2)
	h := sha256.New()
	h.Write([]byte("filecoin.io|PoRep|1|NonInteractive|1"))
	h.Write(rid[:])
	h.Write(commR[:])
	binary.Write(h, binary.LittleEndian, uint32(25))
	d := h.Sum(nil)
	for a, b := 0, len(d)-1; a < b; a, b = a+1, b-1 {
		d[a], d[b] = d[b], d[a]
	}
	v := new(big.Int).SetBytes(d)
	v.Mod(v, big.NewInt(63))
	assert.Equal(t, v.Uint64()+1, ch[1])
	// seed does not matter for NI-PoRep
	seed[5] = 1
	ch2, err := porep.Challenges(p, rid, commR, seed, 12)
	require.NoError(t, err)
	assert.Equal(t, ch, ch2)
}

func TestProverID(t *testing.T) {
	tests := []struct {
		miner abi.ActorID
		want  string
	}{
		{0, "00"},
		{1000, "e807"},
		{1<<63 + 5, "85808080808080808001"},
	}
	for _, tt := range tests {
		id := porep.ProverID(tt.miner)
		want, _ := hex.DecodeString(tt.want)
		assert.Equal(t, want, id[:len(want)])
		assert.Equal(t, make([]byte, 32-len(want)), id[len(want):])
	}
}

func TestReplicaID(t *testing.T) {
	var ticket, commD [32]byte
	ticket[0], commD[1] = 1, 2
	p := abi.RegisteredSealProof_StackedDrg2KiBV1_1
	got, err := porep.ReplicaID(p, 1000, 77, ticket, commD)
	require.NoError(t, err)
	prover := porep.ProverID(1000)
	porepID, _ := p.PoRepID()
	var msg []byte
	msg = append(msg, prover[:]...)
	msg = binary.BigEndian.AppendUint64(msg, 77)
	msg = append(msg, ticket[:]...)
	msg = append(msg, commD[:]...)
	msg = append(msg, porepID[:]...)
	want := sha256.Sum256(msg)
	want[31] &= 0x3f
	assert.Equal(t, want, got)
	assert.Equal(t, byte(5), porepID[0])
	_, err = porep.ReplicaID(-1, 1, 1, ticket, commD)
	assert.Error(t, err)

	// go-state-types derives the same replica_id wherever it knows the
	// porep_id (not for NI-PoRep, where porep.ReplicaID still answers).
	for q := abi.RegisteredSealProof(0); q <= 19; q++ {
		got, err := porep.ReplicaID(q, 1000, 77, ticket, commD)
		require.NoError(t, err)
		if want, err := q.ReplicaId(1000, 77, ticket[:], commD[:]); err == nil {
			assert.Equal(t, want, got, porep.ProofName(q))
		} else {
			assert.True(t, q.IsNonInteractive(), porep.ProofName(q))
		}
	}
}
