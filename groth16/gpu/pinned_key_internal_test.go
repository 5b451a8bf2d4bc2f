package gpu

import (
	"testing"

	"github.com/gpuc2/gpuc2/groth16"
	"github.com/stretchr/testify/assert"
)

// A pinned key lays its sections out back to back in KeyBytes.
func TestPinnedLayout(t *testing.T) {
	c := groth16.SectionCounts{H: 7, L: 5, A: 9, B: 3}
	hk, size := pinnedLayout(c)
	assert.Equal(t, groth16.KeyBytes(c), size)
	assert.Equal(t, [groth16.NumSections]int64{0, 7 * g1Bytes, 12 * g1Bytes, 21 * g1Bytes, 24 * g1Bytes}, hk.off)
	m := hk.msm(groth16.SectionBG2, 1, 2, nil, 3, nil, defaultChunks)
	assert.Equal(t, 25*g1Bytes-g1Bytes+g2Bytes, m.BasesOff, "b_g2's second point")
	assert.Equal(t, int(defaultChunks.g2/g2Bytes), m.ChunkPoints)
	assert.True(t, m.Canonical)
}
