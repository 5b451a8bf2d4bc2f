package forkjoin

import (
	"context"
	"sync"

	"golang.org/x/sync/errgroup"

	"github.com/gpuc2/gpuc2/internal/par"
	"github.com/gpuc2/gpuc2/synth"
)

// Run synthesizes n parts of the same size into p: it forks p into n
// children of exactly size each (synth.ForkN, so they write straight into
// p's buffers and joining copies nothing), runs part(ctx, i, child) for
// each on its own goroutine, at most limit at a time (0: no limit, for
// parts that bound their own work), calls progress(done, n) after each
// part that succeeds (one call at a time; nil: none), and joins the
// children in order. Each part first yields to urgent work (par.Yield). A
// part must read only variables allocated before the
// fork; then the rows, values and densities equal those of running the
// parts one after another, whatever the scheduling. ctx is checked before
// each part; the first error (or ctx's) cancels the parts not yet started
// and is returned, a part's panic as a *par.PanicError.
func Run(ctx context.Context, p *synth.ProvingAssignment, n int, size synth.Sizes, limit int,
	progress func(done, total int), part func(ctx context.Context, i int, cs *synth.ProvingAssignment) error) error {
	sizes := make([]synth.Sizes, n)
	for i := range sizes {
		sizes[i] = size
	}
	children := p.ForkN(sizes)
	var mu sync.Mutex
	done := 0
	g, gctx := errgroup.WithContext(ctx)
	if limit > 0 {
		g.SetLimit(limit)
	}
	for i := range children {
		g.Go(par.Guard(func() error {
			if err := par.Yield(gctx); err != nil { // urgent work first
				return err
			}
			if err := part(gctx, i, children[i]); err != nil {
				return err
			}
			if progress != nil {
				mu.Lock()
				done++
				progress(done, n)
				mu.Unlock()
			}
			return nil
		}))
	}
	if err := g.Wait(); err != nil {
		return err
	}
	return p.Join(children...)
}
