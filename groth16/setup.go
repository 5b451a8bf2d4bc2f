package groth16

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/big"
	"math/bits"

	bls12381 "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr/fft"

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
func Setup(ctx context.Context, circuit synth.Circuit, rnd io.Reader) (*ProvingKey, error) {
	rec := synth.NewRecorder()
	if err := circuit.Synthesize(ctx, rec); err != nil {
		return nil, fmt.Errorf("groth16: setup: synthesis: %w", err)
	}
	synth.AppendInputRows(rec, len(rec.Inputs))
	return SetupRecorded(ctx, rec, rnd)
}

// SetupRecorded is Setup over a circuit already recorded, input rows appended.
func SetupRecorded(ctx context.Context, rec *synth.Recorder, rnd io.Reader) (*ProvingKey, error) {
	nIn, nAux, n := len(rec.Inputs), len(rec.Aux), rec.NumRows()
	if n < 2 {
		return nil, fmt.Errorf("groth16: setup: circuit has %d rows", n)
	}
	if n > maxDomain {
		return nil, fmt.Errorf("groth16: setup: %d rows exceed the field's 2-adicity", n)
	}
	m := 1 << bits.Len(uint(n-1))
	domain := fft.NewDomain(uint64(m))

	var tw toxicWaste
	if err := tw.draw(rnd, m); err != nil {
		return nil, err
	}

	// Lagrange basis at τ: Lⱼ(τ) = Z(τ)/m · ωʲ/(τ − ωʲ).
	var zt fr.Element // Z(τ) = τ^m − 1
	zt.Exp(tw.tau, big.NewInt(int64(m))).Sub(&zt, &synth.CoeffOne)
	lag := make([]fr.Element, n)
	var w fr.Element
	w.SetOne()
	for j := range lag {
		lag[j].Sub(&tw.tau, &w)
		w.Mul(&w, &domain.Generator)
	}
	lag = fr.BatchInvert(lag)
	var scale, mInv fr.Element
	mInv.SetUint64(uint64(m)).Inverse(&mInv)
	scale.Mul(&zt, &mInv)
	w.SetOne()
	for j := range lag {
		lag[j].Mul(&lag[j], &w).Mul(&lag[j], &scale)
		w.Mul(&w, &domain.Generator)
	}

	// Column polynomials at τ: u (A), v (B), w (C), inputs then aux.
	u := columnsAt(rec, &rec.A, lag, nIn, nAux)
	v := columnsAt(rec, &rec.B, lag, nIn, nAux)
	wc := columnsAt(rec, &rec.C, lag, nIn, nAux)
	if err := checkConstrained(rec, nIn, nAux); err != nil {
		return nil, err
	}
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

	// All G1 scalars in one batch (one table), then sliced into sections.
	var g1s []fr.Element
	for i := 0; i < nIn; i++ {
		g1s = append(g1s, combined(i, &gammaInv))
	}
	for i := 0; i < nAux; i++ {
		g1s = append(g1s, combined(nIn+i, &deltaInv))
	}
	var hs fr.Element // τ^i·Z(τ)/δ
	hs.Mul(&zt, &deltaInv)
	for i := 0; i < m-1; i++ {
		g1s = append(g1s, hs)
		hs.Mul(&hs, &tw.tau)
	}
	aStart := len(g1s)
	g1s = append(g1s, u[:nIn]...)
	for i := 0; i < nAux; i++ {
		if rec.AAux.Test(i) {
			g1s = append(g1s, u[nIn+i])
		}
	}
	bStart := len(g1s)
	for i := 0; i < nIn; i++ {
		if rec.BInput.Test(i) {
			g1s = append(g1s, v[i])
		}
	}
	for i := 0; i < nAux; i++ {
		if rec.BAux.Test(i) {
			g1s = append(g1s, v[nIn+i])
		}
	}
	bScalars := g1s[bStart:]
	// The VK's G1 points ride along at the end.
	g1s = append(g1s, tw.alpha, tw.beta, tw.delta)

	_, _, g1, g2 := bls12381.Generators()
	pts, err := msm.FixedBaseG1(ctx, &g1, g1s)
	if err != nil {
		return nil, err
	}
	g2s := append(append([]fr.Element{}, bScalars...), tw.beta, tw.gamma, tw.delta)
	pts2, err := msm.FixedBaseG2(ctx, &g2, g2s)
	if err != nil {
		return nil, err
	}

	nB := len(bScalars)
	vk := &VerifyingKey{
		AlphaG1: pts[len(pts)-3], BetaG1: pts[len(pts)-2], DeltaG1: pts[len(pts)-1],
		BetaG2: pts2[nB], GammaG2: pts2[nB+1], DeltaG2: pts2[nB+2],
		IC: pts[:nIn],
	}
	l := pts[nIn : nIn+nAux]
	h := pts[nIn+nAux : aStart]
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
