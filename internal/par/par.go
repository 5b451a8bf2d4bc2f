// Package par runs a loop over an index range on all cores: the one place
// the module splits work into goroutines this way.
package par

import (
	"context"
	"fmt"
	"runtime"
	"runtime/debug"
	"sync"
	"sync/atomic"

	"golang.org/x/sync/errgroup"
)

// Range splits [0, n) into one range per core, each at least minChunk long,
// and runs f on them concurrently. ctx is checked before each range starts;
// the first error (or ctx's) is returned.
func Range(ctx context.Context, n, minChunk int, f func(lo, hi int) error) error {
	if n <= 0 {
		return ctx.Err()
	}
	workers := runtime.GOMAXPROCS(0)
	chunk := max(minChunk, (n+workers-1)/workers, 1)
	return Chunks(ctx, n, chunk, f)
}

// Chunks runs f over [0, n) in ranges of chunk indices, at most one per core
// at a time. ctx is checked before each range starts; the first error (or
// ctx's) is returned.
func Chunks(ctx context.Context, n, chunk int, f func(lo, hi int) error) error {
	chunk = max(chunk, 1)
	if n <= chunk {
		if err := ctx.Err(); err != nil {
			return err
		}
		if n <= 0 {
			return nil
		}
		return Recover(func() error { return f(0, n) })
	}
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(runtime.GOMAXPROCS(0))
	for lo := 0; lo < n; lo += chunk {
		hi := min(lo+chunk, n)
		g.Go(func() error {
			if err := gctx.Err(); err != nil {
				return err
			}
			return Recover(func() error { return f(lo, hi) })
		})
	}
	return g.Wait()
}

// urgentKey marks a context as Urgent's.
type urgentKey struct{}

// urgent counts the Urgent calls not yet ended; clear is closed when the
// count drops to zero (made anew when it leaves zero).
var urgent struct {
	n     atomic.Int64
	mu    sync.Mutex
	clear chan struct{}
}

// Urgent returns ctx marked urgent, its work under way until end is called
// (more calls do nothing): while any urgent work is, Yield holds other
// work at the start of its next piece, so the urgent work gets the cores.
// The pipeline marks the synthesis of a job above the default priority.
// Chunks and Range do not yield (they also serve the provers and the
// checks before synthesis). Urgent work must pass its context to the work
// it waits for, or that work, if it yields, waits for it: a deadlock.
func Urgent(ctx context.Context) (_ context.Context, end func()) {
	urgent.mu.Lock()
	if urgent.n.Add(1) == 1 {
		urgent.clear = make(chan struct{})
	}
	urgent.mu.Unlock()
	var once sync.Once
	return context.WithValue(ctx, urgentKey{}, true), func() {
		once.Do(func() {
			urgent.mu.Lock()
			if urgent.n.Add(-1) == 0 {
				close(urgent.clear)
			}
			urgent.mu.Unlock()
		})
	}
}

// Yield waits, unless ctx is Urgent's, while urgent work is under way,
// then returns ctx's error. The loops that split a synthesis into parts
// (synth/internal/forkjoin's, synth/stacked's) call it before each part;
// a part already running runs to its end.
func Yield(ctx context.Context) error {
	if urgent.n.Load() == 0 || ctx.Value(urgentKey{}) != nil {
		return ctx.Err()
	}
	urgent.mu.Lock()
	clear := urgent.clear
	if urgent.n.Load() == 0 {
		clear = nil
	}
	urgent.mu.Unlock()
	if clear != nil {
		select {
		case <-clear:
		case <-ctx.Done():
		}
	}
	return ctx.Err()
}

// Guard is f run through Recover, for errgroup's Go.
func Guard(f func() error) func() error {
	return func() error { return Recover(f) }
}

// PanicError is a panic recovered on one of the module's goroutines: it
// fails the call that goroutine served instead of the host process.
type PanicError struct {
	Value any
	Stack []byte // of the goroutine that panicked
}

func (e *PanicError) Error() string { return fmt.Sprintf("panic: %v", e.Value) }

// Recover runs f and returns a panic in it as a *PanicError. Every goroutine
// the module starts runs its work through it (Chunks and Range do).
func Recover(f func() error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = &PanicError{Value: r, Stack: debug.Stack()}
		}
	}()
	return f()
}
