package gpuc2_test

import (
	"context"
	"crypto/rand"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/filecoin-project/go-state-types/abi"
	"github.com/filecoin-project/go-state-types/proof"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuc2/gpuc2"
	"github.com/gpuc2/gpuc2/groth16"
	"github.com/gpuc2/gpuc2/internal/testcircuit"
	"github.com/gpuc2/gpuc2/internal/testkey"
	"github.com/gpuc2/gpuc2/synth/porep"
)

const name32 = "v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-8-0-sha256_hasher-82a357d2f2ca81dc61bb45f4a762807aedee1b0a53fd6c4e77b46a01bfef7820"

func TestFindParams(t *testing.T) {
	dir := t.TempDir()
	p := abi.RegisteredSealProof_StackedDrg32GiBV1_1
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
	_, _, err = gpuc2.FindParams(dir, abi.RegisteredSealProof_StackedDrg32GiBV1)
	assert.NoError(t, err)
	_, _, err = gpuc2.FindParams(dir, abi.RegisteredSealProof_StackedDrg64GiBV1_1)
	assert.ErrorIs(t, err, gpuc2.ErrParamsMissing)
}

func TestDefaultParamsDir(t *testing.T) {
	t.Setenv(gpuc2.EnvParamsDir, "/somewhere")
	assert.Equal(t, "/somewhere", gpuc2.DefaultParamsDir())
	t.Setenv(gpuc2.EnvParamsDir, "")
	assert.Equal(t, "/var/tmp/filecoin-proof-parameters", gpuc2.DefaultParamsDir())
}

func TestTestParamsOnlyForTestSizes(t *testing.T) {
	assert.True(t, gpuc2.IsTestSize(abi.RegisteredSealProof_StackedDrg512MiBV1_1))
	assert.False(t, gpuc2.IsTestSize(abi.RegisteredSealProof_StackedDrg32GiBV1_1))
	_, _, _, err := gpuc2.TestParams(context.Background(), t.TempDir(), abi.RegisteredSealProof_StackedDrg32GiBV1_1)
	assert.ErrorIs(t, err, gpuc2.ErrParamsMissing)
}

// The proof types of a size share one TEST-ONLY setup, as their circuit
// and Filecoin's file; another size has its own. Sharing holds because the
// circuit's parameters are the same: NI-PoRep's partitions are more, not
// larger (filecoin-proofs constants.rs picks its partition counts so).
func TestTestParamsPathPerSize(t *testing.T) {
	for p := abi.RegisteredSealProof(0); p <= abi.RegisteredSealProof_StackedDrg64GiBV1_2_Feat_NiPoRep; p++ {
		size, err := porep.SectorSizeName(p)
		require.NoError(t, err)
		v11, err := porep.ProofForSectorSize(size)
		require.NoError(t, err)
		want, err := porep.CircuitParams(v11)
		require.NoError(t, err)
		got, err := porep.CircuitParams(p)
		require.NoError(t, err)
		assert.Equal(t, want, got, porep.ProofName(p))
	}

	dir := t.TempDir()
	path := gpuc2.TestParamsPath(dir, abi.RegisteredSealProof_StackedDrg2KiBV1_1)
	assert.Equal(t, "TEST-ONLY-StackedDrg2KiBV1_1.params", filepath.Base(path))
	for _, p := range []abi.RegisteredSealProof{
		abi.RegisteredSealProof_StackedDrg2KiBV1,
		abi.RegisteredSealProof_StackedDrg2KiBV1_1_Feat_SyntheticPoRep,
		abi.RegisteredSealProof_StackedDrg2KiBV1_2_Feat_NiPoRep,
	} {
		assert.Equal(t, path, gpuc2.TestParamsPath(dir, p), porep.ProofName(p))
	}
	assert.NotEqual(t, path, gpuc2.TestParamsPath(dir, abi.RegisteredSealProof_StackedDrg8MiBV1_1_Feat_SyntheticPoRep))
}

