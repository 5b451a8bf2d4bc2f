package stacked

import (
	"context"
	"fmt"

	"golang.org/x/sync/errgroup"

	"github.com/gpuc2/gpuc2/internal/par"
	"github.com/gpuc2/gpuc2/synth"
	"github.com/gpuc2/gpuc2/synth/gadgets/num"
	"github.com/gpuc2/gpuc2/synth/internal/forkjoin"
)

// SynthesizeParallel synthesizes the circuit into p on up to workers
// goroutines at a time (0: GOMAXPROCS). The top level goes into p; each
// challenge into a fork of p, itself forked along the challenge's parts:
//
//	challenge: data leaf, then concurrently
//	  ├─ tree D (60 SHA-256 compressions for 32 GiB, a sequential chain)
//	  └─ the rest: parent columns and challenge bits, then concurrently
//	       ├─ layer 1 … layer L (parent bits and label: 20 compressions each)
//	     then encoding, tree R, column hash, tree C.
//
// Each part reads only variables allocated before its fork (a later part
// that needs a label gets its variable translated to the joined numbering),
// and children are joined in order, so the rows, values and densities equal
// those of sequential synthesis. A partition is about 250 parts, which keeps
// many cores busy where its 18 challenges alone would run in two waves.
//
// The children write straight into p's buffers (synth.ForkN with the exact
// part sizes), so joining copies nothing and the partition's assignment is
// held once. The challenge level is forkjoin.Run, as in synth/update; the
// levels below it are this circuit's.
func (c *Circuit) SynthesizeParallel(ctx context.Context, p *synth.ProvingAssignment, workers int) error {
	w, ar, err := c.witness()
	if err != nil {
		return err
	}
	parts, err := c.challengeParts()
	if err != nil {
		return fmt.Errorf("stacked: sizing the challenges' parts: %w", err)
	}
	sh, err := newSynthesizer(p, &c.Params, ar, c.onStep).top(w)
	if err != nil {
		return err
	}
	r := &parallelRun{c: c, ar: ar, sh: sh, w: w, slots: make(chan struct{}, workerCount(workers)),
		parts: parts}
	// no limit on challenges in flight: r.do bounds the parts running
	return forkjoin.Run(ctx, p, len(w.Challenges), parts.total(), 0, c.Progress, r.challenge)
}

// parallelRun is one SynthesizeParallel call. Goroutines wait for their
// children without holding a slot: slots bound the parts running, not the
// goroutines.
type parallelRun struct {
	c     *Circuit
	ar    []int
	sh    *shared
	w     *Partition
	parts challengeParts
	slots chan struct{}
}

// do runs f in a slot, once no urgent work is under way (par.Yield): an
// urgent synthesis waits for the parts already running only (a layer of a
// 32 GiB challenge is about 25 ms of CPU on the 2-core dev machine, tree
// D's 60-compression chain longer).
func (r *parallelRun) do(ctx context.Context, f func() error) error {
	select {
	case r.slots <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	}
	defer func() { <-r.slots }()
	if err := par.Yield(ctx); err != nil { // urgent work first
		return err
	}
	return f()
}

func (r *parallelRun) synthesizer(cs synth.ConstraintSystem) *synthesizer {
	return newSynthesizer(cs, &r.c.Params, r.ar, nil)
}

// challenge synthesizes challenge i into cs: the data leaf, then tree D and
// the rest concurrently.
func (r *parallelRun) challenge(ctx context.Context, i int, cs *synth.ProvingAssignment) error {
	ch := &r.w.Challenges[i]
	dataLeaf := r.synthesizer(cs).dataLeaf(i, ch)
	kids := cs.ForkN([]synth.Sizes{r.parts.treeD, r.parts.rest()})
	g, gctx := errgroup.WithContext(ctx)
	g.Go(par.Guard(func() error {
		return r.do(gctx, func() error { return r.synthesizer(kids[0]).treeD(r.sh, i, ch, dataLeaf) })
	}))
	g.Go(par.Guard(func() error { return r.rest(gctx, i, kids[1], dataLeaf) }))
	if err := g.Wait(); err != nil {
		return err
	}
	return cs.Join(kids...)
}

// rest synthesizes everything after tree D into cs: the columns, then the
// layers concurrently, then the tail.
func (r *parallelRun) rest(ctx context.Context, i int, cs *synth.ProvingAssignment, dataLeaf num.Num) error {
	ch := &r.w.Challenges[i]
	s := r.synthesizer(cs)
	var cols [][]num.Num
	var node num.UInt64
	err := r.do(ctx, func() (err error) {
		cols, node, err = s.columns(r.sh, i, ch)
		return err
	})
	if err != nil {
		return err
	}
	base := cs.NextAux()
	kids := cs.ForkN(r.parts.layers)
	labels := make([]num.Num, len(kids))
	g, gctx := errgroup.WithContext(ctx)
	for l := range kids {
		g.Go(par.Guard(func() error {
			return r.do(gctx, func() (err error) {
				labels[l], err = r.synthesizer(kids[l]).layer(r.sh, i, l+1, cols, &node)
				return err
			})
		}))
	}
	if err := g.Wait(); err != nil {
		return err
	}
	// Every layer numbered its variables from base; joined, layer l's
	// follow those of the layers before it.
	off := 0
	for l := range kids {
		if v := labels[l].Var; v.IsAux() && v >= base {
			labels[l].Var = v + synth.Variable(off)
		}
		off += len(kids[l].Aux)
	}
	if err := cs.Join(kids...); err != nil {
		return err
	}
	return r.do(ctx, func() error { return s.tail(r.sh, i, ch, dataLeaf, labels) })
}
