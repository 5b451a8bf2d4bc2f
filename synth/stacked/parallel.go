package stacked

import (
	"context"
	"sync"

	"golang.org/x/sync/errgroup"

	"github.com/gpuc2/gpuc2/synth"
)

// SynthesizeParallel synthesizes the circuit into p with the challenges on
// up to workers goroutines (0: GOMAXPROCS): the top level goes into p, each
// challenge into its own p.Fork child, and the children are joined in
// challenge order. The rows, values and densities equal those of sequential
// synthesis (challenges only read the top level's variables).
//
// Every child lives until the join, which copies it into p, so peak memory
// is about twice the partition's assignment.
func (c *Circuit) SynthesizeParallel(ctx context.Context, p *synth.ProvingAssignment, workers int) error {
	w, ar, err := c.witness()
	if err != nil {
		return err
	}
	sh, err := newSynthesizer(p, &c.Params, ar, c.onStep).top(w)
	if err != nil {
		return err
	}
	hint := c.ChallengeSizes()
	children := make([]*synth.ProvingAssignment, len(w.Challenges))
	var mu sync.Mutex
	done := 0
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(workerCount(workers))
	for i := range children {
		g.Go(func() error {
			if err := gctx.Err(); err != nil {
				return err
			}
			// Fork only reads p, which stays unchanged until Join, so the
			// children can fork concurrently; forking here sizes a child
			// only when its work starts.
			children[i] = p.Fork(hint)
			if err := newSynthesizer(children[i], &c.Params, ar, nil).challenge(gctx, sh, i, &w.Challenges[i]); err != nil {
				return err
			}
			if c.Progress != nil {
				mu.Lock()
				done++
				c.Progress(done, len(children))
				mu.Unlock()
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return err
	}
	return p.Join(children...)
}