// A cached test setup that is not a proving key is an error, never silently replaced.
func TestTestParamsRejectsCorruptCache(t *testing.T) {
	dir := t.TempDir()
	p := abi.RegisteredSealProof_StackedDrg2KiBV1_1
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

// A 32 GiB sector has no TEST-ONLY setup made on demand: without the file
// the error wraps ErrParamsMissing and says how to make one, from
// TestParams, the facade, VerifySeal; Requirements estimates instead.
func TestTestParams32GiBMissing(t *testing.T) {
	ctx := context.Background()
	p32 := abi.RegisteredSealProof_StackedDrg32GiBV1_1
	dir := t.TempDir()
	hint := "go run ./examples/testsetup -sector-size 32GiB"

	_, path, created, err := gpuc2.TestParams(ctx, dir, p32)
	assert.ErrorIs(t, err, gpuc2.ErrParamsMissing)
	assert.ErrorContains(t, err, hint)
	assert.ErrorContains(t, err, "47 GB")
	assert.False(t, created)
	assert.Equal(t, gpuc2.TestParamsPath(dir, p32), path)
	assert.NoFileExists(t, path, "nothing is created for 32 GiB")

	p, err := gpuc2.New(ctx, gpuc2.Config{ParamsDir: t.TempDir(), TestParamsDir: dir, Backend: gpuc2.BackendCPU})
	require.NoError(t, err)
	defer p.Close()
	err = p.Preload(ctx, p32)
	assert.ErrorIs(t, err, gpuc2.ErrParamsMissing)
	assert.ErrorContains(t, err, hint)
	assert.ErrorContains(t, err, "82a357d2", "names the real file it looked for")
	_, err = p.VerifySeal(proof.SealVerifyInfo{SealProof: p32})
	assert.ErrorIs(t, err, gpuc2.ErrParamsMissing)

	r, err := gpuc2.Requirements(p32, gpuc2.Config{ParamsDir: t.TempDir(), TestParamsDir: dir, Backend: gpuc2.BackendCPU})
	require.NoError(t, err)
	assert.False(t, r.ParamsExact)
}

// A TEST-ONLY file at the 32 GiB path is used (the real files missing), and
// one that does not fit the 32 GiB circuit is ErrParamsCorrupt before any
// proving: from TestParams, Preload and ProveSeal of a synthetic 32 GiB C1.
func TestTestParams32GiBWrongShape(t *testing.T) {
	ctx := context.Background()
	p32 := abi.RegisteredSealProof_StackedDrg32GiBV1_1
	dir := t.TempDir()
	path := gpuc2.TestParamsPath(dir, p32)
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	small := writeKey(t, t.TempDir(), "small") // a valid key of a 20-row circuit
	data, err := os.ReadFile(small)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(path, data, 0o644))
	digest, err := os.ReadFile(groth16.DigestSidecarPath(small))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(groth16.DigestSidecarPath(path), digest, 0o644))

	_, _, created, err := gpuc2.TestParams(ctx, dir, p32)
	assert.ErrorIs(t, err, gpuc2.ErrParamsCorrupt)
	assert.False(t, created)

	r, err := gpuc2.Requirements(p32, gpuc2.Config{ParamsDir: t.TempDir(), TestParamsDir: dir, Backend: gpuc2.BackendCPU})
	require.NoError(t, err)
	assert.True(t, r.ParamsExact, "the file's own size")
	assert.Equal(t, int64(len(data)), r.ParamsBytes)

	// A budget that admits a 32 GiB partition (nothing is allocated before the key).
	p, err := gpuc2.New(ctx, gpuc2.Config{ParamsDir: t.TempDir(), TestParamsDir: dir, Backend: gpuc2.BackendCPU, HostMemoryBudget: 64 << 30})
	require.NoError(t, err)
	defer p.Close()
	err = p.Preload(ctx, p32)
	assert.ErrorIs(t, err, gpuc2.ErrParamsCorrupt)
	assert.ErrorContains(t, err, path)

	miner, sector := abi.ActorID(1000), abi.SectorNumber(3)
	c1, err := porep.SyntheticC1(ctx, p32, miner, sector, [32]byte{5})
	require.NoError(t, err)
	raw, err := c1.EncodeJSON()
	require.NoError(t, err)
	start := time.Now()
	_, err = p.ProveSeal(ctx, gpuc2.SealRequest{C1: raw, Sector: sector, Miner: miner})
	assert.ErrorIs(t, err, gpuc2.ErrParamsCorrupt)
	st := p.Status()
	assert.Empty(t, st.Loaded)
	assert.Zero(t, st.HostPeakBytes, "no partition was admitted")
	t.Logf("32 GiB C1 parsed, checked and refused in %v", time.Since(start))
}

