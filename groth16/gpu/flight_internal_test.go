package gpu

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// testValue is a value of a test flight; frees counts how often it was freed.
type testValue struct {
	id    int
	frees atomic.Int32
}

// testFlight is a flight over testValues that records every value it frees.
type testFlight struct {
	*flight[string, *testValue]
	made   atomic.Int32 // uploads started
	mu     sync.Mutex
	values []*testValue
}

func newTestFlight() *testFlight {
	tf := &testFlight{}
	tf.flight = newFlight[string](func(v *testValue) { v.frees.Add(1) })
	return tf
}

// upload returns an upload function that starts (closing started, if any),
// waits for proceed (nil: at once) or its context, and then makes a new
// value or fails with fail.
func (tf *testFlight) upload(started chan<- struct{}, proceed <-chan struct{}, fail error) func(context.Context) (*testValue, error) {
	return func(ctx context.Context) (*testValue, error) {
		n := tf.made.Add(1)
		if started != nil {
			close(started)
		}
		if proceed != nil {
			select {
			case <-proceed:
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}
		if fail != nil {
			return nil, fail
		}
		v := &testValue{id: int(n)}
		tf.mu.Lock()
		tf.values = append(tf.values, v)
		tf.mu.Unlock()
		return v, nil
	}
}

// requireFreedOnce checks that every value made was freed exactly once.
func (tf *testFlight) requireFreedOnce(t *testing.T) {
	t.Helper()
	tf.mu.Lock()
	defer tf.mu.Unlock()
	for _, v := range tf.values {
		require.EqualValues(t, 1, v.frees.Load(), "value %d freed once", v.id)
	}
}

// result is what one acquire returned.
type result struct {
	v        *testValue
	release  func()
	uploaded bool
	err      error
}

func (tf *testFlight) acquireAsync(ctx context.Context, key string, upload func(context.Context) (*testValue, error)) <-chan result {
	out := make(chan result, 1)
	go func() {
		v, release, uploaded, err := tf.acquire(ctx, key, upload)
		out <- result{v, release, uploaded, err}
	}()
	return out
}

// Many concurrent callers for one key share one upload and one value; the
// value is freed once, after evict and the last release, whatever their order.
func TestFlightUploadsOnce(t *testing.T) {
	tf := newTestFlight()
	started, proceed := make(chan struct{}), make(chan struct{})
	const callers = 16
	first := tf.acquireAsync(context.Background(), "k", tf.upload(started, proceed, nil))
	<-started
	var rest []<-chan result
	for range callers - 1 {
		rest = append(rest, tf.acquireAsync(context.Background(), "k", tf.upload(nil, nil, errors.New("a second upload ran"))))
	}
	close(proceed)
	r := <-first
	require.NoError(t, r.err)
	assert.True(t, r.uploaded)
	releases := []func(){r.release}
	for _, c := range rest {
		got := <-c
		require.NoError(t, got.err)
		assert.False(t, got.uploaded)
		assert.Same(t, r.v, got.v)
		releases = append(releases, got.release)
	}
	assert.EqualValues(t, 1, tf.made.Load(), "one upload")

	for _, release := range releases[:callers/2] {
		release()
		release() // idempotent
	}
	tf.evict("k")
	assert.Zero(t, r.v.frees.Load(), "held values outlive evict")
	for _, release := range releases[callers/2:] {
		release()
	}
	tf.requireFreedOnce(t)

	// Evicted: the next caller uploads again.
	v, release, uploaded, err := tf.acquire(context.Background(), "k", tf.upload(nil, nil, nil))
	require.NoError(t, err)
	assert.True(t, uploaded)
	assert.NotSame(t, r.v, v)
	release()
	tf.evict("k")
	tf.requireFreedOnce(t)
}

// A waiter whose context ends returns its error at once, while the upload
// it waited for goes on for its caller.
func TestFlightWaiterCancelled(t *testing.T) {
	tf := newTestFlight()
	started, proceed := make(chan struct{}), make(chan struct{})
	first := tf.acquireAsync(context.Background(), "k", tf.upload(started, proceed, nil))
	<-started
	ctx, cancel := context.WithCancel(context.Background())
	waiter := tf.acquireAsync(ctx, "k", tf.upload(nil, nil, errors.New("the waiter uploaded")))
	cancel()
	select {
	case r := <-waiter:
		require.ErrorIs(t, r.err, context.Canceled)
	case <-time.After(10 * time.Second):
		t.Fatal("the cancelled waiter is still waiting behind the upload")
	}
	close(proceed)
	r := <-first
	require.NoError(t, r.err)
	assert.True(t, r.uploaded)
	r.release()
	tf.close()
	tf.requireFreedOnce(t)
}

// When the upload fails, or its caller's context ends, its caller gets that
// error and the waiters start over: one of them uploads, the others share
// its value.
func TestFlightUploaderFails(t *testing.T) {
	for _, tc := range []struct {
		name string
		end  func(cancel context.CancelFunc, proceed chan struct{}) // makes the first upload fail
		want error
	}{
		{"error", func(_ context.CancelFunc, proceed chan struct{}) { close(proceed) }, errors.New("no room")},
		{"cancelled", func(cancel context.CancelFunc, _ chan struct{}) { cancel() }, context.Canceled},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tf := newTestFlight()
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			started, proceed := make(chan struct{}), make(chan struct{})
			fail := tc.want
			if errors.Is(fail, context.Canceled) {
				fail = nil // the upload fails by its context
			}
			first := tf.acquireAsync(ctx, "k", tf.upload(started, proceed, fail))
			<-started
			var waiters []<-chan result
			for range 8 {
				waiters = append(waiters, tf.acquireAsync(context.Background(), "k", tf.upload(nil, nil, nil)))
			}
			tc.end(cancel, proceed)
			r := <-first
			if errors.Is(tc.want, context.Canceled) {
				require.ErrorIs(t, r.err, context.Canceled)
			} else {
				require.ErrorIs(t, r.err, tc.want)
			}
			var v *testValue
			uploads := 0
			for _, c := range waiters {
				got := <-c
				require.NoError(t, got.err)
				if got.uploaded {
					uploads++
				}
				if v == nil {
					v = got.v
				}
				assert.Same(t, v, got.v)
				got.release()
			}
			assert.Equal(t, 1, uploads, "one waiter uploads again")
			assert.EqualValues(t, 2, tf.made.Load())
			tf.close()
			tf.requireFreedOnce(t)
		})
	}
}

