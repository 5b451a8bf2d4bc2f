package gpu

import (
	"context"
	"errors"
	"sync"
)

// flight keeps values that a slow, cancellable upload makes, one per key,
// and hands them out counted (acquire, then release):
//
//   - the first caller of acquire for a key runs its upload with no lock
//     held; callers arriving meanwhile wait for it, each returning at once
//     with its own context's error if that ends first;
//   - a failed upload leaves the key absent: its caller gets the error and
//     the waiters start over (one of them runs its own upload), so one
//     caller's cancellation or failure is not the others';
//   - evict and close drop a key at once: its value is freed when its last
//     holder releases it; an upload in flight is cancelled, its value (if
//     it arrives anyway) freed, and its caller and waiters get errEvicted
//     (ErrClosed after close).
//
// The CUDA prover keeps its resident keys in one: an upload of up to 44 GiB,
// which may wait for room in the ledger, must neither hold up other
// workers' proofs uncancellably nor leak when its key is evicted under it.
type flight[K comparable, V any] struct {
	free func(V) // gives back a value nobody holds any more

	mu      sync.Mutex
	slots   map[K]*slot[V]
	closed  bool
	uploads sync.WaitGroup // running uploads, for close
}

// slot is one key's value, or its upload in flight.
type slot[V any] struct {
	done    chan struct{}      // closed when the upload has ended
	cancel  context.CancelFunc // cancels the upload
	val     V
	ready   bool // the upload succeeded
	holders int  // acquired and not yet released
	evicted bool // out of slots: free val at the last release
}

// errEvicted reports a key evicted while the caller uploaded or waited for it.
var errEvicted = errors.New("gpu: resident key evicted during its upload")

func newFlight[K comparable, V any](free func(V)) *flight[K, V] {
	return &flight[K, V]{free: free, slots: map[K]*slot[V]{}}
}

// acquire returns k's value, running upload to make it when no one has or
// is; uploaded says this call ran the upload. The caller hands the value
// back with release (idempotent) when done with it.
func (f *flight[K, V]) acquire(ctx context.Context, k K, upload func(context.Context) (V, error)) (v V, release func(), uploaded bool, err error) {
	var waited *slot[V] // the upload last waited for
	for {
		f.mu.Lock()
		if err := f.droppedErr(waited); err != nil {
			f.mu.Unlock()
			return v, nil, false, err
		}
		s := f.slots[k]
		switch {
		case s == nil:
			return f.run(ctx, k, upload) // unlocks
		case s.ready:
			s.holders++
			f.mu.Unlock()
			return s.val, f.releaser(s), false, nil
		}
		f.mu.Unlock()
		select {
		case <-s.done: // done or failed: look again
			waited = s
		case <-ctx.Done():
			return v, nil, false, ctx.Err()
		}
	}
}

// droppedErr is the error of an acquire whose flight ended, or whose
// awaited upload was evicted: ErrClosed, errEvicted or nil. Called
// with mu held.
func (f *flight[K, V]) droppedErr(waited *slot[V]) error {
	switch {
	case f.closed:
		return ErrClosed
	case waited != nil && waited.evicted:
		return errEvicted
	}
	return nil
}

// run uploads k's value as a new slot. Called with mu held; returns
// without it.
func (f *flight[K, V]) run(ctx context.Context, k K, upload func(context.Context) (V, error)) (V, func(), bool, error) {
	uctx, cancel := context.WithCancel(ctx)
	s := &slot[V]{done: make(chan struct{}), cancel: cancel}
	f.slots[k] = s
	f.uploads.Add(1)
	f.mu.Unlock()
	defer f.uploads.Done()

	v, err := upload(uctx)
	cancel()
	f.mu.Lock()
	dropped := f.droppedErr(s)
	switch {
	case dropped != nil: // evicted or closed meanwhile: nobody will use v
	case err != nil:
		delete(f.slots, k)
	default:
		s.val, s.ready, s.holders = v, true, 1
	}
	close(s.done)
	f.mu.Unlock()
	var zero V
	if dropped != nil {
		if err == nil {
			f.free(v)
		}
		return zero, nil, false, dropped
	}
	if err != nil {
		return zero, nil, false, err
	}
	return v, f.releaser(s), true, nil
}

// releaser returns the release function of one acquire of s.
func (f *flight[K, V]) releaser(s *slot[V]) func() {
	var once sync.Once
	return func() {
		once.Do(func() {
			f.mu.Lock()
			s.holders--
			last := s.evicted && s.holders == 0
			f.mu.Unlock()
			if last {
				f.free(s.val)
			}
		})
	}
}

// evict drops k: its value is freed now, or by its last holder's release;
// an upload in flight is cancelled.
func (f *flight[K, V]) evict(k K) {
	f.mu.Lock()
	s := f.slots[k]
	freeNow := s != nil && f.drop(k, s)
	f.mu.Unlock()
	if freeNow {
		f.free(s.val)
	}
}

// close drops every key as evict does, fails later acquires with
// ErrClosed, and returns once the uploads it cancelled have ended
// (values still held are freed by their last release).
func (f *flight[K, V]) close() {
	f.mu.Lock()
	f.closed = true
	var freeNow []V
	for k, s := range f.slots {
		if f.drop(k, s) {
			freeNow = append(freeNow, s.val)
		}
	}
	f.mu.Unlock()
	for _, v := range freeNow {
		f.free(v)
	}
	f.uploads.Wait()
}

// ready reports whether k's value is there (uploaded, not evicted).
func (f *flight[K, V]) ready(k K) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	s := f.slots[k]
	return s != nil && s.ready
}

// values are the values there now (uploaded, not evicted).
func (f *flight[K, V]) values() []V {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []V
	for _, s := range f.slots {
		if s.ready {
			out = append(out, s.val)
		}
	}
	return out
}

// drop removes k's slot s, cancelling its upload if one runs, and reports
// whether its value is to be freed now (ready and not held). Called with mu
// held.
func (f *flight[K, V]) drop(k K, s *slot[V]) bool {
	delete(f.slots, k)
	s.evicted = true
	if !s.ready {
		s.cancel()
		return false
	}
	return s.holders == 0
}