// fakeKey2KiB is a key with the section counts of the 2 KiB circuit, every
// point the generator: it passes the facade's shape check without a setup
// (proofs against it would not verify).
func fakeKey2KiB(t *testing.T) *groth16.ProvingKey {
	t.Helper()
	const inputs, aux, h = 40, 2685673, 1<<22 - 1 // circuitinfo -sector-size 2KiB
	pk, err := testkey.GeneratorKey(inputs, aux, h)
	require.NoError(t, err)
	return pk
}

// V1 and V1_1 of a size use one file: it is loaded once, counted once
// against the automatic host budget, and Evict of either forgets both.
func TestParamsSharedPerFile(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	pk := fakeKey2KiB(t)
	params := filepath.Join(dir, name2KiB+".params")
	require.NoError(t, groth16.WriteParams(params, pk))
	require.NoError(t, groth16.WriteVerifyingKeyFile(filepath.Join(dir, name2KiB+".vk"), pk.VerifyingKey()))
	size := fileSizeOf(t, params)

	p, err := gpuc2.New(ctx, gpuc2.Config{ParamsDir: dir, Backend: gpuc2.BackendCPU})
	require.NoError(t, err)
	defer p.Close()
	v1, v11 := abi.RegisteredSealProof_StackedDrg2KiBV1, abi.RegisteredSealProof_StackedDrg2KiBV1_1
	before := p.Status().HostBudgetBytes
	require.NoError(t, p.Preload(ctx, v11))
	one := p.Status()
	assert.Equal(t, []abi.RegisteredSealProof{v11}, one.Loaded)
	assert.Equal(t, before-size, one.HostBudgetBytes, "the loaded file shrinks the automatic budget")
	require.NoError(t, p.Preload(ctx, v1))
	both := p.Status()
	assert.Equal(t, []abi.RegisteredSealProof{v1, v11}, both.Loaded)
	assert.Equal(t, one.HostBudgetBytes, both.HostBudgetBytes, "one file, counted once")

	require.NoError(t, p.Evict(v1))
	after := p.Status()
	assert.Empty(t, after.Loaded, "the shared file is released for both types")
	assert.Equal(t, before, after.HostBudgetBytes)
	require.NoError(t, p.Preload(ctx, v1), "loaded again on demand")
	assert.Equal(t, []abi.RegisteredSealProof{v1}, p.Status().Loaded)
}

func fileSizeOf(t *testing.T, path string) int64 {
	t.Helper()
	st, err := os.Stat(path)
	require.NoError(t, err)
	return st.Size()
}

