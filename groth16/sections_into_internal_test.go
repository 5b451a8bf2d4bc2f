package groth16

import (
	"context"
	"path/filepath"
	"testing"

	bls12381 "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fileKey returns a small in-memory key and its copy written to a .params
// file and opened (whose sections are decoded on demand and can be
// dropped). (groth16/gpu's tests use internal/testprove.FileKey, which
// this package's internal tests cannot import.)
func fileKey(t *testing.T) (mem, file *ProvingKey) {
	t.Helper()
	mem = randomKey(t, 2, 7, 3, 5, 2)
	path := filepath.Join(t.TempDir(), "k.params")
	require.NoError(t, WriteParams(path, mem))
	file, err := OpenProvingKey(path)
	require.NoError(t, err)
	t.Cleanup(func() { _ = file.Close() })
	return mem, file
}

// The streaming path's pinned copy (groth16/gpu) is filled by
// SectionG1Into and BG2Into: decoded straight from the file for a
// file-backed key, copied for an in-memory one; either way equal to the
// sections' accessors, with a destination of the wrong length refused and
// a closed key reported.
func TestSectionsInto(t *testing.T) {
	mem, file := fileKey(t)
	ctx := context.Background()
	for name, pk := range map[string]*ProvingKey{"in memory": mem, "file": file} {
		require.Equal(t, name == "file", pk.fileBacked(), name)
		for s, want := range map[int]func(context.Context) ([]bls12381.G1Affine, error){SectionH: mem.H, SectionL: mem.L, SectionA: mem.A, SectionBG1: mem.BG1} {
			w, err := want(ctx)
			require.NoError(t, err)
			got := make([]bls12381.G1Affine, len(w))
			require.NoError(t, pk.SectionG1Into(ctx, s, got), "%s: %s", name, sectionNames[s])
			assert.Equal(t, w, got, "%s: %s", name, sectionNames[s])
			assert.ErrorIs(t, pk.SectionG1Into(ctx, s, got[:len(got)-1]), ErrInvalidInput, "%s: short", name)
		}
		w, err := mem.BG2(ctx)
		require.NoError(t, err)
		got := make([]bls12381.G2Affine, len(w))
		require.NoError(t, pk.BG2Into(ctx, got), name)
		assert.Equal(t, w, got, name)
		assert.ErrorIs(t, pk.BG2Into(ctx, append(got, bls12381.G2Affine{})), ErrInvalidInput, "%s: long", name)
	}
	require.NoError(t, file.Close())
	assert.ErrorIs(t, file.SectionG1Into(ctx, SectionH, make([]bls12381.G1Affine, mem.Counts().H)), ErrClosed)
}
