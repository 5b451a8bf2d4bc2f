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
// The children write straight into p's buffers (synth.ForkN with the exact
// per-challenge sizes), so the join copies nothing and the partition's
// assignment is held once.
func (c *Circuit) SynthesizeParallel(ctx context.Context, p *synth.ProvingAssignment, workers int) error {
	w, ar, err := c.witness()
	if err != nil {
		return err
	}
	sh, err := newSynthesizer(p, &c.Params, ar, c.onStep).top(w)
	if err != nil {
		return err
	}
	sizes := make([]synth.Sizes, len(w.Challenges))
	for i := range sizes {
		sizes[i] = c.ChallengeSizes()
	}
	children := p.ForkN(sizes)
	var mu sync.Mutex
	done := 0
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(workerCount(workers))
	for i := range children {
		g.Go(func() error {
			if err := gctx.Err(); err != nil {
				return err
			}
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
