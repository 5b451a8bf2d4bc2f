package gpu

import (
	"context"
	"testing"
	"time"
	"unsafe"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuc2/gpuc2/native"
)

// c's pinned stage: one holder at a time, a waiter stopped by its context,
// the copy equal to the vector, and without pinned memory (no library) no
// stage held, so that the proof uploads through the chunks instead.
func TestVectorStage(t *testing.T) {
	vs := newVectorStage(&pinnedRegistry{})
	v := make([]fr.Element, 1000)
	for i := range v {
		v[i].SetUint64(uint64(i) * 7)
	}
	ctx := context.Background()
	buf, err := vs.hold(ctx, v)
	require.NoError(t, err)
	if native.Load() != nil {
		require.Nil(t, buf, "no pinned memory without the library")
		buf, err = vs.hold(ctx, v) // the slot was handed back
		require.NoError(t, err)
		assert.Nil(t, buf)
		vs.close()
		return
	}
	require.NotNil(t, buf)
	assert.Equal(t, v, buf.Fr(len(v)))

	waiting, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
	defer cancel()
	_, err = vs.hold(waiting, v)
	require.ErrorIs(t, err, context.DeadlineExceeded, "held: a second holder waits")

	vs.close() // held: freed on release
	vs.release()
	buf, err = vs.hold(ctx, v)
	require.NoError(t, err)
	assert.Nil(t, buf, "closed: no stage")
}

// A vector already pinned (inside a PinnedVectors block) is not staged:
// hold returns at once, holding nothing, even while another holds the
// stage.
func TestVectorStageSkipsPinned(t *testing.T) {
	v := make([]fr.Element, 64)
	start := uintptr(unsafe.Pointer(unsafe.SliceData(v)))
	vectors := &pinnedRegistry{}
	vectors.addBlock(start, pinnedBlock{size: int64(len(v)) * frSize})
	defer vectors.remove(start)
	vs := newVectorStage(vectors)
	defer vs.close()
	<-vs.slot // another proof holds the stage
	defer func() { vs.slot <- struct{}{} }()
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	buf, err := vs.hold(ctx, v[8:])
	require.NoError(t, err, "a pinned vector does not wait for the stage")
	assert.Nil(t, buf)
	_, err = vs.hold(ctx, make([]fr.Element, 64))
	assert.ErrorIs(t, err, context.DeadlineExceeded, "a heap vector does")
}
