package gpuc2_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	commcid "github.com/filecoin-project/go-fil-commcid"
	"github.com/filecoin-project/go-state-types/abi"
	"github.com/filecoin-project/go-state-types/proof"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuc2/gpuc2"
	"github.com/gpuc2/gpuc2/groth16"
	"github.com/gpuc2/gpuc2/groth16/aggregate"
	"github.com/gpuc2/gpuc2/groth16/gpu"
	"github.com/gpuc2/gpuc2/native"
	"github.com/gpuc2/gpuc2/synth"
	"github.com/gpuc2/gpuc2/synth/porep"
)

// syntheticPartition generates a synthetic sector of type p, checks it
// natively, and returns partition 0's circuit, its public inputs and the
// cached TEST-ONLY key.
func syntheticPartition(t *testing.T, p abi.RegisteredSealProof, sector abi.SectorNumber, seed byte) (synth.Circuit, []fr.Element, *groth16.ProvingKey) {
	t.Helper()
	ctx := context.Background()
	miner := abi.ActorID(1000)
	c1, err := porep.SyntheticC1(ctx, p, miner, sector, [32]byte{seed})
	require.NoError(t, err)
	require.NoError(t, c1.CheckAll(ctx, miner, sector))
	pk, _, _, err := gpuc2.TestParams(ctx, testParamsDir(t), p)
	require.NoError(t, err)
	circuit, err := c1.Circuit(0)
	require.NoError(t, err)
	public, err := porep.PublicInputs(c1, miner, sector, 0)
	require.NoError(t, err)
	return circuit, public, pk
}

// proveCPUAndGPU proves circuit on the CPU and, with the native library, on
// the GPU with the same r, s, requires the two to be the same bytes, and
// returns the CPU proof.
func proveCPUAndGPU(t *testing.T, pk *groth16.ProvingKey, circuit synth.Circuit) *groth16.Proof {
	t.Helper()
	ctx := context.Background()
	var r, s fr.Element
	_, _ = r.SetRandom()
	_, _ = s.SetRandom()
	proof, err := groth16.Prove(ctx, &groth16.CPUProver{}, pk, circuit, groth16.WithRandomness(r, s))
	require.NoError(t, err)
	if native.Available() {
		devs, err := gpu.Open(gpu.Config{Ordinals: []int{0}})
		require.NoError(t, err)
		defer devs.Close()
		onGPU, err := groth16.Prove(ctx, devs.Device(0), pk, circuit, groth16.WithRandomness(r, s))
		require.NoError(t, err)
		want, _ := proof.MarshalBinary()
		got, _ := onGPU.MarshalBinary()
		require.Equal(t, want, got, "CUDA proof differs from the CPU proof")
	}
	return proof
}

// The whole C2 path on a synthetic 2 KiB sector: a TEST-ONLY setup of the
// real partition circuit, a CPU proof, verification against the public
// inputs derived from the C1 — and rejection of another sector's inputs.
// With the native library the GPU proof must be the same bytes.
func TestProveSynthetic2KiB(t *testing.T) {
	needFacadeProofs(t)
	circuit, public, pk := syntheticPartition(t, abi.RegisteredSealProof_StackedDrg2KiBV1_1, 7, 1)
	proof := proveCPUAndGPU(t, pk, circuit)
	ok, err := groth16.Verify(pk.VerifyingKey(), proof, public)
	require.NoError(t, err)
	assert.True(t, ok)

	other := append([]fr.Element(nil), public...)
	other[3].SetUint64(12345) // a challenge index of another sector
	ok, err = groth16.Verify(pk.VerifyingKey(), proof, other)
	require.NoError(t, err)
	assert.False(t, ok)
}

