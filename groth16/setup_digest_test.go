package groth16_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gpuc2/gpuc2/groth16"
	"github.com/gpuc2/gpuc2/internal/testcircuit"
	"github.com/gpuc2/gpuc2/msm/cuda"
	"github.com/gpuc2/gpuc2/native"
)

// setupDigest is the SHA-256 of the .params bytes of a fixed test setup,
// pinned from the first (sequential) implementation: a change to the
// setup's arithmetic or layout changes it.
const setupDigest = "fc94cf7b70f3c737a173ff204bbbb1123313f7f8c37a52e781db763ef9becfa7"

func paramsDigest(t *testing.T, pk *groth16.ProvingKey) string {
	t.Helper()
	h := sha256.New()
	_, err := pk.WriteTo(h)
	require.NoError(t, err)
	return hex.EncodeToString(h.Sum(nil))
}

func TestSetupDigest(t *testing.T) {
	c := &testcircuit.Chain{N: 300, Seed: 9, Inputs: 2}
	pk, err := groth16.Setup(context.Background(), c, newSeeded(77))
	require.NoError(t, err)
	require.Equal(t, setupDigest, paramsDigest(t, pk))
}

// On a GPU, the fixed-base multiplications on the device give the same key.
func TestSetupGPUEqualsCPU(t *testing.T) {
	if !native.Available() {
		t.Skip("no native CUDA library")
	}
	c := &testcircuit.Chain{N: 300, Seed: 9, Inputs: 2}
	pk, err := groth16.Setup(context.Background(), c, newSeeded(77), groth16.WithSetupEngine(cuda.Engine{Device: 0}))
	require.NoError(t, err)
	require.Equal(t, setupDigest, paramsDigest(t, pk))
}
