package gpuc2_test

import (
	"context"
	"os"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	commcid "github.com/filecoin-project/go-fil-commcid"
	"github.com/filecoin-project/go-state-types/abi"
	"github.com/filecoin-project/go-state-types/proof"
	"github.com/ipfs/go-cid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuc2/gpuc2"
	"github.com/gpuc2/gpuc2/synth/post"
)

// filecoin-ffi's PoSt calls as ffi declares them (distributed.go,
// proofs.go); gpuc2's prover calls add a context in front, and ffi's
// *PartitionProof is a proof.PoStProof.
type (
	ffiGenerateSinglePartitionWindowPoStWithVanilla func(proofType abi.RegisteredPoStProof, minerID abi.ActorID,
		randomness abi.PoStRandomness, proofs [][]byte, partitionIndex uint) (*proof.PoStProof, error)
	ffiGenerateWinningPoStWithVanilla func(proofType abi.RegisteredPoStProof, minerID abi.ActorID,
		randomness abi.PoStRandomness, proofs [][]byte) ([]proof.PoStProof, error)
	ffiVerifyWindowPoSt  func(info proof.WindowPoStVerifyInfo) (bool, error)
	ffiVerifyWinningPoSt func(info proof.WinningPoStVerifyInfo) (bool, error)
)

// TestPoStDropInSignatures fails to compile if gpuc2's PoSt calls drift
// from ffi's shapes.
func TestPoStDropInSignatures(t *testing.T) {
	var p *gpuc2.Prover
	ctx := context.Background()
	var _ ffiGenerateSinglePartitionWindowPoStWithVanilla = func(pt abi.RegisteredPoStProof, m abi.ActorID,
		r abi.PoStRandomness, v [][]byte, k uint) (*proof.PoStProof, error) {
		return p.GenerateSinglePartitionWindowPoStWithVanilla(ctx, pt, m, r, v, k)
	}
	var _ ffiGenerateWinningPoStWithVanilla = func(pt abi.RegisteredPoStProof, m abi.ActorID, r abi.PoStRandomness,
		v [][]byte) ([]proof.PoStProof, error) {
		return p.GenerateWinningPoStWithVanilla(ctx, pt, m, r, v)
	}
	var _ ffiVerifyWindowPoSt = p.VerifyWindowPoSt
	var _ ffiVerifyWinningPoSt = p.VerifyWinningPoSt
}

var postRandomness = abi.PoStRandomness{9, 8, 7, 6, 5, 4, 3, 2, 1, 31: 0x11}

// syntheticPoSt is made-up vanilla proofs for sectors (ascending) and what
// the chain knows of them.
type syntheticPoSt struct {
	vanilla [][]byte
	sectors []proof.SectorInfo
}

func newSyntheticPoSt(t *testing.T, pt abi.RegisteredPoStProof, seal abi.RegisteredSealProof, randomness abi.PoStRandomness,
	ids ...uint64) syntheticPoSt {
	t.Helper()
	params, err := post.ParamsFor(pt)
	require.NoError(t, err)
	rnd, err := post.Randomness(randomness)
	require.NoError(t, err)
	proofs, err := post.SyntheticSectorProofs(context.Background(), params, rnd, ids, 5)
	require.NoError(t, err)
	s := syntheticPoSt{vanilla: post.EncodeSectorProofs(proofs)}
	for _, sp := range proofs {
		s.sectors = append(s.sectors, proof.SectorInfo{SealProof: seal, SectorNumber: abi.SectorNumber(sp.SectorID),
			SealedCID: sealedCID(t, sp.CommR)})
	}
	return s
}

func sealedCID(t *testing.T, commR fr.Element) cid.Cid {
	t.Helper()
	var b [32]byte
	fr.LittleEndian.PutElement(&b, commR)
	c, err := commcid.ReplicaCommitmentV1ToCID(b[:])
	require.NoError(t, err)
	return c
}

// A 2 KiB WindowPoSt partition and WinningPoSt proved on the CPU verify as
// filecoin-ffi verifies them, and fail for a flipped comm_r, another
// randomness, a dropped sector. The prover id does not enter a PoSt proof:
// another miner's verifies too, as in ffi (the chain binds the sectors
// through their comm_r).
func TestPoSt2KiB(t *testing.T) {
	testPoSt(t, abi.RegisteredPoStProof_StackedDrgWindow2KiBV1_1, abi.RegisteredPoStProof_StackedDrgWinning2KiBV1,
		abi.RegisteredSealProof_StackedDrg2KiBV1_1)
}

// The same at 8 MiB (TEST-ONLY setups made on the CPU, about a minute on
// 2 cores): opt-in with GPUC2_TEST_FACADE=1, run by CI.
func TestPoSt8MiB(t *testing.T) {
	if os.Getenv("GPUC2_TEST_FACADE") == "" {
		t.Skip("set GPUC2_TEST_FACADE=1: 8 MiB PoSt setups and proofs on the CPU")
	}
	testPoSt(t, abi.RegisteredPoStProof_StackedDrgWindow8MiBV1_1, abi.RegisteredPoStProof_StackedDrgWinning8MiBV1,
		abi.RegisteredSealProof_StackedDrg8MiBV1_1)
}

