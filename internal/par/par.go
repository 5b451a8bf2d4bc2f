// Package par runs a loop over an index range on all cores: the one place
// the module splits work into goroutines this way.
package par

import (
	"context"
	"fmt"
	"runtime"
	"runtime/debug"

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
