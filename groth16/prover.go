package groth16

import (
	"context"
	"fmt"
	"time"

	bls12381 "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/gpuc2/gpuc2/groth16/internal/prover"
	"github.com/gpuc2/gpuc2/msm"
	"github.com/gpuc2/gpuc2/synth"
)

// ErrKeyMismatch reports a proving key whose sections do not fit the circuit.
var ErrKeyMismatch = prover.ErrKeyMismatch

// Prover turns a synthesized witness into a proof. The CPU prover is always
// available; the CUDA prover implements the same interface.
type Prover interface {
	// Prove proves w, a circuit synthesized into a ProvingAssignment whose
	// input rows have NOT been appended yet (Prove appends them). w is
	// consumed: its A, B and C serve as scratch for the quotient.
	Prove(ctx context.Context, pk *ProvingKey, w *synth.ProvingAssignment, opts ...ProveOption) (*Proof, error)
}

// ProveOption configures one proof.
type ProveOption func(*settings)

// settings are one proof's options; groth16/gpu reads them too, through
// prover.Configure.
type settings = prover.Settings

// PhaseFunc receives each phase of a proof when it ends (for tracing), with
// key-value arguments such as "device", "bytes" or "points".
type PhaseFunc func(name string, start, end time.Time, args ...any)

// WithPhases calls f after each phase of the proof: H, msm_h, msm_l, msm_a,
// msm_b_g1, msm_b_g2; on a GPU also key_upload (the proof that uploads a
// resident key), matrices_upload and abc_eval (WithMatrices), wait_vram,
// upload, stage_c, wait_compute, aux_beside (streamed aux MSMs run beside
// the h MSM, inside msm_h; the sections they sum then take no time),
// yield (a resident proof's wait, between two sections, while a proof of a
// higher priority computes: WithPriority) and readback.
func WithPhases(f PhaseFunc) ProveOption {
	return func(c *settings) { c.Phases = f }
}

// WithPhaseStart calls f as each of the proof's six sections begins — H,
// msm_h, msm_l, msm_a, msm_b_g1, msm_b_g2, in that order, once each — on
// the proving goroutine, so f must return at once. It is for progress
// displays: WithPhases reports a phase only when it ends. The GPU's own
// steps (key_upload, wait_vram, upload, wait_compute, readback) are not
// reported here.
func WithPhaseStart(f func(name string)) ProveOption {
	return func(c *settings) { c.Starts = f }
}

// WithRandomness fixes the blinding scalars r and s instead of drawing them
// from crypto/rand: for reproducible tests and for comparing provers. Never
// use fixed values for proofs that leave the machine.
func WithRandomness(r, s fr.Element) ProveOption {
	return func(c *settings) { c.R, c.S = &r, &s }
}

// WithPriority orders the proof's waits on a GPU: for device memory and
// for its compute lock, a proof of a higher priority goes before the
// waiting proofs of a lower one (0, the default; gpulock's
// NewPriorityJob). The CPU prover ignores it.
func WithPriority(priority int) ProveOption {
	return func(c *settings) { c.Priority = priority }
}

// WithTimings records how long each phase of the proof took into t.
func WithTimings(t *Timings) ProveOption {
	return func(c *settings) { c.Timings = (*prover.Timings)(t) }
}

// Timings breaks a proof's time down by phase.
type Timings struct {
	Synthesis time.Duration // filled by Prove (the helper), not by Prover.Prove
	H         time.Duration // FFTs of the quotient polynomial
	MSMH      time.Duration
	MSML      time.Duration
	MSMA      time.Duration
	MSMBG1    time.Duration
	MSMBG2    time.Duration
	Total     time.Duration
}

// Add adds u's durations to t (to sum the phases of many proofs).
func (t *Timings) Add(u Timings) {
	t.Synthesis += u.Synthesis
	t.H += u.H
	t.MSMH += u.MSMH
	t.MSML += u.MSML
	t.MSMA += u.MSMA
	t.MSMBG1 += u.MSMBG1
	t.MSMBG2 += u.MSMBG2
	t.Total += u.Total
}

// Prove synthesizes circuit and proves it with p. A circuit with a
// Sizes() synth.Sizes method gets its buffers sized up front.
func Prove(ctx context.Context, p Prover, pk *ProvingKey, circuit synth.Circuit, opts ...ProveOption) (*Proof, error) {
	cfg := prover.Configure(opts)
	start := time.Now()
	var hint synth.Sizes
	if sz, ok := circuit.(interface{ Sizes() synth.Sizes }); ok {
		// Pre-size the buffers: no regrowth of gigabyte slices, and room for
		// the input rows and the padding to the domain, so the quotient
		// works in place instead of copying a, b and c.
		hint = sz.Sizes()
		hint.Rows = hint.Domain()
	}
	w := synth.NewProvingAssignment(hint)
	if err := circuit.Synthesize(ctx, w); err != nil {
		return nil, fmt.Errorf("groth16: synthesis: %w", err)
	}
	cfg.Timings.Synthesis = time.Since(start)
	return p.Prove(ctx, pk, w, opts...)
}

// CPUProver follows bellperson's prover on the CPU with gnark-crypto's FFT
// and multi-scalar multiplication.
type CPUProver struct {
	MSM msm.Engine // nil: msm.CPU{}
}

var _ Prover = (*CPUProver)(nil)

// Prove implements Prover.
func (p *CPUProver) Prove(ctx context.Context, pk *ProvingKey, w *synth.ProvingAssignment, opts ...ProveOption) (*Proof, error) {
	engine := p.MSM
	if engine == nil {
		engine = msm.CPU{}
	}
	return prove(ctx, pk, w, engine, quotient, opts)
}