func testPoSt(t *testing.T, window, winning abi.RegisteredPoStProof, seal abi.RegisteredSealProof) {
	ctx := context.Background()
	p, err := gpuc2.New(ctx, gpuc2.Config{ParamsDir: t.TempDir(), TestParamsDir: t.TempDir(), Backend: gpuc2.BackendCPU})
	require.NoError(t, err)
	defer p.Close()
	miner := abi.ActorID(1000)

	t.Run("window", func(t *testing.T) {
		pt := window
		s := newSyntheticPoSt(t, pt, seal, postRandomness, 3, 9)
		pp, err := p.GenerateSinglePartitionWindowPoStWithVanilla(ctx, pt, miner, postRandomness, s.vanilla, 0)
		require.NoError(t, err)
		assert.Equal(t, pt, pp.PoStProof)
		assert.Len(t, pp.ProofBytes, 192)
		info := proof.WindowPoStVerifyInfo{Randomness: postRandomness, Proofs: []proof.PoStProof{*pp},
			ChallengedSectors: s.sectors, Prover: miner}
		ok, err := p.VerifyWindowPoSt(info)
		require.NoError(t, err)
		assert.True(t, ok)

		// The sectors in another order, or one repeated: the verifier's
		// ascending set, so the same answer.
		swapped := info
		swapped.ChallengedSectors = []proof.SectorInfo{s.sectors[1], s.sectors[0], s.sectors[1]}
		ok, err = p.VerifyWindowPoSt(swapped)
		require.NoError(t, err)
		assert.True(t, ok)

		other := info
		other.Prover = 2000
		ok, err = p.VerifyWindowPoSt(other)
		require.NoError(t, err)
		assert.True(t, ok, "the prover id does not enter the proof")

		// A path that misses comm_r_last is found by the synthesis' check of
		// the hashes (post.Circuit.Verify): the sector named as the parse
		// names the others' faults, nothing proved.
		sp, err := post.DecodeSectorProof(s.vanilla[1], 1)
		require.NoError(t, err)
		sp.Openings[0].Inclusions[2].Base[0].Hashes[1].SetUint64(1)
		tampered := [][]byte{s.vanilla[0], post.EncodeSectorProofs([]*post.SectorProof{sp})[0]}
		_, err = p.GenerateSinglePartitionWindowPoStWithVanilla(ctx, pt, miner, postRandomness, tampered, 0)
		var fe *gpuc2.FaultySectorsError
		require.ErrorAs(t, err, &fe)
		assert.ErrorIs(t, err, gpuc2.ErrBadInput)
		assert.Equal(t, []abi.SectorNumber{9}, fe.Sectors)
		assert.Contains(t, fe.Reasons[0], "challenge 2")
		assert.Contains(t, fe.Reasons[0], "does not lead from its leaf to comm_r_last")

		for name, change := range map[string]func(*proof.WindowPoStVerifyInfo){
			"flipped comm_r": func(i *proof.WindowPoStVerifyInfo) {
				i.ChallengedSectors = []proof.SectorInfo{s.sectors[0], s.sectors[1]}
				i.ChallengedSectors[1].SealedCID = s.sectors[0].SealedCID
			},
			"other randomness": func(i *proof.WindowPoStVerifyInfo) { i.Randomness = abi.PoStRandomness{1, 31: 0} },
			"dropped sector":   func(i *proof.WindowPoStVerifyInfo) { i.ChallengedSectors = s.sectors[:1] },
			"other sector number": func(i *proof.WindowPoStVerifyInfo) {
				i.ChallengedSectors = []proof.SectorInfo{s.sectors[0], s.sectors[1]}
				i.ChallengedSectors[1].SectorNumber = 10
			},
		} {
			bad := info
			change(&bad)
			ok, err := p.VerifyWindowPoSt(bad)
			require.NoError(t, err, name)
			assert.False(t, ok, name)
		}

		// A partition of one sector is padded with it, and verifies alone.
		one := newSyntheticPoSt(t, pt, seal, postRandomness, 4)
		pp, err = p.GenerateSinglePartitionWindowPoStWithVanilla(ctx, pt, miner, postRandomness, one.vanilla, 3)
		require.NoError(t, err)
		ok, err = p.VerifyWindowPoSt(proof.WindowPoStVerifyInfo{Randomness: postRandomness, Proofs: []proof.PoStProof{*pp},
			ChallengedSectors: one.sectors, Prover: miner})
		require.NoError(t, err)
		assert.True(t, ok)
	})

	t.Run("winning", func(t *testing.T) {
		pt := winning
		s := newSyntheticPoSt(t, pt, seal, postRandomness, 77)
		pps, err := p.GenerateWinningPoStWithVanilla(ctx, pt, miner, postRandomness, s.vanilla)
		require.NoError(t, err)
		require.Len(t, pps, 1)
		info := proof.WinningPoStVerifyInfo{Randomness: postRandomness, Proofs: pps, ChallengedSectors: s.sectors, Prover: miner}
		ok, err := p.VerifyWinningPoSt(info)
		require.NoError(t, err)
		assert.True(t, ok)
		bad := info
		bad.Randomness = abi.PoStRandomness{2, 31: 0}
		ok, err = p.VerifyWinningPoSt(bad)
		require.NoError(t, err)
		assert.False(t, ok)
		bad = info
		bad.ChallengedSectors = []proof.SectorInfo{s.sectors[0]}
		bad.ChallengedSectors[0].SealProof = abi.RegisteredSealProof_StackedDrg512MiBV1_1
		_, err = p.VerifyWinningPoSt(bad)
		assert.ErrorIs(t, err, gpuc2.ErrBadInput)
	})
}

