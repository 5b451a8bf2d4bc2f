package groth16_test

import (
	"context"
	"testing"

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

// On a GPU, the CUDA prover's proofs equal the CPU prover's byte for byte
// when both use the same r and s.
func TestCUDAProverEqualsCPU(t *testing.T) {
	if !native.Available() {
		t.Skip("no native CUDA library")
	}
	devs, err := native.Devices()
	require.NoError(t, err)
	gate, err := gpulock.NewDevice(gpulock.Config{TotalBytes: int64(devs[0].TotalMemory), MarginBytes: 2 << 30})
	require.NoError(t, err)
	var r, s fr.Element
	r.SetUint64(0xdeadbeef)
	s.SetUint64(0xfeedface)
	circuits := []synth.Circuit{
		&testcircuit.Cubic{X: r},
		&testcircuit.Chain{N: 1000, Seed: 3, Inputs: 3},
		&testcircuit.Chain{N: 1 << 16, Seed: 4, Inputs: 5},
	}
	for i, c := range circuits {
		pk := setup(t, c, byte(20+i))
		want := prove(t, pk, c, groth16.WithRandomness(r, s))
		got, err := groth16.Prove(context.Background(), &groth16.CUDAProver{Gate: gate}, pk, c, groth16.WithRandomness(r, s))
		require.NoError(t, err, "circuit %d", i)
		wb, _ := want.MarshalBinary()
		gb, _ := got.MarshalBinary()
		assert.Equal(t, wb, gb, "circuit %d", i)
	}
	assert.Zero(t, gate.Metrics().ReservedBytes, "every reservation released")
}