// quotientFunc computes the m coefficients of h from a, b, c (n ≤ m rows each).
type quotientFunc func(ctx context.Context, a, b, c []fr.Element, m int) ([]fr.Element, error)

// prove is bellperson's prover on the host over a quotient and an MSM engine.
func prove(ctx context.Context, pk *ProvingKey, w *synth.ProvingAssignment, engine msm.Engine, quotient quotientFunc, opts []ProveOption) (*Proof, error) {
	cfg := prover.Configure(opts)
	synth.AppendInputRows(w, len(w.Inputs))
	w, err := prover.ProofAssignment(ctx, w, cfg.Matrices, prover.ABCHost)
	if err != nil {
		return nil, err
	}
	hs, err := newHostSections(pk, w, engine, quotient)
	if err != nil {
		return nil, err
	}
	proof, err := prover.ProveWith(ctx, &cfg, (*prover.VerifyingKey)(pk.VerifyingKey()), prover.Counts(pk.Counts()), onHost{hs}, "backend", "cpu")
	return (*Proof)(proof), err
}

// onHost is a backend on the host: nothing to reserve, upload or read back.
type onHost struct{ prover.Sections }

func (onHost) Prepare(context.Context) error { return nil }
func (onHost) Finish() error                 { return nil }

// hostSections computes the sections from the key's points in host memory:
// the quotient with quotient, the MSMs with engine (the CPU prover's, and
// the streaming CUDA path's).
type hostSections struct {
	pk       *ProvingKey
	w        *synth.ProvingAssignment
	engine   msm.Engine
	quotient quotientFunc
	m        int          // the domain
	h        []fr.Element // the quotient's coefficients, once computed
}

// newHostSections checks that pk fits w, its input rows appended.
func newHostSections(pk *ProvingKey, w *synth.ProvingAssignment, engine msm.Engine, quotient quotientFunc) (*hostSections, error) {
	m, err := checkShape(pk, w)
	if err != nil {
		return nil, err
	}
	return &hostSections{pk: pk, w: w, engine: engine, quotient: quotient, m: m}, nil
}

func (hs *hostSections) ComputeH(ctx context.Context) (err error) {
	w := hs.w
	hs.h, err = hs.quotient(ctx, w.A, w.B, w.C, hs.m)
	return err
}

func (hs *hostSections) MSMH(ctx context.Context) (bls12381.G1Jac, error) {
	return sectionMSM(ctx, hs.engine, hs.pk.H, hs.h[:hs.m-1], nil, nil, nil)
}

func (hs *hostSections) MSML(ctx context.Context) (bls12381.G1Jac, error) {
	return sectionMSM(ctx, hs.engine, hs.pk.L, hs.w.Aux, nil, nil, nil)
}

// Inputs are dense in A (the input rows); aux follow the A density.
func (hs *hostSections) MSMA(ctx context.Context) (bls12381.G1Jac, error) {
	w := hs.w
	return sectionMSM(ctx, hs.engine, hs.pk.A, w.Inputs, nil, w.Aux, density(&w.AAux))
}

func (hs *hostSections) MSMBG1(ctx context.Context) (bls12381.G1Jac, error) {
	w := hs.w
	return sectionMSM(ctx, hs.engine, hs.pk.BG1, w.Inputs, density(&w.BInput), w.Aux, density(&w.BAux))
}

func (hs *hostSections) MSMBG2(ctx context.Context) (bls12381.G2Jac, error) {
	w := hs.w
	bq, err := hs.pk.BG2(ctx)
	if err != nil {
		return bls12381.G2Jac{}, err
	}
	bIn := w.BInput.Count()
	in, err := hs.engine.G2(ctx, bq[:bIn], w.Inputs, density(&w.BInput))
	if err != nil {
		return in, err
	}
	aux, err := hs.engine.G2(ctx, bq[bIn:], w.Aux, density(&w.BAux))
	return *in.AddAssign(&aux), err
}

// sectionMSM is the MSM of the section's points with first (selected by
// firstDensity, nil: all) followed, when rest is non-nil, by rest (selected
// by restDensity).
func sectionMSM(ctx context.Context, e msm.Engine, section func(context.Context) ([]bls12381.G1Affine, error),
	first []fr.Element, firstDensity *msm.Density, rest []fr.Element, restDensity *msm.Density) (bls12381.G1Jac, error) {
	var acc bls12381.G1Jac
	pts, err := section(ctx)
	if err != nil {
		return acc, err
	}
	n := len(first)
	if firstDensity != nil {
		n = firstDensity.Count()
	}
	if rest == nil {
		n = len(pts)
	}
	if n > len(pts) {
		return acc, fmt.Errorf("%w: %d points, need more than %d", ErrKeyMismatch, len(pts), n)
	}
	if acc, err = e.G1(ctx, pts[:n], first, firstDensity); err != nil || rest == nil {
		return acc, err
	}
	tail, err := e.G1(ctx, pts[n:], rest, restDensity)
	acc.AddAssign(&tail)
	return acc, err
}

// checkShape returns the domain size m and checks that pk fits w, whose
// input rows are already appended.
func checkShape(pk *ProvingKey, w *synth.ProvingAssignment) (int, error) {
	return prover.CheckCounts(prover.Counts(pk.Counts()), (*prover.VerifyingKey)(pk.VerifyingKey()), w)
}

func density(d *synth.Density) *msm.Density { return &msm.Density{Words: d.Words, Len: d.Len} }
