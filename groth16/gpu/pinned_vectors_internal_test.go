package gpu

import (
	"testing"
	"unsafe"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/gpuc2/gpuc2/groth16"
	"github.com/stretchr/testify/assert"
)

// The registry finds the block a vector lies wholly in, with its offset,
// and nothing for a vector that leaves it, starts before it, or is empty;
// a removed block is found no more.
func TestPinnedRegistryFind(t *testing.T) {
	var r pinnedRegistry
	backing := make([]fr.Element, 64)
	block := backing[8:40]
	start := uintptr(unsafe.Pointer(unsafe.SliceData(block)))
	r.addBlock(start, pinnedBlock{size: int64(len(block)) * frSize})

	for _, tc := range []struct {
		name string
		v    []fr.Element
		ok   bool
		off  int64
	}{
		{"the block", block, true, 0},
		{"inside", block[5:9], true, 5 * frSize},
		{"its last element", block[31:], true, 31 * frSize},
		{"past its end", backing[30:41], false, 0},
		{"before its start", backing[7:12], false, 0},
		{"elsewhere", backing[50:60], false, 0},
		{"empty", block[3:3], false, 0},
	} {
		_, off, ok := r.find(tc.v)
		assert.Equal(t, tc.ok, ok, tc.name)
		assert.Equal(t, tc.off, off, tc.name)
	}
	assert.Nil(t, r.remove(start))
	_, _, ok := r.find(block)
	assert.False(t, ok, "removed")
}

// Without the native library Alloc fails and allocates nothing; Free of a
// vector Alloc did not return leaves it alone.
func TestPinnedVectorsWithoutLibrary(t *testing.T) {
	if CUDAAvailable() {
		t.Skip("the native library is loaded")
	}
	pv := PinnedVectors{reg: newHostState().vectors} // as Devices.Vectors returns it
	_, err := pv.Alloc(16)
	assert.ErrorIs(t, err, errPinnedHost)
	_, err = pv.Alloc(0)
	assert.ErrorIs(t, err, groth16.ErrInvalidInput)
	assert.NoError(t, pv.Free(make([]fr.Element, 4)))
}
