package pipeline

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuc2/gpuc2/synth"
)

// blocked reports whether a reservation is still waiting after a moment.
func blocked[T any](ch <-chan T) bool {
	select {
	case <-ch:
		return false
	case <-time.After(20 * time.Millisecond):
		return true
	}
}

func reserveAsync(b *Budget, ctx context.Context, key synth.Sizes, n int64) <-chan error {
	got := make(chan error, 1)
	go func() { _, err := b.Reserve(ctx, key, n); got <- err }()
	return got
}

func TestBudget(t *testing.T) {
	ctx := context.Background()
	key := synth.Sizes{Rows: 8}
	b := NewBudget(100, 1)

	_, err := b.Reserve(ctx, key, 101)
	assert.ErrorIs(t, err, ErrBudget, "larger than the budget: at once")

	w, err := b.Reserve(ctx, key, 60)
	require.NoError(t, err)
	assert.Nil(t, w)

	// A second 60 waits until the first is given back, or its context ends.
	cctx, cancel := context.WithTimeout(ctx, 20*time.Millisecond)
	_, err = b.Reserve(cctx, key, 60)
	cancel()
	assert.ErrorIs(t, err, context.DeadlineExceeded)

	got := reserveAsync(b, ctx, key, 60)
	require.True(t, blocked(got), "reserved beyond the budget")
	b.Release(key, nil, 60)
	require.NoError(t, <-got)

	// A spare keeps counting and goes to the next reservation of its shape;
	// another shape drops it when it needs the room.
	a := synth.NewProvingAssignment(key)
	b.Release(key, a, 60)
	s := b.Stats()
	assert.Equal(t, int64(60), s.Reserved)
	assert.Equal(t, int64(60), s.Spare)
	w, err = b.Reserve(ctx, key, 60)
	require.NoError(t, err)
	assert.Same(t, a, w)
	b.Release(key, w, 60)
	w, err = b.Reserve(ctx, synth.Sizes{Rows: 16}, 70)
	require.NoError(t, err)
	assert.Nil(t, w)
	s = b.Stats()
	assert.Equal(t, int64(70), s.Reserved)
	assert.Zero(t, s.Spare)
	assert.Equal(t, int64(70), s.Peak, "the high-water mark never passes the budget")

	// A full pool releases instead of keeping; DropSpares frees spares.
	b.Release(synth.Sizes{Rows: 16}, nil, 70)
	assert.Zero(t, b.Stats().Reserved)
	_, err = b.Reserve(ctx, key, 30)
	require.NoError(t, err)
	_, err = b.Reserve(ctx, key, 30)
	require.NoError(t, err)
	b.Release(key, a, 30)
	b.Release(key, synth.NewProvingAssignment(key), 30) // the pool holds one
	assert.Equal(t, int64(30), b.Stats().Spare)
	b.DropSpares(&synth.Sizes{Rows: 99})
	assert.Equal(t, int64(30), b.Stats().Spare, "another shape's spares stay")
	b.DropSpares(&key)
	assert.Zero(t, b.Stats().Reserved)
}

// A spare never holds up a reservation: one waiting when a partition is
// given back with its assignment gets the assignment.
func TestBudgetSpareGoesToWaiter(t *testing.T) {
	ctx := context.Background()
	key := synth.Sizes{Rows: 8}
	b := NewBudget(100, 2)
	_, err := b.Reserve(ctx, key, 60)
	require.NoError(t, err)
	type reserved struct {
		w   *synth.ProvingAssignment
		err error
	}
	got := make(chan reserved, 1)
	go func() { w, err := b.Reserve(ctx, key, 60); got <- reserved{w, err} }()
	require.True(t, blocked(got))
	a := synth.NewProvingAssignment(key)
	b.Release(key, a, 60)
	r := <-got
	require.NoError(t, r.err)
	assert.Same(t, a, r.w)
	assert.Equal(t, BudgetStats{Limit: 100, Reserved: 60, Peak: 60}, b.Stats())
}

