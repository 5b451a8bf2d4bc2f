package groth16_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuc2/gpuc2/groth16"
)

// The digest is Filecoin's: the first 16 bytes of BLAKE2b-512, in hex
// (RFC 7693's "abc" vector); a mismatch names the file and both digests.
func TestCheckDigest(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "abc.params")
	require.NoError(t, os.WriteFile(path, []byte("abc"), 0o644))
	require.NoError(t, groth16.CheckDigest(ctx, path, "ba80a53f981c4d0d6a2797b69f12f6e9"))

	wrong := "0123456789abcdef0123456789abcdef"
	err := groth16.CheckDigest(ctx, path, wrong)
	require.ErrorIs(t, err, groth16.ErrMalformedKey)
	assert.Contains(t, err.Error(), path+": BLAKE2b digest ba80a53f981c4d0d6a2797b69f12f6e9, want "+wrong)

	assert.ErrorIs(t, groth16.CheckDigest(ctx, path, "ba80a53f"), groth16.ErrInvalidInput, "not 16 bytes")
	assert.ErrorIs(t, groth16.CheckDigest(ctx, filepath.Join(t.TempDir(), "none"), wrong), os.ErrNotExist)
}

// A key written here is checked against its sidecar before it is used: a
// flipped byte (same size, so no layout error could find it) fails at
// open, naming the file and both digests; so does a missing or malformed
// sidecar. The .vk reader applies the same check.
func TestWithDigestCheckSidecar(t *testing.T) {
	ctx := context.Background()
	k := fxNewKey(t, fxSmall)
	dir := t.TempDir()
	params, vk := filepath.Join(dir, "key.params"), filepath.Join(dir, "key.vk")
	require.NoError(t, groth16.WriteParams(params, k.provingKey(t)))
	require.NoError(t, groth16.WriteVerifyingKeyFile(vk, k.vk))

	pk, err := groth16.OpenProvingKeyContext(ctx, params, groth16.WithDigestCheck())
	require.NoError(t, err)
	requireSections(t, pk, k)
	require.NoError(t, pk.Close())
	got, err := groth16.ReadVerifyingKeyFile(ctx, vk, groth16.WithDigestCheck())
	require.NoError(t, err)
	assert.True(t, got.Equal(k.vk))

	side, err := os.ReadFile(groth16.DigestSidecarPath(params))
	require.NoError(t, err)
	want := strings.TrimSpace(string(side))
	b, err := os.ReadFile(params)
	require.NoError(t, err)
	b[len(b)-7] ^= 0x10
	require.NoError(t, os.WriteFile(params, b, 0o644))
	later := time.Now().Add(time.Minute) // a new version even on a coarse clock
	require.NoError(t, os.Chtimes(params, later, later))
	_, err = groth16.OpenProvingKeyContext(ctx, params, groth16.WithDigestCheck())
	require.ErrorIs(t, err, groth16.ErrMalformedKey)
	assert.Contains(t, err.Error(), params+": BLAKE2b digest ")
	assert.Contains(t, err.Error(), ", want "+want+" ("+groth16.DigestSidecarPath(params)+")")

	require.NoError(t, os.WriteFile(groth16.DigestSidecarPath(vk), []byte("not a digest\n"), 0o644))
	_, err = groth16.ReadVerifyingKeyFile(ctx, vk, groth16.WithDigestCheck())
	require.ErrorIs(t, err, groth16.ErrMalformedKey)
	assert.Contains(t, err.Error(), `holds "not a digest"`)

	require.NoError(t, os.Remove(groth16.DigestSidecarPath(vk)))
	_, err = groth16.ReadVerifyingKeyFile(ctx, vk, groth16.WithDigestCheck())
	require.ErrorIs(t, err, groth16.ErrMalformedKey)
	assert.Contains(t, err.Error(), "no digest to check "+vk+" against")
	_, err = groth16.ReadVerifyingKeyFile(ctx, vk)
	require.NoError(t, err, "without WithDigestCheck no digest is needed")
}

// A file under a published Filecoin name is checked against the published
// digest, never a sidecar beside it.
func TestWithDigestCheckPublishedName(t *testing.T) {
	name := "v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-0-0-sha256_hasher-032d3138d22506ec0082ed72b2dcba18df18477904e35bafee82b3793b06832f.params"
	published, ok := groth16.PublishedDigest(name)
	require.True(t, ok)
	assert.Equal(t, "434fb1338ecfaf0f59256f30dde4968f", published)
	_, ok = groth16.PublishedDigest("key.params")
	assert.False(t, ok)

	k := fxNewKey(t, fxSmall)
	path := filepath.Join(t.TempDir(), name)
	require.NoError(t, groth16.WriteParams(path, k.provingKey(t))) // with a sidecar that matches
	_, err := groth16.OpenProvingKeyContext(context.Background(), path, groth16.WithDigestCheck())
	require.ErrorIs(t, err, groth16.ErrMalformedKey)
	assert.Contains(t, err.Error(), ", want "+published+" (published by Filecoin)")
}

// Rewriting a key replaces its sidecar too.
func TestWriteParamsReplacesSidecar(t *testing.T) {
	path := filepath.Join(t.TempDir(), "key.params")
	require.NoError(t, groth16.WriteParams(path, fxNewKey(t, fxSmall).provingKey(t)))
	first, err := os.ReadFile(groth16.DigestSidecarPath(path))
	require.NoError(t, err)
	require.NoError(t, groth16.WriteParams(path, fxNewKey(t, fxSmall).provingKey(t)))
	second, err := os.ReadFile(groth16.DigestSidecarPath(path))
	require.NoError(t, err)
	assert.False(t, bytes.Equal(first, second))
	pk, err := groth16.OpenProvingKeyContext(context.Background(), path, groth16.WithDigestCheck())
	require.NoError(t, err)
	require.NoError(t, pk.Close())
}

// PublishedName completes a parameter file's name from the start of its
// hash, as parameters.json lists it; the 2 KiB .vk's digest is the one
// Filecoin publishes (dc1ade99…).
func TestPublishedName(t *testing.T) {
	const prefix = "v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-0-0-sha256_hasher-032d3138"
	vk := groth16.PublishedName(prefix, ".vk")
	assert.Equal(t, prefix+"d22506ec0082ed72b2dcba18df18477904e35bafee82b3793b06832f.vk", vk)
	d, ok := groth16.PublishedDigest(vk)
	assert.True(t, ok)
	assert.Equal(t, "dc1ade9929ade1708238f155343044ac", d)
	assert.Equal(t, strings.TrimSuffix(vk, ".vk")+".params", groth16.PublishedName(prefix, ".params"))
	assert.Empty(t, groth16.PublishedName(prefix+"ff", ".vk"))
}
