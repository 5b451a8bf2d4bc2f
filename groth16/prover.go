package groth16

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"time"

	bls12381 "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/gpuc2/gpuc2/msm"
	"github.com/gpuc2/gpuc2/synth"
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
type ProveOption func(*proveConfig)

type proveConfig struct {
	r, s    *fr.Element
	timings *Timings
	phases  PhaseFunc
}

// PhaseFunc receives each phase of a proof when it ends (for tracing), with
// key-value arguments such as "device", "bytes" or "points".
type PhaseFunc func(name string, start, end time.Time, args ...any)

// WithPhases calls f after each phase of the proof: H, msm_h, msm_l, msm_a,
// msm_b_g1, msm_b_g2.
func WithPhases(f PhaseFunc) ProveOption {
	return func(c *proveConfig) { c.phases = f }
}

// WithRandomness fixes the blinding scalars r and s instead of drawing them
// from crypto/rand: for reproducible tests and for comparing provers. Never
// use fixed values for proofs that leave the machine.
func WithRandomness(r, s fr.Element) ProveOption {
	return func(c *proveConfig) { c.r, c.s = &r, &s }
}

// configure applies opts; the timings always point somewhere.
func configure(opts []ProveOption) proveConfig {
	var cfg proveConfig
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
	return func(c *proveConfig) { c.timings = t }
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
	cfg := configure(opts)
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

// prove is bellperson's prover over a quotient and an MSM engine.
func prove(ctx context.Context, pk *ProvingKey, w *synth.ProvingAssignment, engine msm.Engine, quotient quotientFunc, opts []ProveOption) (*Proof, error) {
	cfg := configure(opts)
	t := cfg.timings
	start := time.Now()
	r, s, err := blinding(&cfg)
	if err != nil {
		return nil, err
	}

	synth.AppendInputRows(w, len(w.Inputs))
	m, err := checkShape(pk, w)
	if err != nil {
		return nil, err
	}

	// Each phase is timed, and reported to the phase hook when one is set.
	phase := func(name string, d *time.Duration, f func() error) error {
		begin := time.Now()
		err := f()
		end := time.Now()
		*d = end.Sub(begin)
		if cfg.phases != nil {
			cfg.phases(name, begin, end, "backend", "cpu")
		}
		return err
	}
	vk := pk.VerifyingKey()
	bIn := w.BInput.Count()
	var h []fr.Element
	var hAcc, lAcc, aAcc, b1Acc bls12381.G1Jac
	var b2Acc bls12381.G2Jac
	steps := []struct {
		name string
		d    *time.Duration
		f    func() (err error)
	}{
		{"H", &t.H, func() (err error) {
			h, err = quotient(ctx, w.A, w.B, w.C, m)
			return err
		}},
		{"msm_h", &t.MSMH, func() error {
			return sectionMSM(ctx, engine, &hAcc, pk.H, h[:m-1], nil, nil, nil)
		}},
		{"msm_l", &t.MSML, func() error {
			return sectionMSM(ctx, engine, &lAcc, pk.L, w.Aux, nil, nil, nil)
		}},
		// Inputs are dense in A (the input rows); aux follow the A density.
		{"msm_a", &t.MSMA, func() error {
			return sectionMSM(ctx, engine, &aAcc, pk.A, w.Inputs, nil, w.Aux, density(&w.AAux))
		}},
		{"msm_b_g1", &t.MSMBG1, func() error {
			return sectionMSM(ctx, engine, &b1Acc, pk.BG1, w.Inputs, density(&w.BInput), w.Aux, density(&w.BAux))
		}},
		{"msm_b_g2", &t.MSMBG2, func() error {
			bq, err := pk.BG2(ctx)
			if err != nil {
				return err
			}
			in, err := engine.G2(ctx, bq[:bIn], w.Inputs, density(&w.BInput))
			if err != nil {
				return err
			}
			aux, err := engine.G2(ctx, bq[bIn:], w.Aux, density(&w.BAux))
			b2Acc = *in.AddAssign(&aux)
			return err
		}},
	}
	for _, st := range steps {
		if err := phase(st.name, st.d, st.f); err != nil {
			return nil, fmt.Errorf("groth16: %s: %w", st.name, err)
		}
	}

	proof := assemble(vk, &r, &s, &hAcc, &lAcc, &aAcc, &b1Acc, &b2Acc)
	t.Total = time.Since(start)
	return proof, nil
}

// sectionMSM sets acc to the MSM of the section's points with first (selected by
// firstDensity, nil: all) followed, when rest is non-nil, by rest (selected by restDensity).
func sectionMSM(ctx context.Context, e msm.Engine, acc *bls12381.G1Jac, section func(context.Context) ([]bls12381.G1Affine, error),
	first []fr.Element, firstDensity *msm.Density, rest []fr.Element, restDensity *msm.Density) error {
	pts, err := section(ctx)
	if err != nil {
		return err
	}
	n := len(first)
	if firstDensity != nil {
		n = firstDensity.Count()
	}
	if rest == nil {
		n = len(pts)
	}
	if n > len(pts) {
		return fmt.Errorf("%w: %d points, need more than %d", ErrKeyMismatch, len(pts), n)
	}
	if *acc, err = e.G1(ctx, pts[:n], first, firstDensity); err != nil || rest == nil {
		return err
	}
	tail, err := e.G1(ctx, pts[n:], rest, restDensity)
	acc.AddAssign(&tail)
	return err
}

// blinding returns the configured r, s or fresh random ones.
func blinding(cfg *proveConfig) (r, s fr.Element, err error) {
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
	return checkCounts(pk.Counts(), pk.VerifyingKey(), w)
}

func density(d *synth.Density) *msm.Density { return &msm.Density{Words: d.Words, Len: d.Len} }

// assemble builds the proof as bellperson writes it out:
// A = α₁ + A_acc + r·δ₁; B = β₂ + B2_acc + s·δ₂;
// C = s·A_acc + r·B1_acc + r·s·δ₁ + s·α₁ + r·β₁ + H + L.
func assemble(vk *VerifyingKey, r, s *fr.Element, h, l, aAcc, b1Acc *bls12381.G1Jac, b2Acc *bls12381.G2Jac) *Proof {
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