// Bad PoSt requests are refused before any work: faulty sectors listed (a
// *FaultySectorsError naming each), a retired type by name, randomness
// that is no field element, sectors out of order, too many sectors.
func TestPoStBadInput(t *testing.T) {
	ctx := context.Background()
	p, err := gpuc2.New(ctx, gpuc2.Config{ParamsDir: t.TempDir(), Backend: gpuc2.BackendCPU})
	require.NoError(t, err)
	defer p.Close()
	pt := abi.RegisteredPoStProof_StackedDrgWindow2KiBV1_1
	seal := abi.RegisteredSealProof_StackedDrg2KiBV1_1
	good := newSyntheticPoSt(t, pt, seal, postRandomness, 3)
	stale := newSyntheticPoSt(t, pt, seal, abi.PoStRandomness{4, 31: 0}, 9) // made for another randomness
	req := gpuc2.PoStRequest{ProofType: pt, Miner: 1000, Randomness: postRandomness, VanillaProofs: append(good.vanilla, stale.vanilla...)}
	_, err = p.ProvePoSt(ctx, req)
	var fe *gpuc2.FaultySectorsError
	require.ErrorAs(t, err, &fe)
	assert.ErrorIs(t, err, gpuc2.ErrBadInput)
	assert.Equal(t, []abi.SectorNumber{9}, fe.Sectors)
	assert.Contains(t, fe.Reasons[0], "made for another randomness")
	assert.ErrorContains(t, err, "faulty sectors [9]")
	var se *post.SectorError
	require.ErrorAs(t, err, &se)

	for name, r := range map[string]gpuc2.PoStRequest{
		"retired type":   {ProofType: abi.RegisteredPoStProof_StackedDrgWindow2KiBV1, Randomness: postRandomness, VanillaProofs: good.vanilla},
		"randomness":     {ProofType: pt, Randomness: make([]byte, 32), VanillaProofs: good.vanilla},
		"out of order":   {ProofType: pt, Randomness: postRandomness, VanillaProofs: [][]byte{stale.vanilla[0], good.vanilla[0]}},
		"three sectors":  {ProofType: pt, Randomness: postRandomness, VanillaProofs: [][]byte{good.vanilla[0], good.vanilla[0], good.vanilla[0]}},
		"no sectors":     {ProofType: pt, Randomness: postRandomness},
		"winning of two": {ProofType: abi.RegisteredPoStProof_StackedDrgWinning2KiBV1, Randomness: postRandomness, VanillaProofs: req.VanillaProofs},
		"empty proof":    {ProofType: pt, Randomness: postRandomness, VanillaProofs: [][]byte{{}}},
	} {
		if name == "randomness" {
			r.Randomness[31] = 0xff
		}
		_, err := p.ProvePoSt(ctx, r)
		assert.ErrorIs(t, err, gpuc2.ErrBadInput, name)
	}
	_, err = p.ProvePoSt(ctx, gpuc2.PoStRequest{ProofType: abi.RegisteredPoStProof_StackedDrgWindow32GiBV1, Randomness: postRandomness,
		VanillaProofs: good.vanilla})
	assert.ErrorContains(t, err, "FIP-0061")
	_, ok := gpuc2.PoStProofCircuit(abi.RegisteredPoStProof_StackedDrgWindow32GiBV1)
	assert.False(t, ok)
	c, ok := gpuc2.PoStProofCircuit(abi.RegisteredPoStProof_StackedDrgWindow32GiBV1_1)
	require.True(t, ok)
	assert.Equal(t, "wpost-32g", c.ID)
	assert.Equal(t, "WINDOW_POST_PARTITION", c.ProofKind)
	assert.True(t, gpuc2.IsWinningPoSt(abi.RegisteredPoStProof_StackedDrgWinning64GiBV1))
	assert.False(t, gpuc2.IsWinningPoSt(abi.RegisteredPoStProof_StackedDrgWindow64GiBV1_1))
}
