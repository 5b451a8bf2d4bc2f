package groth16

import (
	"context"
	"testing"

	bls12381 "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The streaming path's pinned copy is filled by SectionG1Into and BG2Into:
// decoded straight from the file for a file-backed key, copied for an
// in-memory one; either way equal to the sections' accessors, with a
// destination of the wrong length refused and a closed key reported.
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

// A pinned key lays its sections out back to back in KeyBytes.
func TestPinnedLayout(t *testing.T) {
	c := SectionCounts{H: 7, L: 5, A: 9, B: 3}
	hk, size := pinnedLayout(c)
	assert.Equal(t, KeyBytes(c), size)
	assert.Equal(t, [NumSections]int64{0, 7 * g1Bytes, 12 * g1Bytes, 21 * g1Bytes, 24 * g1Bytes}, hk.off)
	m := hk.msm(SectionBG2, 1, 2, nil, 3, nil, defaultChunks)
	assert.Equal(t, 25*g1Bytes-g1Bytes+g2Bytes, m.BasesOff, "b_g2's second point")
	assert.Equal(t, int(defaultChunks.g2/g2Bytes), m.ChunkPoints)
	assert.True(t, m.Canonical)
}
