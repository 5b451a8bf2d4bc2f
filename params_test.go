package gpuc2_test

import (
	"context"
	"crypto/rand"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuc2/gpuc2"
	"github.com/gpuc2/gpuc2/groth16"
	"github.com/gpuc2/gpuc2/internal/testcircuit"
	"github.com/gpuc2/gpuc2/synth/porep"
)

const name32 = "v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-8-0-sha256_hasher-82a357d2f2ca81dc61bb45f4a762807aedee1b0a53fd6c4e77b46a01bfef7820"

func TestFindParams(t *testing.T) {
	dir := t.TempDir()
	p := porep.RegisteredSealProof_StackedDrg32GiBV1_1
	_, _, err := gpuc2.FindParams(dir, p)
	assert.ErrorIs(t, err, gpuc2.ErrParamsMissing)
	assert.ErrorContains(t, err, "poseidon_hasher-8-8-0-sha256_hasher-82a357d2")

	require.NoError(t, os.WriteFile(filepath.Join(dir, name32+".params"), nil, 0o644))
	_, _, err = gpuc2.FindParams(dir, p)
	assert.ErrorIs(t, err, gpuc2.ErrParamsMissing, "the .vk is missing")
	assert.ErrorContains(t, err, ".vk")

	require.NoError(t, os.WriteFile(filepath.Join(dir, name32+".vk"), nil, 0o644))
	params, vk, err := gpuc2.FindParams(dir, p)
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(dir, name32+".params"), params)
	assert.Equal(t, filepath.Join(dir, name32+".vk"), vk)

	// V1 and V1_1 share the circuit and so the file; 64 GiB does not.
	_, _, err = gpuc2.FindParams(dir, porep.RegisteredSealProof_StackedDrg32GiBV1)
	assert.NoError(t, err)
	_, _, err = gpuc2.FindParams(dir, porep.RegisteredSealProof_StackedDrg64GiBV1_1)
	assert.ErrorIs(t, err, gpuc2.ErrParamsMissing)
}

func TestDefaultParamsDir(t *testing.T) {
	t.Setenv(gpuc2.EnvParamsDir, "/somewhere")
	assert.Equal(t, "/somewhere", gpuc2.DefaultParamsDir())
	t.Setenv(gpuc2.EnvParamsDir, "")
	assert.Equal(t, "/var/tmp/filecoin-proof-parameters", gpuc2.DefaultParamsDir())
}

func TestTestParamsOnlyForTestSizes(t *testing.T) {
	assert.True(t, gpuc2.IsTestSize(porep.RegisteredSealProof_StackedDrg512MiBV1_1))
	assert.False(t, gpuc2.IsTestSize(porep.RegisteredSealProof_StackedDrg32GiBV1_1))
	_, _, _, err := gpuc2.TestParams(context.Background(), t.TempDir(), porep.RegisteredSealProof_StackedDrg32GiBV1_1)
	assert.ErrorIs(t, err, gpuc2.ErrParamsMissing)
}

// A cached test setup that is not a proving key is an error, never silently replaced.
func TestTestParamsRejectsCorruptCache(t *testing.T) {
	dir := t.TempDir()
	p := porep.RegisteredSealProof_StackedDrg2KiBV1_1
	path := gpuc2.TestParamsPath(dir, p)
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(t, os.WriteFile(path, []byte("not a key"), 0o644))
	_, _, _, err := gpuc2.TestParams(context.Background(), dir, p)
	assert.Error(t, err)
}

// OpenParams pairs a .params file with its .vk and refuses a .vk of another key.
func TestOpenParams(t *testing.T) {
	ctx := context.Background()
	c := &testcircuit.Chain{N: 20, Seed: 1, Inputs: 1}
	pk, err := groth16.Setup(ctx, c, rand.Reader)
	require.NoError(t, err)
	other, err := groth16.Setup(ctx, c, rand.Reader)
	require.NoError(t, err)
	dir := t.TempDir()
	params, vk, otherVK := filepath.Join(dir, "a.params"), filepath.Join(dir, "a.vk"), filepath.Join(dir, "b.vk")
	require.NoError(t, groth16.WriteParams(params, pk))
	require.NoError(t, groth16.WriteVerifyingKeyFile(vk, pk.VerifyingKey()))
	require.NoError(t, groth16.WriteVerifyingKeyFile(otherVK, other.VerifyingKey()))

	opened, err := gpuc2.OpenParams(params, vk)
	require.NoError(t, err)
	assert.True(t, opened.VerifyingKey().Equal(pk.VerifyingKey()))
	require.NoError(t, opened.Close())

	_, err = gpuc2.OpenParams(params, otherVK)
	assert.ErrorIs(t, err, groth16.ErrMalformedKey)
	_, err = gpuc2.OpenParams(params, filepath.Join(dir, "missing.vk"))
	assert.ErrorIs(t, err, os.ErrNotExist)
}