// Evict during an upload cancels it: its caller and waiters get errEvicted,
// a value that arrives anyway is freed, and the key is absent afterwards.
func TestFlightEvictDuringUpload(t *testing.T) {
	for _, finishes := range []bool{false, true} {
		tf := newTestFlight()
		started := make(chan struct{})
		upload := tf.upload(started, make(chan struct{}), nil) // ends by its context
		if finishes {
			// An upload that completes although cancelled (its last copy
			// was queued): the value arrives after evict.
			upload = func(ctx context.Context) (*testValue, error) {
				close(started)
				<-ctx.Done()
				v := &testValue{id: 99}
				tf.mu.Lock()
				tf.values = append(tf.values, v)
				tf.mu.Unlock()
				return v, nil
			}
		}
		first := tf.acquireAsync(context.Background(), "k", upload)
		<-started
		waiter := tf.acquireAsync(context.Background(), "k", tf.upload(nil, nil, errors.New("the waiter uploaded")))
		tf.evict("k")
		require.ErrorIs(t, (<-first).err, errEvicted, "finishes %v", finishes)
		// The waiter either waited for the evicted upload or came after
		// the eviction and uploaded (and failed) itself: never a value.
		r := <-waiter
		require.Error(t, r.err)
		assert.Nil(t, r.v)
		tf.requireFreedOnce(t)

		v, release, uploaded, err := tf.acquire(context.Background(), "k", tf.upload(nil, nil, nil))
		require.NoError(t, err)
		assert.True(t, uploaded)
		release()
		tf.close()
		assert.EqualValues(t, 1, v.frees.Load())
		tf.requireFreedOnce(t)
	}
}

// Close frees unheld values at once, cancels uploads and waits for them,
// leaves held values to their last release, and fails later acquires.
func TestFlightClose(t *testing.T) {
	tf := newTestFlight()
	idle, releaseIdle, _, err := tf.acquire(context.Background(), "idle", tf.upload(nil, nil, nil))
	require.NoError(t, err)
	releaseIdle()
	held, releaseHeld, _, err := tf.acquire(context.Background(), "held", tf.upload(nil, nil, nil))
	require.NoError(t, err)
	started := make(chan struct{})
	var ended atomic.Bool
	upload := tf.upload(started, make(chan struct{}), nil) // ends by its context
	running := tf.acquireAsync(context.Background(), "running", func(ctx context.Context) (*testValue, error) {
		defer ended.Store(true)
		return upload(ctx)
	})
	<-started

	tf.close()
	assert.True(t, ended.Load(), "close returns after the upload it cancelled")
	assert.EqualValues(t, 1, idle.frees.Load(), "an unheld value is freed by close")
	assert.Zero(t, held.frees.Load(), "a held value outlives close")
	require.ErrorIs(t, (<-running).err, ErrClosed)
	_, _, _, err = tf.acquire(context.Background(), "idle", tf.upload(nil, nil, errors.New("uploaded after close")))
	require.ErrorIs(t, err, ErrClosed)
	releaseHeld()
	tf.requireFreedOnce(t)
	tf.evict("held") // nothing left: a no-op
	tf.close()       // idempotent
	tf.requireFreedOnce(t)
}
