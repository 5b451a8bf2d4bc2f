package groth16

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/big"
	"sync"

	bls12381 "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr/fft"

	"github.com/gpuc2/gpuc2/groth16/internal/prover"
	"github.com/gpuc2/gpuc2/internal/par"
	"github.com/gpuc2/gpuc2/msm"
	"github.com/gpuc2/gpuc2/synth"
)

// ErrUnconstrained reports an aux variable that appears in no constraint,
// which bellperson's generator refuses too (its L query must be dense).
var ErrUnconstrained = errors.New("groth16: unconstrained aux variable")

// Setup runs a Groth16 trusted setup for circuit with toxic waste drawn from
// rnd. It is for tests and local experiments: whoever knows rnd's output can
// forge proofs. The key it returns has bellperson's layout (filtered a and b
// queries, h of m−1 points), so it can be written as a .params file.
func Setup(ctx context.Context, circuit synth.Circuit, rnd io.Reader, opts ...SetupOption) (*ProvingKey, error) {
	rec := synth.NewRecorder()
	if err := circuit.Synthesize(ctx, rec); err != nil {
		return nil, fmt.Errorf("groth16: setup: synthesis: %w", err)
	}
	synth.AppendInputRows(rec, len(rec.Inputs))
	return SetupRecorded(ctx, rec, rnd, opts...)
}

// SetupOption configures Setup.
type SetupOption func(*setupConfig)

type setupConfig struct {
	engine msm.FixedBaseEngine // nil: msm.CPU{}
}

// WithSetupEngine computes the query points (the fixed-base
// multiplications, nearly all of a large setup's time) with e: on a GPU,
// cuda.Engine{Device: d} of package msm/cuda. The key is the same as the
// CPU's for the same randomness.
func WithSetupEngine(e msm.FixedBaseEngine) SetupOption {
	return func(c *setupConfig) { c.engine = e }
}

// SetupRecorded is Setup over a circuit already recorded, input rows
// appended. It reads rec but does not keep it.
func SetupRecorded(ctx context.Context, rec *synth.Recorder, rnd io.Reader, opts ...SetupOption) (*ProvingKey, error) {
	var cfg setupConfig
	for _, o := range opts {
		o(&cfg)
	}
	nIn, nAux, n := len(rec.Inputs), len(rec.Aux), rec.NumRows()
	if n < 2 {
		return nil, fmt.Errorf("groth16: setup: circuit has %d rows", n)
	}
	if n > prover.MaxDomain {
		return nil, fmt.Errorf("groth16: setup: %d rows exceed the field's 2-adicity", n)
	}
	m := synth.DomainSize(n)
	domain := fft.NewDomain(uint64(m))

	var tw toxicWaste
	if err := tw.draw(rnd, m); err != nil {
		return nil, err
	}

	// Lagrange basis at τ: Lⱼ(τ) = Z(τ)/m · ωʲ/(τ − ωʲ).
	var zt fr.Element // Z(τ) = τ^m − 1
	zt.Exp(tw.tau, big.NewInt(int64(m))).Sub(&zt, &synth.CoeffOne)
	lag := make([]fr.Element, n)
	var scale, mInv fr.Element
	mInv.SetUint64(uint64(m)).Inverse(&mInv)
	scale.Mul(&zt, &mInv)
	if err := parallelRange(ctx, n, func(lo, hi int) {
		var w, w0 fr.Element
		w0.Exp(domain.Generator, big.NewInt(int64(lo)))
		w = w0
		for j := lo; j < hi; j++ {
			lag[j].Sub(&tw.tau, &w)
			w.Mul(&w, &domain.Generator)
		}
		copy(lag[lo:hi], fr.BatchInvert(lag[lo:hi]))
		w = w0
		for j := lo; j < hi; j++ {
			lag[j].Mul(&lag[j], &w).Mul(&lag[j], &scale)
			w.Mul(&w, &domain.Generator)
		}
	}); err != nil {
		return nil, err
	}

	// Column polynomials at τ: u (A), v (B), w (C), inputs then aux.
	var u, v, wc []fr.Element
	var wg sync.WaitGroup
	for _, x := range []struct {
		out *[]fr.Element
		mat *synth.Matrix
	}{{&u, &rec.A}, {&v, &rec.B}, {&wc, &rec.C}} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			*x.out = columnsAt(rec, x.mat, lag, nIn, nAux)
		}()
	}
	wg.Wait()
	lag = nil
	if err := checkConstrained(rec, nIn, nAux); err != nil {
		return nil, err
	}
	// Only the densities are needed from here on: let the matrices go (a
	// 32 GiB circuit's recording is about 20 GiB).
	aAux, bIn, bAux := rec.AAux, rec.BInput, rec.BAux
	rec = nil
	if err := ctx.Err(); err != nil {
		return nil, err
	}

	var gammaInv, deltaInv fr.Element
	gammaInv.Inverse(&tw.gamma)
	deltaInv.Inverse(&tw.delta)
	// (β·u + α·v + w) scaled by 1/γ (inputs) or 1/δ (aux).
	combined := func(i int, k *fr.Element) fr.Element {
		var x, y fr.Element
		x.Mul(&tw.beta, &u[i])
		y.Mul(&tw.alpha, &v[i])
		x.Add(&x, &y).Add(&x, &wc[i]).Mul(&x, k)
		return x
	}

	// All G1 scalars in one batch (one table), then sliced into sections:
	// IC, l, h, a, b_g1, then α, β, δ for the VK.
	nA := nIn + aAux.Count()
	nB := bIn.Count() + bAux.Count()
	g1s := make([]fr.Element, nIn+nAux+(m-1)+nA+nB, nIn+nAux+(m-1)+nA+nB+3)
	if err := parallelRange(ctx, nIn+nAux, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			if i < nIn {
				g1s[i] = combined(i, &gammaInv)
			} else {
				g1s[i] = combined(i, &deltaInv)
			}
		}
	}); err != nil {
		return nil, err
	}
	hq := g1s[nIn+nAux : nIn+nAux+m-1] // τ^i·Z(τ)/δ
	var h0 fr.Element
	h0.Mul(&zt, &deltaInv)
	if err := parallelRange(ctx, m-1, func(lo, hi int) {
		var x fr.Element
		x.Exp(tw.tau, big.NewInt(int64(lo))).Mul(&x, &h0)
		for i := lo; i < hi; i++ {
			hq[i] = x
			x.Mul(&x, &tw.tau)
		}
	}); err != nil {
		return nil, err
	}
	aStart := nIn + nAux + m - 1
	k := aStart + copy(g1s[aStart:], u[:nIn])
	for i := 0; i < nAux; i++ {
		if aAux.Test(i) {
			g1s[k] = u[nIn+i]
			k++
		}
	}
	bStart := k
	for i := 0; i < nIn; i++ {
		if bIn.Test(i) {
			g1s[k] = v[i]
			k++
		}
	}
	for i := 0; i < nAux; i++ {
		if bAux.Test(i) {
			g1s[k] = v[nIn+i]
			k++
		}
	}
	u, v, wc = nil, nil, nil
	bScalars := g1s[bStart:]
	// The VK's G1 points ride along at the end.
	g1s = append(g1s, tw.alpha, tw.beta, tw.delta)

	_, _, g1, g2 := bls12381.Generators()
	g2s := append(append(make([]fr.Element, 0, nB+3), bScalars...), tw.beta, tw.gamma, tw.delta)
	bScalars = nil
	engine := cfg.engine
	if engine == nil {
		engine = msm.CPU{}
	}
	pts, err := engine.FixedBaseG1(ctx, &g1, g1s)
	if err != nil {
		return nil, fmt.Errorf("groth16: setup: %w", err)
	}
	g1s = nil
	pts2, err := engine.FixedBaseG2(ctx, &g2, g2s)
	if err != nil {
		return nil, fmt.Errorf("groth16: setup: %w", err)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}

	vk := &VerifyingKey{
		AlphaG1: pts[len(pts)-3], BetaG1: pts[len(pts)-2], DeltaG1: pts[len(pts)-1],
		BetaG2: pts2[nB], GammaG2: pts2[nB+1], DeltaG2: pts2[nB+2],
		IC: pts[:nIn],
	}
	l := pts[nIn : nIn+nAux]
	h := pts[nIn+nAux : aStart]
	if bStart+nB != len(pts)-3 {
		return nil, fmt.Errorf("groth16: setup: internal: %d scalars for %d+%d+3 points", len(pts), bStart, nB)
	}
	a := pts[aStart:bStart]
	b1 := pts[bStart : bStart+nB]
	return NewProvingKey(vk, h, l, a, b1, pts2[:nB])
}

