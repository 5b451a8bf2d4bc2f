package groth16_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuc2/gpuc2/gpulock"
	"github.com/gpuc2/gpuc2/groth16"
	"github.com/gpuc2/gpuc2/internal/testcircuit"
	"github.com/gpuc2/gpuc2/native"
	"github.com/gpuc2/gpuc2/synth"
)

func TestCUDAProverNeedsLibrary(t *testing.T) {
	if native.Available() {
		t.Skip("the native library is loaded")
	}
	pk := setup(t, &testcircuit.Chain{N: 10, Seed: 1, Inputs: 1}, 1)
	_, err := groth16.Prove(context.Background(), &groth16.CUDAProver{}, pk, &testcircuit.Chain{N: 10, Seed: 1, Inputs: 1})
	assert.ErrorIs(t, err, native.ErrNotAvailable)
}

// gpuGate skips the test without a GPU and returns device 0's gates.
func gpuGate(t *testing.T) *gpulock.Device {
	t.Helper()
	if !native.Available() {
		t.Skip("no native CUDA library")
	}
	devs, err := native.Devices()
	require.NoError(t, err)
	gate, err := gpulock.NewDevice(gpulock.Config{TotalBytes: int64(devs[0].TotalMemory), MarginBytes: 2 << 30})
	require.NoError(t, err)
	return gate
}

// On a GPU, the CUDA prover's proofs equal the CPU prover's byte for byte
// when both use the same r and s.
func TestCUDAProverEqualsCPU(t *testing.T) {
	gate := gpuGate(t)
	var r, s fr.Element
	r.SetUint64(0xdeadbeef)
	s.SetUint64(0xfeedface)
	circuits := []synth.Circuit{
		&testcircuit.Cubic{X: r},
		&testcircuit.Chain{N: 1000, Seed: 3, Inputs: 3},
		&testcircuit.Chain{N: 1 << 16, Seed: 4, Inputs: 5},
	}
	p := &groth16.CUDAProver{Gate: gate}
	for i, c := range circuits {
		pk := setup(t, c, byte(20+i))
		want := prove(t, pk, c, groth16.WithRandomness(r, s))
		got, err := groth16.Prove(context.Background(), p, pk, c, groth16.WithRandomness(r, s))
		require.NoError(t, err, "circuit %d", i)
		wb, _ := want.MarshalBinary()
		gb, _ := got.MarshalBinary()
		assert.Equal(t, wb, gb, "circuit %d", i)
	}
	require.NoError(t, p.Close())
	assert.Zero(t, gate.Metrics().ReservedBytes, "every reservation released, resident keys included")
}

// The streaming path (key kept in host memory) gives the same proofs.
func TestCUDAProverStreamingEqualsCPU(t *testing.T) {
	if !native.Available() {
		t.Skip("no native CUDA library")
	}
	var r, s fr.Element
	r.SetUint64(11)
	s.SetUint64(12)
	c := &testcircuit.Chain{N: 5000, Seed: 5, Inputs: 2}
	pk := setup(t, c, 30)
	want := prove(t, pk, c, groth16.WithRandomness(r, s))
	p := &groth16.CUDAProver{NoResident: true}
	got, err := groth16.Prove(context.Background(), p, pk, c, groth16.WithRandomness(r, s))
	require.NoError(t, err)
	assert.Equal(t, want, got)
}

// Several workers proving on one device at once, each on its own stream
// through the gate, all get the CPU prover's proof.
func TestCUDAProverWorkersEqualCPU(t *testing.T) {
	gate := gpuGate(t)
	var r, s fr.Element
	r.SetUint64(21)
	s.SetUint64(22)
	c := &testcircuit.Chain{N: 1 << 15, Seed: 6, Inputs: 4}
	pk := setup(t, c, 31)
	want := prove(t, pk, c, groth16.WithRandomness(r, s))
	p := &groth16.CUDAProver{Gate: gate}
	defer p.Close()
	require.NoError(t, p.Preload(context.Background(), pk))
	const workers = 3
	var wg sync.WaitGroup
	got := make([]*groth16.Proof, workers*2)
	errs := make([]error, workers*2)
	for i := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got[i], errs[i] = groth16.Prove(context.Background(), p, pk, c, groth16.WithRandomness(r, s))
		}()
	}
	wg.Wait()
	for i := range got {
		require.NoError(t, errs[i])
		assert.Equal(t, want, got[i], "proof %d", i)
	}
	m := gate.Metrics()
	assert.Equal(t, groth16.KeyBytes(pk.Counts()), m.ReservedBytes, "only the resident key stays reserved")
	assert.Positive(t, m.ComputeAcquisitions)
	require.NoError(t, p.Close())
	assert.Zero(t, gate.Metrics().ReservedBytes, "Close releases the key's reservation")
}

// 100 proofs in a loop, every fifth cancelled at a random moment, leave no
// device memory and no reservation behind.
func TestCUDAProverCancelLoop(t *testing.T) {
	gate := gpuGate(t)
	c := &testcircuit.Chain{N: 1 << 14, Seed: 7, Inputs: 2}
	pk := setup(t, c, 32)
	p := &groth16.CUDAProver{Gate: gate}
	require.NoError(t, p.Preload(context.Background(), pk))
	used0, _, err := native.PoolInfo(0)
	require.NoError(t, err)
	cancelled := 0
	for i := range 100 {
		ctx, cancel := context.WithCancel(context.Background())
		if i%5 == 0 {
			time.AfterFunc(time.Duration(i/5)*200*time.Microsecond, cancel)
		}
		proof, err := groth16.Prove(ctx, p, pk, c)
		cancel()
		if err != nil {
			require.ErrorIs(t, err, context.Canceled, "proof %d", i)
			require.Zero(t, i%5, "only every fifth proof is cancelled")
			cancelled++
			continue
		}
		ok, err := groth16.Verify(pk.VerifyingKey(), proof, c.PublicInputs())
		require.NoError(t, err)
		require.True(t, ok, "proof %d verifies", i)
	}
	t.Logf("%d of 20 cancellations hit a running proof", cancelled)
	used1, held, err := native.PoolInfo(0)
	require.NoError(t, err)
	assert.Equal(t, used0, used1, "pool memory in use before and after (pool holds %d bytes for reuse)", held)
	assert.Equal(t, groth16.KeyBytes(pk.Counts()), gate.Metrics().ReservedBytes)
	require.NoError(t, p.Close())
	assert.Zero(t, gate.Metrics().ReservedBytes)
}
