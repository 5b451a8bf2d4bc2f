package update

import (
	"context"
	"runtime"
	"sync"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/gpuc2/gpuc2/synth"
	"github.com/gpuc2/gpuc2/synth/gadgets/boolean"
	"github.com/gpuc2/gpuc2/synth/gadgets/num"
	"github.com/gpuc2/gpuc2/synth/internal/forkjoin"
)

// SynthesizeParallel synthesizes the circuit into p with its challenges on
// up to workers goroutines (0: GOMAXPROCS). The top level (public inputs,
// comm_r checks, the apex tree and the challenge bits, about 6 M rows at
// 32 GiB) goes into p first; then each challenge (about 0.87 M rows) into
// its own fork of p, which reads only the top level's variables. The forks
// have the exact size of a challenge (challengeSize), so they write
// straight into p's buffers, and joined in order they give the rows,
// values and densities of sequential synthesis (forkjoin.Run, as in
// synth/stacked, which also splits each challenge along its layers).
func (c *Circuit) SynthesizeParallel(ctx context.Context, p *synth.ProvingAssignment, workers int) error {
	w, kh, err := c.witness()
	if err != nil {
		return err
	}
	size, err := challengeSize(c.Params)
	if err != nil {
		return err
	}
	sh, err := newSynthesizer(p, &c.Params).top(w, kh)
	if err != nil {
		return err
	}
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	return forkjoin.Run(ctx, p, len(w.Challenges), size, workers, c.Progress,
		func(_ context.Context, i int, cs *synth.ProvingAssignment) error {
			return newSynthesizer(cs, &c.Params).challenge(sh, i, &w.Challenges[i])
		})
}

// challengeSizes caches challengeSize per Params.
var challengeSizes sync.Map

// challengeSize is the variables and rows one challenge adds (every
// challenge has the same shape), measured by synthesizing a blank challenge
// against stand-ins of the top level's variables.
func challengeSize(p Params) (synth.Sizes, error) {
	if v, ok := challengeSizes.Load(p); ok {
		return v.(synth.Sizes), nil
	}
	ch := synth.NewChecker()
	s := newSynthesizer(ch, &p)
	g := s.b
	var zero fr.Element
	sh := &shared{
		partitionBits: allocBits(g, zero, p.PartitionBits()),
		hSelectBits:   allocBits(g, zero, HCount),
		phi:           num.Alloc(g, zero),
		rootROld:      num.Alloc(g, zero),
		rootRNew:      num.Alloc(g, zero),
		apexLeaves:    allocNums(g, make([]fr.Element, p.ApexLeaves)),
		challengeBits: [][]boolean.Boolean{allocBits(g, zero, p.RandomBits())},
	}
	before := ch.Stats()
	if err := s.challenge(sh, 0, &blank(&p).Challenges[0]); err != nil {
		return synth.Sizes{}, err
	}
	after := ch.Stats()
	size := synth.Sizes{Aux: after.Aux - before.Aux, Rows: after.Constraints - before.Constraints}
	challengeSizes.Store(p, size)
	return size, nil
}

// circuitSizes caches Sizes per Params.
var circuitSizes sync.Map

// Sizes is CircuitSizes as the hint groth16.Prove looks for: zero (no
// hint) if the sizes cannot be measured.
func (c *Circuit) Sizes() synth.Sizes {
	s, _ := c.CircuitSizes()
	return s
}

// CircuitSizes returns the exact counts of p's partition circuit (inputs
// with ONE, aux, rows without the input rows), for sizing a system before
// synthesis. The first call per Params synthesizes the blank top level
// (about 6 M rows at 32 GiB, seconds) and one challenge; later calls are
// free.
func (p Params) CircuitSizes() (synth.Sizes, error) {
	if v, ok := circuitSizes.Load(p); ok {
		return v.(synth.Sizes), nil
	}
	one, err := challengeSize(p)
	if err != nil {
		return synth.Sizes{}, err
	}
	ch := synth.NewChecker()
	if _, err := newSynthesizer(ch, &p).top(blank(&p), fr.Element{}); err != nil {
		return synth.Sizes{}, err
	}
	top := ch.Stats()
	size := synth.Sizes{Inputs: top.Inputs, Aux: top.Aux + p.Challenges*one.Aux, Rows: top.Constraints + p.Challenges*one.Rows}
	circuitSizes.Store(p, size)
	return size, nil
}