type toxicWaste struct {
	tau, alpha, beta, gamma, delta fr.Element
}

// draw samples the toxic waste: non-zero values, and τ outside the domain
// (so Z(τ) ≠ 0 and the Lagrange formula holds).
func (tw *toxicWaste) draw(rnd io.Reader, m int) error {
	for _, x := range []*fr.Element{&tw.tau, &tw.alpha, &tw.beta, &tw.gamma, &tw.delta} {
		for {
			var buf [48]byte // 384 bits reduced mod r: negligible bias
			if _, err := io.ReadFull(rnd, buf[:]); err != nil {
				return fmt.Errorf("groth16: setup: reading randomness: %w", err)
			}
			x.SetBytes(buf[:])
			if x.IsZero() {
				continue
			}
			if x == &tw.tau {
				var z fr.Element
				z.Exp(*x, big.NewInt(int64(m)))
				if z.IsOne() {
					continue
				}
			}
			break
		}
	}
	return nil
}

// parallelRange runs f over [0, n) split across the cores.
func parallelRange(ctx context.Context, n int, f func(lo, hi int)) error {
	return par.Range(ctx, n, 1<<14, func(lo, hi int) error {
		f(lo, hi)
		return nil
	})
}

// columnsAt evaluates every column of mat at τ from the Lagrange values of its rows.
func columnsAt(rec *synth.Recorder, mat *synth.Matrix, lag []fr.Element, nIn, nAux int) []fr.Element {
	out := make([]fr.Element, nIn+nAux)
	var t fr.Element
	for row := 0; row < mat.NumRows(); row++ {
		for k := mat.RowStart[row]; k < mat.RowStart[row+1]; k++ {
			col := mat.Cols[k]
			i := col.Index()
			if col.IsAux() {
				i += nIn
			}
			t.Mul(&rec.Coeffs[mat.CoeffIDs[k]], &lag[row])
			out[i].Add(&out[i], &t)
		}
	}
	return out
}

// checkConstrained refuses aux variables that appear in no matrix.
func checkConstrained(rec *synth.Recorder, nIn, nAux int) error {
	seen := make([]bool, nAux)
	for _, mat := range []*synth.Matrix{&rec.A, &rec.B, &rec.C} {
		for _, col := range mat.Cols {
			if col.IsAux() {
				seen[col.Index()] = true
			}
		}
	}
	for i, ok := range seen {
		if !ok {
			return fmt.Errorf("%w: aux %d", ErrUnconstrained, i)
		}
	}
	return nil
}
