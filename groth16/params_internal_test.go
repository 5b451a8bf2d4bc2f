package groth16

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A caller waiting on another's fill takes over when that fill is cancelled,
// and the cancelled attempt leaves nothing cached.
func TestLazyCancelledFillIsRetried(t *testing.T) {
	var z lazy[int]
	var calls atomic.Int32
	started := make(chan struct{})
	fill := func(ctx context.Context) ([]int, error) {
		if calls.Add(1) == 1 {
			close(started)
			<-ctx.Done()
			return nil, ctx.Err()
		}
		return []int{42}, nil
	}
	leaderCtx, cancel := context.WithCancel(context.Background())
	leaderErr := make(chan error, 1)
	go func() {
		_, err := z.get(leaderCtx, fill)
		leaderErr <- err
	}()
	<-started
	follower := make(chan []int, 1)
	go func() {
		v, err := z.get(context.Background(), fill)
		assert.NoError(t, err)
		follower <- v
	}()
	time.Sleep(10 * time.Millisecond) // let the follower start waiting
	cancel()
	require.ErrorIs(t, <-leaderErr, context.Canceled)
	assert.Equal(t, []int{42}, <-follower)
	assert.EqualValues(t, 2, calls.Load())

	v, err := z.get(context.Background(), fill)
	require.NoError(t, err)
	assert.Equal(t, []int{42}, v)
	assert.EqualValues(t, 2, calls.Load(), "cached after success")
}

// A waiter whose own context ends stops waiting without disturbing the fill.
func TestLazyWaiterCancelled(t *testing.T) {
	var z lazy[int]
	release := make(chan struct{})
	started := make(chan struct{})
	go func() {
		_, _ = z.get(context.Background(), func(context.Context) ([]int, error) {
			close(started)
			<-release
			return []int{1}, nil
		})
	}()
	<-started
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancel()
	_, err := z.get(ctx, nil)
	require.ErrorIs(t, err, context.DeadlineExceeded)
	close(release)
	v, err := z.get(context.Background(), func(context.Context) ([]int, error) { return nil, errors.New("not called") })
	require.NoError(t, err)
	assert.Equal(t, []int{1}, v)
}

// Decode errors are cached; evict clears them, and a fill that straddles an
// evict does not repopulate the cache.
func TestLazyErrorsAndEvict(t *testing.T) {
	var z lazy[int]
	bad := errors.New("bad")
	var calls int
	fill := func(context.Context) ([]int, error) { calls++; return nil, bad }
	for range 2 {
		_, err := z.get(context.Background(), fill)
		require.ErrorIs(t, err, bad)
	}
	assert.Equal(t, 1, calls)
	z.evict()
	_, err := z.get(context.Background(), func(context.Context) ([]int, error) {
		z.evict()
		return []int{7}, nil
	})
	require.NoError(t, err)
	assert.False(t, z.done, "stale fill not cached")

	z.pin([]int{3})
	z.evict()
	v, err := z.get(context.Background(), fill)
	require.NoError(t, err)
	assert.Equal(t, []int{3}, v, "pinned values survive evict")
}

func TestCheckParamsShape(t *testing.T) {
	ok := []SectionCounts{{H: 0, L: 0, A: 1, B: 0}, {H: 1, L: 1, A: 2, B: 2}, {H: 134217727, L: 130169893, A: 129753620, B: 33112282}}
	for _, c := range ok {
		nIC := 1
		if c.H == 134217727 {
			nIC = 328 // 32 GiB PoRep: .vk is 32,356 = 868 + 96·328 bytes
		}
		_, err := checkParamsShape(c, nIC)
		assert.NoError(t, err, "%+v", c)
	}
}
