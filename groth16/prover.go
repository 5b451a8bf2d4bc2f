package groth16

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"math/bits"
	"slices"
	"time"

	bls12381 "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/gpuc2/gpuc2/msm"
	"github.com/gpuc2/gpuc2/synth"
	"github.com/gpuc2/gpuc2/synth/pce"
)

// ErrKeyMismatch reports a proving key whose sections do not fit the circuit.
var ErrKeyMismatch = errors.New("groth16: proving key does not match the circuit")

// Prover turns a synthesized witness into a proof. The CPU prover is always
// available; the CUDA prover implements the same interface.
type Prover interface {
	// Prove proves w, a circuit synthesized into a ProvingAssignment whose
	// input rows have NOT been appended yet (Prove appends them). w is
	// consumed: its A, B and C serve as scratch for the quotient.
	Prove(ctx context.Context, pk *ProvingKey, w *synth.ProvingAssignment, opts ...ProveOption) (*Proof, error)
}

// ProveOption configures one proof.
type ProveOption func(*Settings)

type Settings struct {
	r, s     *fr.Element
	timings  *Timings
	phases   PhaseFunc
	starts   func(name string)
	matrices *pce.Matrices // WithMatrices
}

// PhaseFunc receives each phase of a proof when it ends (for tracing), with
// key-value arguments such as "device", "bytes" or "points".
type PhaseFunc func(name string, start, end time.Time, args ...any)

// WithPhases calls f after each phase of the proof: H, msm_h, msm_l, msm_a,
// msm_b_g1, msm_b_g2; on a GPU also key_upload (the proof that uploads a
// resident key), matrices_upload and abc_eval (WithMatrices), wait_vram,
// upload, stage_c, wait_compute, aux_beside (streamed aux MSMs run beside
// the h MSM, inside msm_h; the sections they sum then take no time) and
// readback.
func WithPhases(f PhaseFunc) ProveOption {
	return func(c *Settings) { c.phases = f }
}

// WithPhaseStart calls f as each of the proof's six sections begins — H,
// msm_h, msm_l, msm_a, msm_b_g1, msm_b_g2, in that order, once each — on
// the proving goroutine, so f must return at once. It is for progress
// displays: WithPhases reports a phase only when it ends. The GPU's own
// steps (key_upload, wait_vram, upload, wait_compute, readback) are not
// reported here.
func WithPhaseStart(f func(name string)) ProveOption {
	return func(c *Settings) { c.starts = f }
}

// report ends the phase name begun at begin: it calls the phase hook, if
// any, and returns the phase's length.
func (c *Settings) Report(name string, begin time.Time, args ...any) time.Duration {
	end := time.Now()
	if c.phases != nil {
		c.phases(name, begin, end, args...)
	}
	return end.Sub(begin)
}

// WithRandomness fixes the blinding scalars r and s instead of drawing them
// from crypto/rand: for reproducible tests and for comparing provers. Never
// use fixed values for proofs that leave the machine.
func WithRandomness(r, s fr.Element) ProveOption {
	return func(c *Settings) { c.r, c.s = &r, &s }
}

// configure applies opts; the timings always point somewhere.
func Configure(opts []ProveOption) Settings {
	var cfg Settings
	for _, o := range opts {
		o(&cfg)
	}
	if cfg.timings == nil {
		cfg.timings = new(Timings)
	}
	return cfg
}

// WithTimings records how long each phase of the proof took into t.
func WithTimings(t *Timings) ProveOption {
	return func(c *Settings) { c.timings = t }
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
	cfg := Configure(opts)
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
	cfg.timings.Synthesis = time.Since(start)
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
	cfg := Configure(opts)
	synth.AppendInputRows(w, len(w.Inputs))
	w, err := ProofAssignment(ctx, w, cfg.matrices, ABCHost)
	if err != nil {
		return nil, err
	}
	hs, err := newHostSections(pk, w, engine, quotient)
	if err != nil {
		return nil, err
	}
	return ProveWith(ctx, &cfg, pk.VerifyingKey(), pk.Counts(), onHost{hs}, "backend", "cpu")
}