// Parameter files are checked against their digests before use: a file
// under a published Filecoin name against Filecoin's digest (its sidecar is
// ignored), for proving and for VerifySeal's .vk, a TEST-ONLY one against
// the sidecar written with it. Either fails to load with ErrParamsCorrupt
// naming both digests, before any proof; a TEST-ONLY file without a
// sidecar is refused with a hint.
func TestParamsDigestChecked(t *testing.T) {
	ctx := context.Background()
	published, ok := groth16.PublishedDigest(name32 + ".params")
	require.True(t, ok)
	key, err := groth16.Setup(ctx, &testcircuit.Chain{N: 20, Seed: 1, Inputs: 1}, rand.Reader)
	require.NoError(t, err)

	real := t.TempDir()
	require.NoError(t, groth16.WriteParams(filepath.Join(real, name32+".params"), key))
	require.NoError(t, groth16.WriteVerifyingKeyFile(filepath.Join(real, name32+".vk"), key.VerifyingKey()))
	p32 := abi.RegisteredSealProof_StackedDrg32GiBV1_1
	p, err := gpuc2.New(ctx, gpuc2.Config{ParamsDir: real, Backend: gpuc2.BackendCPU})
	require.NoError(t, err)
	err = p.Preload(ctx, p32)
	require.ErrorIs(t, err, gpuc2.ErrParamsCorrupt)
	assert.ErrorContains(t, err, ", want "+published+" (published by Filecoin)")
	_, err = p.VerifySeal(proof.SealVerifyInfo{SealProof: p32}) // reads only the .vk
	require.ErrorIs(t, err, gpuc2.ErrParamsCorrupt)
	assert.ErrorContains(t, err, name32+".vk: BLAKE2b digest ")
	require.NoError(t, p.Close())

	test := t.TempDir()
	p2k := abi.RegisteredSealProof_StackedDrg2KiBV1_1
	path := gpuc2.TestParamsPath(test, p2k)
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(t, groth16.WriteParams(path, key))
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	b[len(b)-5] ^= 1 // inside the last b_g2 point: the layout still holds
	require.NoError(t, os.WriteFile(path, b, 0o644))
	later := time.Now().Add(time.Minute) // a new file version even on a coarse clock
	require.NoError(t, os.Chtimes(path, later, later))
	_, _, _, err = gpuc2.TestParams(ctx, test, p2k)
	require.ErrorIs(t, err, gpuc2.ErrParamsCorrupt)
	assert.ErrorContains(t, err, path+": BLAKE2b digest ")
	p, err = gpuc2.New(ctx, gpuc2.Config{ParamsDir: t.TempDir(), TestParamsDir: test, Backend: gpuc2.BackendCPU})
	require.NoError(t, err)
	defer p.Close()
	err = p.Preload(ctx, p2k)
	require.ErrorIs(t, err, gpuc2.ErrParamsCorrupt)
	assert.ErrorContains(t, err, "("+groth16.DigestSidecarPath(path)+")")

	require.NoError(t, os.Remove(groth16.DigestSidecarPath(path)))
	_, _, _, err = gpuc2.TestParams(ctx, test, p2k)
	require.ErrorIs(t, err, gpuc2.ErrParamsCorrupt)
	assert.ErrorContains(t, err, "no digest to check "+path)
}

// A Prover without real files and without Config.TestParamsDir says where
// the real files come from, and names the TEST-ONLY alternative; VerifySeal
// the same (it needs only the .vk).
func TestParamsMissingHint(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	p, err := gpuc2.New(ctx, gpuc2.Config{ParamsDir: dir, Backend: gpuc2.BackendCPU})
	require.NoError(t, err)
	defer p.Close()
	miner, sector := abi.ActorID(1000), abi.SectorNumber(4)
	c1, err := porep.SyntheticC1(ctx, abi.RegisteredSealProof_StackedDrg2KiBV1_1, miner, sector, [32]byte{4})
	require.NoError(t, err)
	raw, err := c1.EncodeJSON()
	require.NoError(t, err)
	_, err = p.SealCommitPhase2(ctx, raw, sector, miner)
	require.ErrorIs(t, err, gpuc2.ErrParamsMissing)
	for _, want := range []string{
		"v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-0-0-sha256_hasher-032d3138d22506ec0082ed72b2dcba18df18477904e35bafee82b3793b06832f.params in " + dir,
		"curio fetch-params 2KiB", "lotus fetch-params 2KiB", "Config.TestParamsDir", "examples/testsetup",
	} {
		assert.ErrorContains(t, err, want)
	}

	info, err := gpuc2.NewSealVerifyInfo(raw, make([]byte, 192), sector, miner)
	require.NoError(t, err)
	_, err = p.VerifySeal(info)
	require.ErrorIs(t, err, gpuc2.ErrParamsMissing)
	assert.ErrorContains(t, err, "032d3138d22506ec0082ed72b2dcba18df18477904e35bafee82b3793b06832f.vk in "+dir)
	assert.ErrorContains(t, err, "Config.TestParamsDir")

	_, err = gpuc2.NewSealVerifyInfo(raw, nil, sector+1, miner)
	assert.ErrorIs(t, err, gpuc2.ErrBadInput, "the C1 is another sector's")
	_, err = gpuc2.NewSealVerifyInfo([]byte("{"), nil, sector, miner)
	assert.ErrorIs(t, err, gpuc2.ErrBadInput)
}