// Synthetic PoRep through the facade: a 2 KiB sector built in full (its
// challenges are selected with the seed from a set derived from comm_r),
// proven with the TEST-ONLY setup that V1_1 shares, and accepted by
// VerifySeal, which derives the challenges from the info alone. A flipped
// seed selects other challenges, so the proof no longer verifies.
func TestProveSealSyntheticPoRep2KiB(t *testing.T) {
	needFacadeProofs(t)
	ctx := context.Background()
	spt := abi.RegisteredSealProof_StackedDrg2KiBV1_1_Feat_SyntheticPoRep
	miner, sector := abi.ActorID(1000), abi.SectorNumber(11)
	c1, err := porep.SyntheticC1(ctx, spt, miner, sector, [32]byte{11})
	require.NoError(t, err)
	raw, err := c1.EncodeJSON()
	require.NoError(t, err)
	p, err := gpuc2.New(ctx, gpuc2.Config{ParamsDir: t.TempDir(), TestParamsDir: testParamsDir(t), Backend: gpuc2.BackendCPU})
	require.NoError(t, err)
	defer p.Close()

	res, err := p.ProveSeal(ctx, gpuc2.SealRequest{C1: raw, Sector: sector, Miner: miner})
	require.NoError(t, err)
	require.Len(t, res.Proof, len(c1.VanillaProofs)*groth16.ProofSize)
	info := res.VerifyInfo
	assert.Equal(t, spt, info.SealProof)
	ok, err := p.VerifySeal(info)
	require.NoError(t, err)
	assert.True(t, ok)

	flipped := info
	flipped.InteractiveRandomness = slices.Clone(info.InteractiveRandomness)
	flipped.InteractiveRandomness[0] ^= 1
	ok, err = p.VerifySeal(flipped)
	require.NoError(t, err)
	assert.False(t, ok, "flipped seed")
}

// On a GPU, an 8 MiB partition's CUDA proof equals the CPU's for the same r, s.
func TestCUDAProof8MiBEqualsCPU(t *testing.T) {
	if testing.Short() || !native.Available() {
		t.Skip("needs the native CUDA library (and minutes)")
	}
	circuit, public, pk := syntheticPartition(t, abi.RegisteredSealProof_StackedDrg8MiBV1_1, 8, 8)
	proof := proveCPUAndGPU(t, pk, circuit)
	ok, err := groth16.Verify(pk.VerifyingKey(), proof, public)
	require.NoError(t, err)
	assert.True(t, ok)
}