// A backend computes one proof's parts for proveWith, which calls prepare,
// the six sections in the order of their phases (H, msm_h, msm_l, msm_a,
// msm_b_g1, msm_b_g2), then finish, and stops at the first error. On a GPU,
// prepare and finish walk the device's gate (gpulock.Job): prepare reserves
// memory, uploads and waits for the compute lock; finish releases the lock
// and reads back.
type Backend interface {
	Prepare(ctx context.Context) error
	Sections
	Finish() error
}

// sections are the six computations of a proof: the quotient h, then the
// MSMs whose sums assemble combines.
type Sections interface {
	ComputeH(ctx context.Context) error
	MSMH(ctx context.Context) (bls12381.G1Jac, error)
	MSML(ctx context.Context) (bls12381.G1Jac, error)
	MSMA(ctx context.Context) (bls12381.G1Jac, error)
	MSMBG1(ctx context.Context) (bls12381.G1Jac, error)
	MSMBG2(ctx context.Context) (bls12381.G2Jac, error)
}

// sums are the MSM results a proof is assembled from.
type sums struct {
	h, l, a, b1 bls12381.G1Jac
	b2          bls12381.G2Jac
}

// proveWith is every prover's skeleton: it draws r and s, runs b (c are
// the key's section counts, for the phases' point counts; args go with
// every phase reported) and assembles the proof.
func ProveWith(ctx context.Context, cfg *Settings, vk *VerifyingKey, c SectionCounts, b Backend, args ...any) (*Proof, error) {
	start := time.Now()
	r, s, err := blinding(cfg)
	if err != nil {
		return nil, err
	}
	if err := b.Prepare(ctx); err != nil {
		return nil, err
	}
	sum, err := runSections(ctx, cfg, c, b, args)
	if err != nil {
		return nil, err
	}
	if err := b.Finish(); err != nil {
		return nil, err
	}
	proof := assemble(vk, &r, &s, sum)
	cfg.timings.Total = time.Since(start)
	return proof, nil
}

// runSections runs the six sections in order, checking ctx before each;
// each is announced as it starts (WithPhaseStart), timed into cfg's
// Timings and reported as a phase when it ends (WithPhases).
func runSections(ctx context.Context, cfg *Settings, c SectionCounts, sec Sections, args []any) (*sums, error) {
	var sum sums
	t := cfg.timings
	steps := []struct {
		name   string
		points int
		d      *time.Duration
		f      func() error
	}{
		{"H", c.H + 1, &t.H, func() error { return sec.ComputeH(ctx) }},
		{"msm_h", c.H, &t.MSMH, func() (err error) { sum.h, err = sec.MSMH(ctx); return err }},
		{"msm_l", c.L, &t.MSML, func() (err error) { sum.l, err = sec.MSML(ctx); return err }},
		{"msm_a", c.A, &t.MSMA, func() (err error) { sum.a, err = sec.MSMA(ctx); return err }},
		{"msm_b_g1", c.B, &t.MSMBG1, func() (err error) { sum.b1, err = sec.MSMBG1(ctx); return err }},
		{"msm_b_g2", c.B, &t.MSMBG2, func() (err error) { sum.b2, err = sec.MSMBG2(ctx); return err }},
	}
	for _, st := range steps {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if cfg.starts != nil {
			cfg.starts(st.name)
		}
		begin := time.Now()
		err := st.f()
		*st.d = cfg.Report(st.name, begin, append(slices.Clip(args), "points", st.points)...)
		if err != nil {
			return nil, fmt.Errorf("groth16: %s: %w", st.name, err)
		}
	}
	return &sum, nil
}

// onHost is a backend on the host: nothing to reserve, upload or read back.
type onHost struct{ Sections }

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

// blinding returns the configured r, s or fresh random ones.
func blinding(cfg *Settings) (r, s fr.Element, err error) {
	if cfg.r != nil {
		return *cfg.r, *cfg.s, nil
	}
	if _, err = r.SetRandom(); err != nil {
		return r, s, fmt.Errorf("groth16: drawing r: %w", err)
	}
	if _, err = s.SetRandom(); err != nil {
		return r, s, fmt.Errorf("groth16: drawing s: %w", err)
	}
	return r, s, nil
}

// checkShape returns the domain size m and checks that pk fits w, whose
// input rows are already appended.
func checkShape(pk *ProvingKey, w *synth.ProvingAssignment) (int, error) {
	return CheckCounts(pk.Counts(), pk.VerifyingKey(), w)
}

