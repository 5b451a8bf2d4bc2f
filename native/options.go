package native

import "fmt"

// MSMOption tunes one MSM. The options are knobs for experiments and
// benchmarks; a prover passes none and gets the library's choices, but
// WithoutSplit for scalars it knows to be random (the quotient's), whose
// streamed MSM's scratch then holds no split arrays
// (MSMStreamScratchBytes with the option), and WithBatchedSplit for
// streamed MSMs that run beside the same proof's h MSM.
type MSMOption func(*msmOptions)

type msmOptions struct {
	window       int
	trace        bool
	noSplit      bool
	batchedSplit bool
}

// WithWindow forces Pippenger's window to c bits, MSMWindowMin to
// MSMWindowMax, instead of the library's choice for the MSM's size (0
// restores the choice).
func WithWindow(c int) MSMOption { return func(o *msmOptions) { o.window = c } }

// WithTrace prints the MSM's per-phase times to the process's standard
// error. It synchronizes the stream at each phase: for diagnosis only.
func WithTrace() MSMOption { return func(o *msmOptions) { o.trace = true } }

// WithoutSplit runs Pippenger over every scalar instead of summing the
// scalars 0 and 1 apart (the split the library makes when most are bits).
func WithoutSplit() MSMOption { return func(o *msmOptions) { o.noSplit = true } }

// WithBatchedSplit makes a streamed MSM's 0/1 split wait on the host once,
// not at every chunk: it reads the split's counts per chunk up front, sums
// the ones into per-thread partial sums and gathers the others across
// chunks, adding them a quarter at a time. Its kernels then run back to
// back: with it the aux MSMs running beside the same proof's h MSM hide
// their copies (a 32 GiB proof under a 16 GiB limit: 24.3 -> 20.8-21.0 s,
// where beside h with the per-chunk split they had lost), but beside
// another proof's H and h MSM they take SMs those would use (24 GiB, aux
// MSMs after h: 17.8 -> 18.3 s; BENCHMARKS.md, issue 17). Other MSMs
// ignore it.
func WithBatchedSplit() MSMOption { return func(o *msmOptions) { o.batchedSplit = true } }

// configure applies opts and checks them before any native call.
func configure(opts []MSMOption) (msmOptions, error) {
	var o msmOptions
	for _, f := range opts {
		f(&o)
	}
	if o.window != 0 && (o.window < MSMWindowMin || o.window > MSMWindowMax) {
		return o, fmt.Errorf("%w: MSM window %d outside [%d, %d]", ErrInvalidArgument, o.window, MSMWindowMin, MSMWindowMax)
	}
	return o, nil
}