// NI-PoRep through filecoin-ffi's SealCommitPhase2CircuitProofs: a 2 KiB
// sector built in full (its challenges are hashed from replica_id and
// comm_r), proven with the TEST-ONLY setup that V1_1 shares (same circuit,
// 13 partitions instead of 1). Each partition proof verifies against the
// public inputs derived from the on-chain values alone, and not against
// another partition's. Aggregated as filecoin-proofs' seal_commit_phase2
// aggregates them (AggregateSealProofs of the one sector, SnarkPackV2),
// they pass VerifySeal and VerifyAggregateSeals; with another seed too (an
// NI-PoRep's challenges and transcript do not depend on it), not with
// another comm_r, nor as SnarkPackV1.
func TestSealCommitPhase2CircuitProofsNonInteractive2KiB(t *testing.T) {
	needNIProofs(t)
	ctx := context.Background()
	ni := abi.RegisteredSealProof_StackedDrg2KiBV1_2_Feat_NiPoRep
	miner, sector := abi.ActorID(1000), abi.SectorNumber(15)
	c1, err := porep.SyntheticC1(ctx, ni, miner, sector, [32]byte{15})
	require.NoError(t, err)
	raw, err := c1.EncodeJSON()
	require.NoError(t, err)
	sp, err := porep.ParamsFor(ni)
	require.NoError(t, err)
	require.Equal(t, 13, sp.Partitions)
	p, err := gpuc2.New(ctx, gpuc2.Config{ParamsDir: t.TempDir(), TestParamsDir: testParamsDir(t)})
	require.NoError(t, err)
	defer p.Close()

	out, err := p.SealCommitPhase2CircuitProofs(ctx, raw, sector)
	require.NoError(t, err)
	require.Len(t, out, sp.Partitions*groth16.ProofSize)

	proofs, err := groth16.UnmarshalProofs(out)
	require.NoError(t, err)
	pk, path, _, err := gpuc2.TestParams(ctx, testParamsDir(t), ni)
	require.NoError(t, err)
	defer pk.Close()
	assert.Equal(t, gpuc2.TestParamsPath(testParamsDir(t), abi.RegisteredSealProof_StackedDrg2KiBV1_1), path)
	pvk := groth16.PrepareVerifyingKey(pk.VerifyingKey())
	g, err := porep.NewGraph(ni)
	require.NoError(t, err)
	var rid, commR [32]byte
	fr.LittleEndian.PutElement(&rid, c1.ReplicaID)
	fr.LittleEndian.PutElement(&commR, c1.CommR)
	public := make([][]fr.Element, sp.Partitions)
	for k := range public {
		public[k], err = porep.PublicInputsFor(g, ni, rid, c1.CommD, commR, c1.Seed, k)
		require.NoError(t, err)
		ok, err := pvk.Verify(&proofs[k], public[k])
		require.NoError(t, err)
		assert.True(t, ok, "partition %d", k)
	}
	ok, err := pvk.Verify(&proofs[0], public[1])
	require.NoError(t, err)
	assert.False(t, ok, "partition 0's proof against partition 1's inputs")

	info, err := gpuc2.NewSealVerifyInfo(raw, nil, sector, miner)
	require.NoError(t, err)
	agg := proof.AggregateSealVerifyProofAndInfos{Miner: miner, SealProof: ni, AggregateProof: abi.RegisteredAggregationProof_SnarkPackV2,
		Infos: []proof.AggregateSealVerifyInfo{aggregateInfo(info)}}
	agg.Proof, err = p.AggregateSealProofs(ctx, agg, [][]byte{out})
	require.NoError(t, err)
	size, err := aggregate.EncodedSize(16)
	require.NoError(t, err)
	assert.Len(t, agg.Proof, size, "13 partition proofs padded to 16")
	ok, err = p.VerifyAggregateSeals(agg)
	require.NoError(t, err)
	assert.True(t, ok)
	info.Proof = agg.Proof
	ok, err = p.VerifySeal(info)
	require.NoError(t, err)
	assert.True(t, ok, "VerifySeal: an NI-PoRep proof is the aggregate of its partition proofs")

	otherSeed := info
	otherSeed.InteractiveRandomness = slices.Clone(info.InteractiveRandomness)
	otherSeed.InteractiveRandomness[0] ^= 1
	ok, err = p.VerifySeal(otherSeed)
	require.NoError(t, err)
	assert.True(t, ok, "the seed plays no part in NI-PoRep")
	otherCommR := info
	cr, err := commcid.CIDToReplicaCommitmentV1(info.SealedCID)
	require.NoError(t, err)
	cr = slices.Clone(cr)
	cr[0] ^= 1 // the low bit: still a field element
	otherCommR.SealedCID, err = commcid.ReplicaCommitmentV1ToCID(cr)
	require.NoError(t, err)
	ok, err = p.VerifySeal(otherCommR)
	require.NoError(t, err)
	assert.False(t, ok, "another comm_r")

	v1 := agg
	v1.AggregateProof = abi.RegisteredAggregationProof_SnarkPackV1
	v1.Proof, err = p.AggregateSealProofs(ctx, v1, [][]byte{out})
	require.NoError(t, err)
	ok, err = p.VerifyAggregateSeals(v1)
	require.NoError(t, err)
	assert.True(t, ok, "SnarkPackV1 checked as V1")
	info.Proof = v1.Proof
	ok, err = p.VerifySeal(info)
	require.NoError(t, err)
	assert.False(t, ok, "VerifySeal checks V2 aggregates")
}

// needNIProofs opts in to the tests that prove a 2 KiB NI-PoRep sector's
// 13 partitions.
func needNIProofs(t *testing.T) {
	t.Helper()
	if testing.Short() || os.Getenv("GPUC2_TEST_NI") == "" {
		t.Skip("set GPUC2_TEST_NI=1 to prove 13 NI-PoRep partitions (about 15 CPU-minutes; .ci/run does, in a run of its own)")
	}
}