func density(d *synth.Density) *msm.Density { return &msm.Density{Words: d.Words, Len: d.Len} }

// assemble builds the proof as bellperson writes it out:
// A = α₁ + A_acc + r·δ₁; B = β₂ + B2_acc + s·δ₂;
// C = s·A_acc + r·B1_acc + r·s·δ₁ + s·α₁ + r·β₁ + H + L.
func assemble(vk *VerifyingKey, r, s *fr.Element, sum *sums) *Proof {
	h, l, aAcc, b1Acc, b2Acc := &sum.h, &sum.l, &sum.a, &sum.b1, &sum.b2
	rb, sb := r.BigInt(new(big.Int)), s.BigInt(new(big.Int))
	var rs fr.Element
	rs.Mul(r, s)

	var a, t bls12381.G1Jac
	a.FromAffine(&vk.AlphaG1)
	a.AddAssign(aAcc)
	t.FromAffine(&vk.DeltaG1)
	t.ScalarMultiplication(&t, rb)
	a.AddAssign(&t)

	var b, t2 bls12381.G2Jac
	b.FromAffine(&vk.BetaG2)
	b.AddAssign(b2Acc)
	t2.FromAffine(&vk.DeltaG2)
	t2.ScalarMultiplication(&t2, sb)
	b.AddAssign(&t2)

	var c bls12381.G1Jac
	c.ScalarMultiplication(aAcc, sb)
	t.ScalarMultiplication(b1Acc, rb)
	c.AddAssign(&t)
	t.FromAffine(&vk.DeltaG1)
	t.ScalarMultiplication(&t, rs.BigInt(new(big.Int)))
	c.AddAssign(&t)
	t.FromAffine(&vk.AlphaG1)
	t.ScalarMultiplication(&t, sb)
	c.AddAssign(&t)
	t.FromAffine(&vk.BetaG1)
	t.ScalarMultiplication(&t, rb)
	c.AddAssign(&t)
	c.AddAssign(h)
	c.AddAssign(l)

	var proof Proof
	proof.A.FromJacobian(&a)
	proof.B.FromJacobian(&b)
	proof.C.FromJacobian(&c)
	return &proof
}

// maxDomain is the largest evaluation domain: Fr has 2^32-th roots of unity.
const maxDomain = 1 << 32

// checkCounts is checkShape against bare section counts.
func CheckCounts(c SectionCounts, vk *VerifyingKey, w *synth.ProvingAssignment) (int, error) {
	n := w.NumRows()
	if n < 2 {
		return 0, fmt.Errorf("%w: circuit has %d rows", ErrKeyMismatch, n)
	}
	if n > maxDomain {
		return 0, fmt.Errorf("%w: %d rows exceed the field's 2-adicity", ErrKeyMismatch, n)
	}
	m := synth.DomainSize(n)
	nIn := len(w.Inputs)
	switch {
	case len(vk.IC) != nIn:
		return 0, fmt.Errorf("%w: circuit has %d inputs (ONE included), key %d", ErrKeyMismatch, nIn, len(vk.IC))
	case c.H != m-1:
		return 0, fmt.Errorf("%w: domain 2^%d needs %d h points, key has %d", ErrKeyMismatch, bits.Len(uint(m))-1, m-1, c.H)
	case c.L != len(w.Aux):
		return 0, fmt.Errorf("%w: circuit has %d aux variables, key has %d l points", ErrKeyMismatch, len(w.Aux), c.L)
	case c.A != nIn+w.AAux.Count():
		return 0, fmt.Errorf("%w: circuit needs %d a points, key has %d", ErrKeyMismatch, nIn+w.AAux.Count(), c.A)
	case c.B != w.BInput.Count()+w.BAux.Count():
		return 0, fmt.Errorf("%w: circuit needs %d b points, key has %d", ErrKeyMismatch, w.BInput.Count()+w.BAux.Count(), c.B)
	}
	return m, nil
}

// Matrices are the compiled constraint matrices a proof's a, b, c may be
// evaluated from (WithMatrices), or nil.
func (c *Settings) Matrices() *pce.Matrices { return c.matrices }

// Traced says whether the proof's phases are reported (WithPhases): a
// device then waits for each phase's end to time it.
func (c *Settings) Traced() bool { return c.phases != nil }
