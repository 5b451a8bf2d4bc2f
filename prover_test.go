package gpuc2_test

import (
	"context"
	"os"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuc2/gpuc2"
	"github.com/gpuc2/gpuc2/groth16"
	"github.com/gpuc2/gpuc2/native"
	"github.com/gpuc2/gpuc2/synth/porep"
)

// sharedParams is one TEST-ONLY parameter directory for the package's
// tests, so the 2 KiB setup is made once per run.
var sharedParams struct {
	once sync.Once
	dir  string
}

func testParamsDir(t *testing.T) string {
	sharedParams.once.Do(func() {
		dir, err := os.MkdirTemp("", "gpuc2-test-params-")
		require.NoError(t, err)
		sharedParams.dir = dir
	})
	return sharedParams.dir
}

func TestMain(m *testing.M) {
	code := m.Run()
	if sharedParams.dir != "" {
		os.RemoveAll(sharedParams.dir)
	}
	os.Exit(code)
}

func syntheticC1JSON(t *testing.T, miner porep.ActorID, sector porep.SectorNumber) (*porep.C1, []byte) {
	c1, err := porep.SyntheticC1(context.Background(), porep.RegisteredSealProof_StackedDrg2KiBV1_1, miner, sector, [32]byte{2})
	require.NoError(t, err)
	b, err := c1.EncodeJSON()
	require.NoError(t, err)
	return c1, b
}

func TestSealCommitPhase2(t *testing.T) {
	if testing.Short() {
		t.Skip("a 2 KiB setup and proof take minutes on 2 cores")
	}
	ctx := context.Background()
	p, err := gpuc2.New(ctx, gpuc2.Config{ParamsDir: t.TempDir(), TestParamsDir: testParamsDir(t)})
	require.NoError(t, err)
	defer p.Close()
	miner, sector := porep.ActorID(1234), porep.SectorNumber(99)
	c1, raw := syntheticC1JSON(t, miner, sector)
	out, err := p.SealCommitPhase2(ctx, raw, sector, miner)
	require.NoError(t, err)
	require.Len(t, out, groth16.ProofSize)

	// Checked independently of the facade's own self-verification.
	proofs, err := groth16.UnmarshalProofs(out)
	require.NoError(t, err)
	pk, _, _, err := gpuc2.TestParams(ctx, testParamsDir(t), c1.RegisteredProof)
	require.NoError(t, err)
	defer pk.Close()
	public, err := porep.PublicInputs(c1, miner, sector, 0)
	require.NoError(t, err)
	ok, err := groth16.Verify(pk.VerifyingKey(), &proofs[0], public)
	require.NoError(t, err)
	assert.True(t, ok)

	// The same C1 claimed for another sector is bad input.
	_, err = p.SealCommitPhase2(ctx, raw, sector+1, miner)
	assert.ErrorIs(t, err, gpuc2.ErrBadInput)
}

func TestSealCommitPhase2Errors(t *testing.T) {
	ctx := context.Background()
	p, err := gpuc2.New(ctx, gpuc2.Config{ParamsDir: t.TempDir(), Backend: gpuc2.BackendCPU})
	require.NoError(t, err)
	miner, sector := porep.ActorID(1234), porep.SectorNumber(99)
	_, raw := syntheticC1JSON(t, miner, sector)

	_, err = p.SealCommitPhase2(ctx, []byte(`{"registered_proof":"StackedDrg2KiBV1_1"`), sector, miner)
	assert.ErrorIs(t, err, gpuc2.ErrBadInput, "truncated C1")

	_, err = p.SealCommitPhase2(ctx, raw, sector, miner)
	assert.ErrorIs(t, err, gpuc2.ErrParamsMissing, "no parameters and no test setup allowed")

	cctx, cancel := context.WithCancel(ctx)
	cancel()
	_, err = p.SealCommitPhase2(cctx, raw, sector, miner)
	assert.ErrorIs(t, err, context.Canceled)

	require.NoError(t, p.Close())
	_, err = p.SealCommitPhase2(ctx, raw, sector, miner)
	assert.ErrorIs(t, err, gpuc2.ErrClosed)
}

func TestNewBackends(t *testing.T) {
	ctx := context.Background()
	_, err := gpuc2.New(ctx, gpuc2.Config{Backend: "tpu"})
	assert.Error(t, err)
	p, err := gpuc2.New(ctx, gpuc2.Config{})
	require.NoError(t, err)
	if native.Available() {
		assert.Equal(t, gpuc2.BackendCUDA, p.Backend())
	} else {
		assert.Equal(t, gpuc2.BackendCPU, p.Backend())
		_, err = gpuc2.New(ctx, gpuc2.Config{Backend: gpuc2.BackendCUDA})
		assert.ErrorIs(t, err, native.ErrNotAvailable)
	}
}
