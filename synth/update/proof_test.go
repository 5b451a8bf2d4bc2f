package update_test

import (
	"context"
	"crypto/sha256"
	"math/rand/v2"
	"os"
	"runtime/debug"
	"testing"
	"time"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuc2/gpuc2/groth16"
	"github.com/gpuc2/gpuc2/groth16/gpu"
	"github.com/gpuc2/gpuc2/msm/cuda"
	"github.com/gpuc2/gpuc2/synth/update"
)

// envTestProof opts in to a CPU Groth16 setup and proof of the 2 KiB update
// circuit (minutes on 2 cores).
const envTestProof = "GPUC2_TEST_UPDATE_PROOF"

// A CPU proof of a synthetic 2 KiB update's partition, under a TEST-ONLY
// setup, verifies against the natively computed public inputs, and not
// against a flipped commitment, another partition's inputs or another
// sector's:
//
//	GPUC2_TEST_UPDATE_PROOF=1 go test -run TestProve2KiB -v ./synth/update
func TestProve2KiB(t *testing.T) {
	if testing.Short() || os.Getenv(envTestProof) == "" {
		t.Skipf("set %s=1 for a 2 KiB update setup and CPU proof (minutes on 2 cores)", envTestProof)
	}
	ctx := context.Background()
	p := params(t, 2<<10)
	pk, err := groth16.Setup(ctx, &update.Circuit{Params: p}, rand.NewChaCha8([32]byte{47}))
	require.NoError(t, err)
	defer pk.Close()
	s := synthetic(t, 2<<10, 1)
	w, err := s.Witness(0)
	require.NoError(t, err)
	proof, err := groth16.Prove(ctx, &groth16.CPUProver{}, pk, &update.Circuit{Params: p, Witness: w})
	require.NoError(t, err)

	public, err := s.PublicInputs(0)
	require.NoError(t, err)
	ok, err := groth16.Verify(pk.VerifyingKey(), proof, public)
	require.NoError(t, err)
	assert.True(t, ok, "the proof verifies")

	one := fr.One()
	for i, name := range []string{"k_and_h_select", "comm_r_old", "comm_d_new", "comm_r_new"} {
		bad := append([]fr.Element(nil), public...)
		bad[i].Add(&bad[i], &one)
		ok, err := groth16.Verify(pk.VerifyingKey(), proof, bad)
		require.NoError(t, err)
		assert.False(t, ok, "verifies with %s flipped", name)
	}
	other := synthetic(t, 2<<10, 2)
	otherPublic, err := other.PublicInputs(0)
	require.NoError(t, err)
	ok, err = groth16.Verify(pk.VerifyingKey(), proof, otherPublic)
	require.NoError(t, err)
	assert.False(t, ok, "verifies for another sector")
}

// envTestGPU opts in to TestGPUEqualsCPU on a machine with the native CUDA
// library; envGPUSize picks its sector size (default 8MiB; 32GiB proves
// one partition of the 81 M-constraint circuit: a TEST-ONLY setup on the
// GPU and a CPU proof of minutes on 16 cores).
const (
	envTestGPU = "GPUC2_TEST_UPDATE_GPU"
	envGPUSize = "GPUC2_UPDATE_GPU_SIZE"
)

// On a GPU, the CUDA prover's proof of a synthetic update partition equals
// the CPU prover's byte for byte for the same r and s, resident and
// streamed, and verifies:
//
//	GPUC2_TEST_UPDATE_GPU=1 [GPUC2_UPDATE_GPU_SIZE=32GiB] ./update.test -test.run TestGPUEqualsCPU -test.v
func TestGPUEqualsCPU(t *testing.T) {
	if os.Getenv(envTestGPU) == "" {
		t.Skipf("set %s=1 on a GPU machine", envTestGPU)
	}
	if !gpu.CUDAAvailable() {
		t.Skip("no native CUDA library")
	}
	size := uint64(8 << 20)
	if os.Getenv(envGPUSize) == "32GiB" {
		size = 32 << 30
	}
	ctx := context.Background()
	p := params(t, size)
	start := time.Now()
	pk, err := groth16.Setup(ctx, &update.Circuit{Params: p}, rand.NewChaCha8([32]byte{48}), groth16.WithSetupEngine(cuda.Engine{Device: 0}))
	require.NoError(t, err)
	defer pk.Close()
	t.Logf("%d-byte update circuit: TEST-ONLY setup on the GPU in %v", size, time.Since(start))
	s, err := update.NewSynthetic(p, 1)
	require.NoError(t, err)
	k := p.Partitions - 1
	w, err := s.Witness(k)
	require.NoError(t, err)
	c := &update.Circuit{Params: p, Witness: w}
	var r, sv fr.Element
	r.SetUint64(0x5eed47)
	sv.SetUint64(0xc0ffee)
	rs := groth16.WithRandomness(r, sv)

	start = time.Now()
	want, err := groth16.Prove(ctx, &groth16.CPUProver{}, pk, c, rs)
	require.NoError(t, err)
	t.Logf("CPU proof in %v", time.Since(start))
	wb, err := want.MarshalBinary()
	require.NoError(t, err)
	public, err := s.PublicInputs(k)
	require.NoError(t, err)
	ok, err := groth16.Verify(pk.VerifyingKey(), want, public)
	require.NoError(t, err)
	require.True(t, ok, "the CPU proof verifies")

	t.Logf("CPU proof: sha256 %x", sha256.Sum256(wb))
	for _, mode := range []struct {
		name string
		cfg  gpu.Config
	}{{"resident", gpu.Config{}}, {"streaming", gpu.Config{NoResident: true}}} {
		name, cfg := mode.name, mode.cfg
		// The CPU proof's garbage goes back before a streamed key is pinned
		// beside the heap's (at 32 GiB, 34 GB each of 128 GiB).
		debug.FreeOSMemory()
		cfg.Ordinals = []int{0}
		devs, err := gpu.Open(cfg)
		require.NoError(t, err)
		gp := devs.Device(0)
		start = time.Now()
		got, err := groth16.Prove(ctx, gp, pk, c, rs)
		require.NoError(t, err, name)
		t.Logf("GPU proof (%s) in %v", name, time.Since(start))
		gb, err := got.MarshalBinary()
		require.NoError(t, err)
		t.Logf("GPU proof (%s): sha256 %x", name, sha256.Sum256(gb))
		assert.Equal(t, wb, gb, "%s: GPU proof differs from the CPU's", name)
		require.NoError(t, devs.Close())
	}
}
