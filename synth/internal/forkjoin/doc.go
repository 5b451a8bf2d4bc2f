// Package forkjoin is the loop the circuits' SynthesizeParallel share:
// after the top level, each challenge of a partition goes into its own
// fork of the assignment, concurrently, and the forks are joined in order.
//
//	p: top level (the caller's, before Run)
//	  ├─ fork 0: challenge 0 ─┐
//	  ├─ fork 1: challenge 1 ─┤  concurrently, at most limit at a time
//	  └─ …                    ┘
//	then p.Join(fork 0, fork 1, …)
//
// What runs inside a challenge, and how finely it is split again, is the
// circuit's (synth/stacked splits each challenge along its layers).
//
// Usage, after the top level is in p:
//
//	err := forkjoin.Run(ctx, p, len(challenges), sizeOfOne, workers, progress,
//		func(ctx context.Context, i int, cs *synth.ProvingAssignment) error {
//			return synthesizeChallenge(cs, i)
//		})
//
// Run is safe for concurrent use on different assignments; progress is
// called from the parts' goroutines, one call at a time.
package forkjoin
