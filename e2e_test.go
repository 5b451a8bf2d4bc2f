package gpuc2_test

import (
	"context"
	"slices"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/filecoin-project/go-state-types/abi"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuc2/gpuc2"
	"github.com/gpuc2/gpuc2/groth16"
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
		gpu, err := groth16.Prove(ctx, &groth16.CUDAProver{}, pk, circuit, groth16.WithRandomness(r, s))
		require.NoError(t, err)
		want, _ := proof.MarshalBinary()
		got, _ := gpu.MarshalBinary()
		require.Equal(t, want, got, "CUDA proof differs from the CPU proof")
	}
	return proof
}

// The whole C2 path on a synthetic 2 KiB sector: a TEST-ONLY setup of the
// real partition circuit, a CPU proof, verification against the public
// inputs derived from the C1 — and rejection of another sector's inputs.
// With the native library the GPU proof must be the same bytes.
func TestProveSynthetic2KiB(t *testing.T) {
	if testing.Short() {
		t.Skip("a 2.7 M-constraint setup and proof take minutes on 2 cores")
	}
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
	if testing.Short() {
		t.Skip("a 2 KiB setup and proof take minutes on 2 cores")
	}
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
