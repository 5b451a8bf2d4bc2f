package gpuc2

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuc2/gpuc2/synth"
)

func TestHostBudget(t *testing.T) {
	ctx := context.Background()
	key := synth.Sizes{Rows: 8}
	b := newHostBudget(100, 1)

	_, err := b.reserve(ctx, key, 101)
	assert.ErrorIs(t, err, ErrBudget, "larger than the budget: at once")

	w, err := b.reserve(ctx, key, 60)
	require.NoError(t, err)
	assert.Nil(t, w)

	// A second 60 waits until the first is given back, or its context ends.
	cctx, cancel := context.WithTimeout(ctx, 20*time.Millisecond)
	_, err = b.reserve(cctx, key, 60)
	cancel()
	assert.ErrorIs(t, err, context.DeadlineExceeded)

	got := make(chan error, 1)
	go func() { _, err := b.reserve(ctx, key, 60); got <- err }()
	time.Sleep(10 * time.Millisecond)
	select {
	case <-got:
		t.Fatal("reserved beyond the budget")
	default:
	}
	b.release(60)
	require.NoError(t, <-got)

	// A parked assignment keeps its bytes and goes to the next reservation
	// of its shape; another shape frees it when it needs the room.
	a := synth.NewProvingAssignment(key)
	b.put(key, a, 60)
	s := b.snapshot()
	assert.Equal(t, int64(60), s.used)
	assert.Equal(t, int64(60), s.parked)
	w, err = b.reserve(ctx, key, 60)
	require.NoError(t, err)
	assert.Same(t, a, w)
	b.put(key, w, 60)
	w, err = b.reserve(ctx, synth.Sizes{Rows: 16}, 70)
	require.NoError(t, err)
	assert.Nil(t, w)
	s = b.snapshot()
	assert.Equal(t, int64(70), s.used)
	assert.Zero(t, s.parked)
	assert.Equal(t, int64(70), s.peak, "the high-water mark never passes the budget")

	// A full pool releases instead of parking; dropPool frees parked ones.
	b.put(synth.Sizes{Rows: 16}, nil, 70)
	assert.Zero(t, b.snapshot().used)
	b.put(key, a, 0)
	b.dropPool(nil)
	assert.Zero(t, b.snapshot().parked)

	// Resident bytes (loaded parameters) shrink the limit.
	b.setResident(50)
	assert.Equal(t, int64(50), b.limit())
	assert.ErrorIs(t, b.fits(60), ErrBudget)
}

func TestDefaultHostBudget(t *testing.T) {
	n := defaultHostBudget()
	assert.GreaterOrEqual(t, n, int64(1<<30))
	if total := memTotal(); total > 0 {
		assert.Less(t, n, total)
	}
}
