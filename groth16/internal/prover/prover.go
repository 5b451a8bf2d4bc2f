package prover

import (
	"context"
	"fmt"
	"math/big"
	"math/bits"
	"slices"
	"time"

	bls12381 "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/gpuc2/gpuc2/synth"
	"github.com/gpuc2/gpuc2/synth/pce"
)

// Settings are one proof's options, as groth16's ProveOptions set them.
type Settings struct {
	R, S     *fr.Element // WithRandomness; nil: drawn afresh
	Timings  *Timings    // WithTimings; never nil after Configure
	Phases   func(name string, start, end time.Time, args ...any)
	Starts   func(name string) // WithPhaseStart
	Matrices *pce.Matrices     // WithMatrices: the compiled constraint matrices a, b, c may be evaluated from, or nil
	Priority int               // WithPriority: a GPU serves higher first
}

// Configure applies opts (groth16.ProveOptions); the timings always point
// somewhere.
func Configure[O ~func(*Settings)](opts []O) Settings {
	var cfg Settings
	for _, o := range opts {
		o(&cfg)
	}
	if cfg.Timings == nil {
		cfg.Timings = new(Timings)
	}
	return cfg
}

// Report ends the phase name begun at begin: it calls the phase hook
// (WithPhases), if any, and returns the phase's length.
func (c *Settings) Report(name string, begin time.Time, args ...any) time.Duration {
	end := time.Now()
	if c.Phases != nil {
		c.Phases(name, begin, end, args...)
	}
	return end.Sub(begin)
}

// Traced says whether the proof's phases are reported (WithPhases): a
// device then waits for each phase's end to time it.
func (c *Settings) Traced() bool { return c.Phases != nil }

// Backend computes one proof's parts for ProveWith, which calls Prepare,
// the six sections in the order of their phases (H, msm_h, msm_l, msm_a,
// msm_b_g1, msm_b_g2), then Finish, and stops at the first error. On a
// GPU, Prepare and Finish walk the device's gate (gpulock.Job): Prepare
// reserves memory, uploads and waits for the compute lock; Finish releases
// the lock and reads back.
type Backend interface {
	Prepare(ctx context.Context) error
	Sections
	Finish() error
}

// Sections are the six computations of a proof: the quotient h, then the
// MSMs whose sums assemble combines.
type Sections interface {
	ComputeH(ctx context.Context) error
	MSMH(ctx context.Context) (bls12381.G1Jac, error)
	MSML(ctx context.Context) (bls12381.G1Jac, error)
	MSMA(ctx context.Context) (bls12381.G1Jac, error)
	MSMBG1(ctx context.Context) (bls12381.G1Jac, error)
	MSMBG2(ctx context.Context) (bls12381.G2Jac, error)
}

// Yielder is Sections that can let more urgent work use the device between
// two sections (a resident GPU proof: gpulock's Job.Yield).
type Yielder interface {
	Yield(ctx context.Context) error
}

// sums are the MSM results a proof is assembled from.
type sums struct {
	h, l, a, b1 bls12381.G1Jac
	b2          bls12381.G2Jac
}

// ProveWith is every prover's skeleton: it draws r and s, runs b (c are
// the key's section counts, for the phases' point counts; args go with
// every phase reported) and assembles the proof.
func ProveWith(ctx context.Context, cfg *Settings, vk *VerifyingKey, c Counts, b Backend, args ...any) (*Proof, error) {
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
	cfg.Timings.Total = time.Since(start)
	return proof, nil
}

// runSections runs the six sections in order, checking ctx before each;
// each is announced as it starts (WithPhaseStart), timed into cfg's
// Timings and reported as a phase when it ends (WithPhases).
func runSections(ctx context.Context, cfg *Settings, c Counts, sec Sections, args []any) (*sums, error) {
	var sum sums
	t := cfg.Timings
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
	y, _ := sec.(Yielder)
	for i, st := range steps {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if y != nil && i > 0 {
			if err := y.Yield(ctx); err != nil {
				return nil, fmt.Errorf("groth16: before %s: %w", st.name, err)
			}
		}
		if cfg.Starts != nil {
			cfg.Starts(st.name)
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

// blinding returns the configured r, s or fresh random ones.
func blinding(cfg *Settings) (r, s fr.Element, err error) {
	if cfg.R != nil {
		return *cfg.R, *cfg.S, nil
	}
	if _, err = r.SetRandom(); err != nil {
		return r, s, fmt.Errorf("groth16: drawing r: %w", err)
	}
	if _, err = s.SetRandom(); err != nil {
		return r, s, fmt.Errorf("groth16: drawing s: %w", err)
	}
	return r, s, nil
}

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

// MaxDomain is the largest evaluation domain: Fr has 2^32-th roots of unity.
const MaxDomain = 1 << 32

// CheckCounts returns the domain size m and checks that a key of section
// counts c and verifying key vk fits w, whose input rows are already
// appended; a misfit wraps ErrKeyMismatch.
func CheckCounts(c Counts, vk *VerifyingKey, w *synth.ProvingAssignment) (int, error) {
	n := w.NumRows()
	if n < 2 {
		return 0, fmt.Errorf("%w: circuit has %d rows", ErrKeyMismatch, n)
	}
	if n > MaxDomain {
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
