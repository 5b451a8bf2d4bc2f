package post_test

import (
	"context"
	"crypto/sha256"
	"fmt"
	"math/rand/v2"
	"os"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/filecoin-project/go-state-types/abi"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuc2/gpuc2/groth16"
	"github.com/gpuc2/gpuc2/groth16/gpu"
	"github.com/gpuc2/gpuc2/msm/cuda"
	"github.com/gpuc2/gpuc2/synth/post"
)

// A 2 KiB WindowPoSt proof made and verified with a TEST-ONLY setup on the
// CPU; another randomness's inputs do not verify it.
func TestProveVerify2KiB(t *testing.T) {
	ctx := context.Background()
	p := params(t, abi.RegisteredPoStProof_StackedDrgWindow2KiBV1_1)
	pk, err := groth16.Setup(ctx, &post.Circuit{Params: p}, rand.NewChaCha8([32]byte{56}))
	require.NoError(t, err)
	defer pk.Close()
	proofs, err := post.SyntheticSectorProofs(ctx, p, randomness, []uint64{2, 5}, 4)
	require.NoError(t, err)
	w, err := post.WitnessFor(p, proofs)
	require.NoError(t, err)
	proof, err := groth16.Prove(ctx, &groth16.CPUProver{}, pk, &post.Circuit{Params: p, Witness: w})
	require.NoError(t, err)
	public := []post.PublicSector{{ID: 2, CommR: proofs[0].CommR}, {ID: 5, CommR: proofs[1].CommR}}
	in, err := p.PublicInputs(randomness, public, 0)
	require.NoError(t, err)
	ok, err := groth16.Verify(pk.VerifyingKey(), proof, in)
	require.NoError(t, err)
	assert.True(t, ok)
	in, err = p.PublicInputs([32]byte{1}, public, 0)
	require.NoError(t, err)
	ok, err = groth16.Verify(pk.VerifyingKey(), proof, in)
	require.NoError(t, err)
	assert.False(t, ok, "verifies for another randomness")
}

// envTestGPU opts in to TestGPUEqualsCPU on a machine with the native CUDA
// library; envGPUTypes picks the proof types (default the 8 MiB WindowPoSt
// and WinningPoSt; "32GiB" one full 32 GiB WindowPoSt partition of 2,349
// sectors: a TEST-ONLY setup on the GPU and a CPU proof of minutes on 16
// cores). In memory, the 32 GiB WindowPoSt key (56.6 GiB) is held on the
// heap and, where it streams (a card under about 100 GB), pinned again:
// more than a 128 GiB host has; envKeyFile avoids that.
//
// envKeyFile names a TEST-ONLY setup file of the 32 GiB WindowPoSt
// (testsetup -post window -sector-size 32GiB) to open, mapped, instead of
// a setup in memory: the key is then decoded onto the heap only by the
// CPU prover and only pinned by the GPU's. envProofFile names a file that
// carries a proof from one process to the next: a process that finds it
// compares its proofs (CPU or GPU) with it; one that does not writes its
// first proof there, verified. The GPU half (GPUC2_POST_NO_CPU=1) can so
// run first and the CPU half (envGPUModes "none", more than ten minutes
// on 16 cores) last, on its own. envGPUModes picks the GPU modes by name (default
// "resident streamed"; also "streamed-unlimited": the key streamed with no
// device-memory limit, as an 80 GB card proves the 60.8 GB key).
const (
	envTestGPU   = "GPUC2_TEST_POST_GPU"
	envGPUTypes  = "GPUC2_POST_GPU_SIZE"
	envKeyFile   = "GPUC2_POST_KEY"
	envProofFile = "GPUC2_POST_PROOF_FILE"
	envGPUModes  = "GPUC2_POST_GPU_MODES"
)

// On a GPU, the CUDA prover's PoSt proof equals the CPU prover's byte for
// byte for the same r and s, resident and streamed, and verifies:
//
//	GPUC2_TEST_POST_GPU=1 [GPUC2_POST_GPU_SIZE=32GiB] ./post.test -test.run TestGPUEqualsCPU -test.v
//
// GPUC2_POST_NO_CPU=1 leaves the WindowPoSt CPU proof out (minutes at
// 32 GiB; WinningPoSt's takes seconds and stays): the GPU proofs, two
// resident and one streamed under a 16 GiB limit, must then equal each
// other and verify. Each step is timed: the vanilla proofs' decode and
// check, the witness, each proof (synthesis included), and three resident
// proofs at once (the steady rate of a deadline's partitions).
func TestGPUEqualsCPU(t *testing.T) {
	if os.Getenv(envTestGPU) == "" {
		t.Skipf("set %s=1 on a GPU machine", envTestGPU)
	}
	if !gpu.CUDAAvailable() {
		t.Skip("no native CUDA library")
	}
	types := []abi.RegisteredPoStProof{abi.RegisteredPoStProof_StackedDrgWindow8MiBV1_1, abi.RegisteredPoStProof_StackedDrgWinning8MiBV1}
	if os.Getenv(envGPUTypes) == "32GiB" {
		types = []abi.RegisteredPoStProof{abi.RegisteredPoStProof_StackedDrgWinning32GiBV1, abi.RegisteredPoStProof_StackedDrgWindow32GiBV1_1}
	}
	for _, pt := range types {
		t.Run(post.ProofName(pt), func(t *testing.T) { gpuEqualsCPU(t, pt) })
	}
}

