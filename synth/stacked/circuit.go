package stacked

import (
	"context"

	"github.com/gpuc2/gpuc2/synth"
)

// Circuit is rust-fil-proofs v19's StackedCircuit for one partition
// (storage-proofs-porep src/stacked/circuit/proof.rs and params.rs).
type Circuit struct {
	Params
	// Witness is the partition; nil synthesizes the blank circuit (all
	// values zero), which has the same shape.
	Witness *Partition
	// Workers bounds how many parts of challenges are synthesized
	// concurrently when the system is a *synth.ProvingAssignment (see
	// SynthesizeParallel): 0 means GOMAXPROCS, 1 sequential. Other systems
	// are always filled sequentially.
	Workers int
	// Progress, if set, is called after each challenge with the number of
	// challenges done; calls are serialized.
	Progress func(done, total int)

	onStep func(step string) // test hook: called before each step
}

var _ synth.Circuit = (*Circuit)(nil)

// Synthesize implements synth.Circuit. Into a *synth.ProvingAssignment it
// runs SynthesizeParallel unless Workers is 1; the result is the same.
func (c *Circuit) Synthesize(ctx context.Context, cs synth.ConstraintSystem) error {
	if p, ok := cs.(*synth.ProvingAssignment); ok && c.Workers != 1 {
		return c.SynthesizeParallel(ctx, p, c.Workers)
	}
	w, ar, err := c.witness()
	if err != nil {
		return err
	}
	s := newSynthesizer(cs, &c.Params, ar, c.onStep)
	sh, err := s.top(w)
	if err != nil {
		return err
	}
	for i := range w.Challenges {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := s.challenge(ctx, sh, i, &w.Challenges[i]); err != nil {
			return err
		}
		if c.Progress != nil {
			c.Progress(i+1, len(w.Challenges))
		}
	}
	return nil
}
