package groth16

import (
	"bytes"
	"context"
	"math/big"
	"os"
	"path/filepath"
	"testing"

	bls12381 "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// randomKey is an in-memory key of random points with the given counts
// (not a key of any circuit: only the file layout matters here).
func randomKey(t *testing.T, ic, h, l, a, b int) *ProvingKey {
	t.Helper()
	g1 := func(n int) []bls12381.G1Affine {
		return randomPoints(t, n, func(p *bls12381.G1Affine, k *big.Int) { p.ScalarMultiplicationBase(k) })
	}
	g2 := func(n int) []bls12381.G2Affine {
		return randomPoints(t, n, func(p *bls12381.G2Affine, k *big.Int) { p.ScalarMultiplicationBase(k) })
	}
	p1, p2 := g1(3), g2(3)
	vk := &VerifyingKey{AlphaG1: p1[0], BetaG1: p1[1], DeltaG1: p1[2], BetaG2: p2[0], GammaG2: p2[1], DeltaG2: p2[2], IC: g1(ic)}
	pk, err := NewProvingKey(vk, g1(h), g1(l), g1(a), g1(b), g2(b))
	require.NoError(t, err)
	return pk
}

// randomPoints returns n multiples of a group's generator by random scalars.
func randomPoints[P any](t *testing.T, n int, mulBase func(*P, *big.Int)) []P {
	out := make([]P, n)
	var k big.Int
	for i := range out {
		var s fr.Element
		_, err := s.SetRandom()
		require.NoError(t, err)
		mulBase(&out[i], s.BigInt(&k))
	}
	return out
}

// The parallel writer (offsets computed, chunks encoded by several workers
// and written with WriteAt) gives WriteTo's bytes, in chunks of every size
// relative to the sections, and reports its progress up to the file size.
func TestWriteParamsParallelEqualsWriteTo(t *testing.T) {
	pk := randomKey(t, 2, 63, 40, 30, 25)
	var want bytes.Buffer
	_, err := pk.WriteTo(&want)
	require.NoError(t, err)
	_, size := pk.paramsLayout()
	require.EqualValues(t, want.Len(), size)

	defer func(n int) { writeChunkPoints = n }(writeChunkPoints)
	dir := t.TempDir()
	for _, chunk := range []int{1, 7, 25, 64, 1 << 16} {
		writeChunkPoints = chunk
		path := filepath.Join(dir, "key.params")
		var last int64
		calls := 0
		err := WriteParamsContext(context.Background(), path, pk, func(written, total int64) {
			assert.Equal(t, size, total)
			assert.Greater(t, written, last, "progress only grows")
			last = written
			calls++
		})
		require.NoError(t, err, "chunk %d", chunk)
		got, err := os.ReadFile(path)
		require.NoError(t, err)
		require.Equal(t, want.Bytes(), got, "chunk %d", chunk)
		assert.Equal(t, size, last, "chunk %d: progress ends at the size", chunk)
		assert.Greater(t, calls, 1)
		assert.NoFileExists(t, path+".tmp")

		// The file-backed key writes the same bytes again.
		opened, err := OpenProvingKey(path)
		require.NoError(t, err)
		again := filepath.Join(dir, "again.params")
		require.NoError(t, WriteParams(again, opened))
		require.NoError(t, opened.Close())
		got, err = os.ReadFile(again)
		require.NoError(t, err)
		require.Equal(t, want.Bytes(), got, "copy of the file-backed key")
	}
}

// A cancelled write, before or during, leaves neither the file nor its
// temporary behind; a closed key is refused.
func TestWriteParamsCancelled(t *testing.T) {
	pk := randomKey(t, 1, 31, 20, 1, 1)
	defer func(n int) { writeChunkPoints = n }(writeChunkPoints)
	writeChunkPoints = 4
	dir := t.TempDir()
	path := filepath.Join(dir, "key.params")

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	assert.ErrorIs(t, WriteParamsContext(ctx, path, pk, nil), context.Canceled)

	ctx, cancel = context.WithCancel(context.Background())
	defer cancel()
	err := WriteParamsContext(ctx, path, pk, func(written, total int64) { cancel() })
	assert.ErrorIs(t, err, context.Canceled)
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Empty(t, entries)

	require.NoError(t, pk.Close())
	assert.ErrorIs(t, WriteParams(path, pk), ErrClosed)
	assert.NoFileExists(t, path+".tmp")
}
