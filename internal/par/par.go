// Package par runs a loop over an index range on all cores: the one place
// the module splits work into goroutines this way.
package par

import (
	"context"
	"runtime"

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
		return f(0, n)
	}
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(runtime.GOMAXPROCS(0))
	for lo := 0; lo < n; lo += chunk {
		hi := min(lo+chunk, n)
		g.Go(func() error {
			if err := gctx.Err(); err != nil {
				return err
			}
			return f(lo, hi)
		})
	}
	return g.Wait()
}