// Reservations are served in the order they are asked for: a small one
// asked after a large one waits behind it.
func TestBudgetFIFO(t *testing.T) {
	ctx := context.Background()
	key := synth.Sizes{Rows: 8}
	b := NewBudget(100, 0)
	_, err := b.Reserve(ctx, key, 80)
	require.NoError(t, err)
	large := reserveAsync(b, ctx, key, 90)
	require.True(t, blocked(large))
	small := reserveAsync(b, ctx, key, 10) // would fit now, but comes second
	require.True(t, blocked(small), "a later reservation overtook a waiting one")
	b.Release(key, nil, 80)
	require.NoError(t, <-large)
	b.Release(key, nil, 90)
	require.NoError(t, <-small)
}

// Resident bytes (loaded parameters) shrink the limit at once: bytes that
// are not free are owed and paid out of the next releases, before a waiting
// reservation; spares give way to them; and a reservation waiting for more
// than the new limit gives up with ErrBudget.
func TestBudgetResident(t *testing.T) {
	ctx := context.Background()
	key := synth.Sizes{Rows: 8}
	b := NewBudget(100, 1)

	b.SetResident(50)
	assert.Equal(t, int64(50), b.Limit())
	assert.ErrorIs(t, b.Fits(60), ErrBudget)
	_, err := b.Reserve(ctx, key, 60)
	assert.ErrorIs(t, err, ErrBudget)
	b.SetResident(0)
	require.NoError(t, b.Fits(60))

	// 50 and 30 reserved, then 30 resident: 20 were free, 10 are owed.
	_, err = b.Reserve(ctx, key, 50)
	require.NoError(t, err)
	_, err = b.Reserve(ctx, key, 30)
	require.NoError(t, err)
	b.SetResident(30)
	got := reserveAsync(b, ctx, key, 45)
	require.True(t, blocked(got))
	b.Release(key, nil, 50) // pays the 10 owed: 40 free
	require.True(t, blocked(got), "reserved beyond the limit: the owed bytes were not paid first")
	b.Release(key, nil, 30)
	require.NoError(t, <-got)
	got = reserveAsync(b, ctx, key, 26)
	require.True(t, blocked(got), "reserved beyond the limit less the resident bytes")
	b.SetResident(29) // gives back 1
	require.NoError(t, <-got)
	b.Release(key, nil, 45)
	b.Release(key, nil, 26)
	b.SetResident(0)
	assert.Equal(t, BudgetStats{Limit: 100, Peak: 80}, b.Stats())

	// A spare gives way to loaded parameters.
	_, err = b.Reserve(ctx, key, 60)
	require.NoError(t, err)
	b.Release(key, synth.NewProvingAssignment(key), 60)
	assert.Equal(t, int64(60), b.Stats().Spare)
	b.SetResident(50)
	assert.Zero(t, b.Stats().Spare)
	b.SetResident(0)

	// A reservation waiting for more than the shrunk limit gives up.
	_, err = b.Reserve(ctx, key, 60)
	require.NoError(t, err)
	got = reserveAsync(b, ctx, key, 60)
	require.True(t, blocked(got))
	b.SetResident(50)
	assert.ErrorIs(t, <-got, ErrBudget)
	b.SetResident(0)
	b.Release(key, nil, 60)
	_, err = b.Reserve(ctx, key, 100)
	require.NoError(t, err, "everything was given back")
}

// The spare cap is per shape: a WinningPoSt's small spares do not push
// out the PoRep spares a drained pipeline refills from.
func TestBudgetSparesPerShape(t *testing.T) {
	ctx := context.Background()
	big, small := synth.Sizes{Rows: 8}, synth.Sizes{Rows: 2}
	b := NewBudget(100, 1)
	dropped := 0
	b.drop = func(*synth.ProvingAssignment) { dropped++ }
	for _, k := range []synth.Sizes{small, big, big} {
		_, err := b.Reserve(ctx, k, 10)
		require.NoError(t, err)
	}
	b.Release(small, synth.NewProvingAssignment(small), 10)
	b.Release(big, synth.NewProvingAssignment(big), 10)
	b.Release(big, synth.NewProvingAssignment(big), 10)
	assert.Equal(t, int64(20), b.Stats().Spare, "one of each shape: the second big one dropped")
	assert.Equal(t, 1, dropped, "the second big one handed to drop")
	for _, k := range []synth.Sizes{small, big} {
		w, err := b.Reserve(ctx, k, 10)
		require.NoError(t, err)
		assert.NotNil(t, w, "the spare of %v", k)
	}
}