// filecoin-ffi's SealCommitPhase2 of an NI-PoRep sector: the SnarkPack
// aggregate (V2) of its 13 partition proofs padded to 16, self-verified;
// VerifySeal accepts it and ProveSeal's VerifyInfo carries it.
func TestSealCommitPhase2NonInteractive2KiB(t *testing.T) {
	needNIProofs(t)
	ctx := context.Background()
	ni := abi.RegisteredSealProof_StackedDrg2KiBV1_2_Feat_NiPoRep
	miner, sector := abi.ActorID(1000), abi.SectorNumber(16)
	c1, err := porep.SyntheticC1(ctx, ni, miner, sector, [32]byte{16})
	require.NoError(t, err)
	raw, err := c1.EncodeJSON()
	require.NoError(t, err)
	p, err := gpuc2.New(ctx, gpuc2.Config{ParamsDir: t.TempDir(), TestParamsDir: testParamsDir(t)})
	require.NoError(t, err)
	defer p.Close()

	res, err := p.ProveSeal(ctx, gpuc2.SealRequest{C1: raw, Sector: sector, Miner: miner})
	require.NoError(t, err)
	t.Logf("timings: %+v", res.Timings)
	assert.Positive(t, res.Timings.Aggregate)
	require.Len(t, res.Partitions, 13)
	size, err := aggregate.EncodedSize(16)
	require.NoError(t, err)
	require.Len(t, res.Proof, size)
	assert.Equal(t, res.Proof, res.VerifyInfo.Proof)
	ok, err := p.VerifySeal(res.VerifyInfo)
	require.NoError(t, err)
	assert.True(t, ok)

	// SealCommitPhase2's bytes are ProveSeal's Proof: the same check.
	info, err := gpuc2.NewSealVerifyInfo(raw, res.Proof, sector, miner)
	require.NoError(t, err)
	ok, err = p.VerifySeal(info)
	require.NoError(t, err)
	assert.True(t, ok)

	// The partition proofs aggregated again give the same bytes.
	parts, err := groth16.MarshalProofs(res.Partitions)
	require.NoError(t, err)
	again, err := p.AggregateSealProofs(ctx, proof.AggregateSealVerifyProofAndInfos{Miner: miner, SealProof: ni,
		AggregateProof: abi.RegisteredAggregationProof_SnarkPackV2, Infos: []proof.AggregateSealVerifyInfo{aggregateInfo(info)}},
		[][]byte{parts})
	require.NoError(t, err)
	assert.Equal(t, res.Proof, again)
}

// Matrices recorded from one sector prove another (every sector of a proof
// type has the same constraint matrices; MatricesOn uses them on the CPU,
// where MatricesAuto does not), a second Prover reads them from the cache
// file the first wrote, and MatricesOff proves from a full synthesis:
// every proof verifies; the matrices held on the host count against the
// automatic host budget.
func TestProveSealWithAndWithoutMatrices(t *testing.T) {
	needFacadeProofs(t)
	ctx := context.Background()
	miner := abi.ActorID(1000)
	cache := t.TempDir()
	var budgets []int64 // the automatic host budget's limit once the parameters (and matrices) are loaded
	for i, mode := range []gpuc2.MatricesMode{gpuc2.MatricesOn, gpuc2.MatricesOn, gpuc2.MatricesOff} {
		p, err := gpuc2.New(ctx, gpuc2.Config{ParamsDir: t.TempDir(), TestParamsDir: testParamsDir(t),
			Backend: gpuc2.BackendCPU, ConstraintMatrices: mode, MatricesCacheDir: cache})
		require.NoError(t, err)
		sectors := []abi.SectorNumber{21, 22} // the second with the first's matrices
		if i > 0 {
			sectors = sectors[:1]
		}
		for _, sector := range sectors {
			_, raw := syntheticC1JSON(t, miner, sector)
			res, err := p.ProveSeal(ctx, gpuc2.SealRequest{C1: raw, Sector: sector, Miner: miner})
			require.NoError(t, err)
			ok, err := p.VerifySeal(res.VerifyInfo)
			require.NoError(t, err)
			assert.True(t, ok, "run %d, ConstraintMatrices %q, sector %d", i, mode, sector)
		}
		budgets = append(budgets, p.Status().HostBudgetBytes)
		require.NoError(t, p.Close())
		files, err := filepath.Glob(filepath.Join(cache, "*.pce"))
		require.NoError(t, err)
		assert.Len(t, files, 1, "the first run's cache file, read by the second")
	}
	// The matrices held on the host (121.9 MB at 2 KiB) leave the automatic
	// host budget as loaded parameters do.
	assert.Equal(t, budgets[0], budgets[1])
	assert.InDelta(t, 121.9e6, float64(budgets[2]-budgets[0]), 2e6, "the matrices' bytes")
}