func gpuEqualsCPU(t *testing.T, pt abi.RegisteredPoStProof) {
	ctx := context.Background()
	p := params(t, pt)
	start := time.Now()
	var pk *groth16.ProvingKey
	var err error
	if file := os.Getenv(envKeyFile); file != "" && pt == abi.RegisteredPoStProof_StackedDrgWindow32GiBV1_1 {
		pk, err = groth16.OpenProvingKeyContext(ctx, file)
		require.NoError(t, err)
		t.Logf("%s: TEST-ONLY setup opened from %s", post.ProofName(pt), file)
	} else {
		pk, err = groth16.Setup(ctx, &post.Circuit{Params: p}, rand.NewChaCha8([32]byte{57}), groth16.WithSetupEngine(cuda.Engine{Device: 0}))
		require.NoError(t, err)
		t.Logf("%s: TEST-ONLY setup on the GPU in %v", post.ProofName(pt), time.Since(start))
	}
	defer pk.Close()
	ids := make([]uint64, p.Sectors)
	for i := range ids {
		ids[i] = uint64(1000 + 3*i)
	}
	start = time.Now()
	proofs, err := post.SyntheticSectorProofs(ctx, p, randomness, ids, 9)
	require.NoError(t, err)
	raw := post.EncodeSectorProofs(proofs)
	decoded, err := post.DecodeAndCheck(ctx, p, randomness, raw)
	require.NoError(t, err)
	w, err := post.WitnessFor(p, decoded)
	require.NoError(t, err)
	t.Logf("%d synthetic sector proofs made, encoded, decoded and checked in %v", len(ids), time.Since(start))
	c := &post.Circuit{Params: p, Witness: w}
	var r, sv fr.Element
	r.SetUint64(0x9057)
	sv.SetUint64(0xbeef)
	rs := groth16.WithRandomness(r, sv)

	public := make([]post.PublicSector, len(proofs))
	for i, sp := range proofs {
		public[i] = post.PublicSector{ID: sp.SectorID, CommR: sp.CommR}
	}
	in, err := p.PublicInputs(randomness, public, 0)
	require.NoError(t, err)
	// wb: the first proof's bytes, the others must equal them; an earlier
	// process's proof when the proof file holds one (WindowPoSt only: the
	// file carries one proof type).
	var wb []byte
	proofFile := ""
	if pt == abi.RegisteredPoStProof_StackedDrgWindow32GiBV1_1 {
		proofFile = os.Getenv(envProofFile)
	}
	if proofFile != "" {
		b, err := os.ReadFile(proofFile)
		switch {
		case err == nil:
			wb = b
			t.Logf("the proof an earlier process made, read from %s: sha256 %x", proofFile, sha256.Sum256(wb))
		case os.IsNotExist(err):
		default:
			require.NoError(t, err)
		}
	}
	earlier := wb != nil
	made := 0 // proofs this process made: a run that makes none checks nothing
	// keep verifies a proof and records it as the first or checks it
	// against the first.
	keep := func(what string, proof *groth16.Proof) {
		t.Helper()
		made++
		ok, err := groth16.Verify(pk.VerifyingKey(), proof, in)
		require.NoError(t, err)
		require.True(t, ok, "%s verifies", what)
		b, err := proof.MarshalBinary()
		require.NoError(t, err)
		t.Logf("%s: sha256 %x", what, sha256.Sum256(b))
		if wb == nil {
			wb = b
			return
		}
		assert.Equal(t, wb, b, "%s differs from the first proof", what)
	}
	if os.Getenv("GPUC2_POST_NO_CPU") == "" || p.Kind == post.Winning {
		start = time.Now()
		want, err := groth16.Prove(ctx, &groth16.CPUProver{}, pk, c, rs)
		require.NoError(t, err)
		t.Logf("CPU proof in %v", time.Since(start))
		keep("CPU proof", want)
	}
	modes := strings.Fields(os.Getenv(envGPUModes))
	if len(modes) == 0 {
		modes = []string{"resident", "streamed"}
	}
	for _, mode := range []struct {
		name   string
		cfg    gpu.Config
		proofs int
	}{{"resident", gpu.Config{}, 2}, {"streamed", gpu.Config{NoResident: true, MemoryLimit: 16 << 30}, 1},
		{"streamed-unlimited", gpu.Config{NoResident: true}, 2}} {
		if !slices.Contains(modes, mode.name) {
			continue
		}
		debug.FreeOSMemory()
		cfg := mode.cfg
		cfg.Ordinals = []int{0}
		devs, err := gpu.Open(cfg)
		require.NoError(t, err)
		for i := range mode.proofs {
			start = time.Now()
			got, err := groth16.Prove(ctx, devs.Device(0), pk, c, rs)
			require.NoError(t, err, mode.name)
			t.Logf("GPU proof (%s, %d) in %v", mode.name, i, time.Since(start))
			keep(fmt.Sprintf("GPU proof (%s, %d)", mode.name, i), got)
		}
		if mode.proofs > 1 {
			// Three at once: their synthesis overlaps the others' GPU work.
			start = time.Now()
			var wg sync.WaitGroup
			for range 3 {
				wg.Go(func() {
					got, err := groth16.Prove(ctx, devs.Device(0), pk, c, rs)
					if !assert.NoError(t, err) {
						return
					}
					gb, err := got.MarshalBinary()
					assert.NoError(t, err)
					assert.Equal(t, wb, gb, "%s: a proof of three at once differs", mode.name)
				})
			}
			wg.Wait()
			d := time.Since(start)
			t.Logf("three GPU proofs at once (%s) in %v: %.1f partitions/min", mode.name, d, 3/d.Minutes())
		}
		require.NoError(t, devs.Close())
	}
	require.Positive(t, made, "no proof made: %s names no GPU mode and GPUC2_POST_NO_CPU leaves the CPU proof out", envGPUModes)
	if proofFile != "" && !earlier {
		require.NoError(t, os.WriteFile(proofFile, wb, 0o644))
		t.Logf("the first proof written to %s for a later process", proofFile)
	}
}
