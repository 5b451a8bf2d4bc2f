package aggregate

import (
	"context"
	"crypto/rand"
	"fmt"
	"io"
	"math/big"
	"slices"

	bls12381 "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/gpuc2/gpuc2/groth16"
	"github.com/gpuc2/gpuc2/internal/par"
)

// Verify checks an aggregate against the Groth16 verifying key, each
// proof's public inputs (publicInputs[i] are proof i's inputs without ONE;
// len == proof count), and the same transcriptInclude. false, nil: the
// aggregate is well-formed but does not verify; an error: malformed input
// (counts that disagree, SRS too small, ...).
//
// It is bellperson's verify_aggregate_proof. As there, the proof count
// (nproofs) must equal len(publicInputs) and every proof has len(vk.IC)−1
// inputs; unlike there, proof is first checked as Decode checks bytes
// (bellperson's proofs come from bytes), so an in-memory Proof cannot
// skip the subgroup checks. srs may be specialized to more proofs than the
// aggregate holds: Verify uses nproofs where bellperson uses the SRS's n,
// which is what bellperson does with an SRS specialized to nproofs, as
// filecoin-proofs specializes it (with another n, bellperson returns
// false). The random coefficients that merge the pairing checks come from
// crypto/rand.
func Verify(ctx context.Context, srs *VerifierSRS, vk *groth16.VerifyingKey, publicInputs [][]fr.Element, proof *Proof, transcriptInclude []byte, v Version) (bool, error) {
	return verify(ctx, srs, vk, publicInputs, proof, transcriptInclude, v, rand.Reader)
}

// verify is Verify with the pairing checks' randomness from rng.
func verify(ctx context.Context, srs *VerifierSRS, vk *groth16.VerifyingKey, publicInputs [][]fr.Element, proof *Proof,
	transcriptInclude []byte, v Version, rng io.Reader) (bool, error) {
	if err := v.check(); err != nil {
		return false, err
	}
	switch {
	case srs == nil:
		return false, srsError("missing (nil verifier SRS)")
	case vk == nil:
		return false, fmt.Errorf("aggregate: nil verifying key: %w", ErrInput)
	case proof == nil:
		return false, fmt.Errorf("aggregate: nil aggregate proof: %w", ErrFormat)
	}
	// bellperson's parsing_check, and the point and subgroup checks its
	// reader makes.
	if _, err := proof.MarshalBinary(); err != nil {
		return false, err
	}
	n := int(proof.TMIPP.GIPA.NProofs)
	if srs.N < n {
		return false, srsError("specialized to %d proofs, too small for an aggregate of %d", srs.N, n)
	}
	if len(vk.IC) == 0 {
		return false, fmt.Errorf("aggregate: verifying key has no IC points: %w", ErrInput)
	}
	for i, in := range publicInputs {
		if len(in)+1 != len(vk.IC) {
			return false, fmt.Errorf("aggregate: proof %d has %d public inputs, verifying key takes %d: %w", i, len(in), len(vk.IC)-1, ErrInput)
		}
	}
	if len(publicInputs) != n {
		return false, fmt.Errorf("aggregate: %d sets of public inputs for an aggregate of %d proofs: %w", len(publicInputs), n, ErrInput)
	}
	if err := ctx.Err(); err != nil {
		return false, err
	}

	hcom := NewTranscript("hcom").writeCommitment(&proof.ComAB).writeCommitment(&proof.ComC).Challenge()
	r := NewTranscript("random-r").WriteFr(&hcom).WriteBytes(transcriptInclude).Challenge()

	pc := newPairingChecks(rng)
	if err := verifyTippMipp(ctx, srs, n, proof, &r, pc, &hcom, v); err != nil {
		return false, err
	}

	// The aggregated Groth16 equation:
	// ip_ab = e(α, β)^{Σ r^i}·e(Σ_i r^i·IC(x_i), γ)·e(agg_c, δ),
	// where Σ_{i<n} r^i = (r^n − 1)/(r − 1) (r ≠ 1: no challenge is 1).
	var rSum, den, one fr.Element
	one.SetOne()
	rSum.Exp(r, big.NewInt(int64(n))).Sub(&rSum, &one)
	den.Sub(&r, &one).Inverse(&den)
	rSum.Mul(&rSum, &den)
	var e big.Int
	rSum.BigInt(&e)

	var alphaR bls12381.G1Affine
	alphaR.ScalarMultiplication(&vk.AlphaG1, &e)

	// IC_0·Σ r^i + Σ_k IC_{k+1}·(Σ_i r^i·x_{i,k})
	rVec := powers(n, &r)
	s := make([]fr.Element, len(vk.IC)-1)
	if err := par.Range(ctx, len(s), 8, func(lo, hi int) error {
		var t fr.Element
		for k := lo; k < hi; k++ {
			for i := range publicInputs {
				t.Mul(&publicInputs[i][k], &rVec[i])
				s[k].Add(&s[k], &t)
			}
		}
		return nil
	}); err != nil {
		return false, err
	}
	gIC, err := multiExp(vk.IC[1:], s, "public inputs and IC")
	if err != nil {
		return false, err
	}
	var ic0 bls12381.G1Affine
	ic0.ScalarMultiplication(&vk.IC[0], &e)
	gIC.Add(&gIC, &ic0)

	if err := pc.mergeNonRandom(
		[]bls12381.G1Affine{alphaR, gIC, proof.AggC},
		[]bls12381.G2Affine{vk.BetaG2, vk.GammaG2, vk.DeltaG2},
		&proof.IPAB); err != nil {
		return false, err
	}
	if err := ctx.Err(); err != nil {
		return false, err
	}
	return pc.verify()
}

// gipaFinal holds the verifier's folded commitments, bellperson's GipaTUZ:
// T and U of com_ab and com_c, Z of A·B and of C.
type gipaFinal struct {
	tab, uab, zab, tc, uc bls12381.GT
	zc                    bls12381.G1Jac
}

// mul merges o into f.
func (f *gipaFinal) mul(o *gipaFinal) {
	f.tab.Mul(&f.tab, &o.tab)
	f.uab.Mul(&f.uab, &o.uab)
	f.zab.Mul(&f.zab, &o.zab)
	f.tc.Mul(&f.tc, &o.tc)
	f.uc.Mul(&f.uc, &o.uc)
	f.zc.AddAssign(&o.zc)
}

// gipaChallenges replays the prover's transcript: the challenges x⁻¹ as
// drawn and their inverses x, in round order.
func gipaChallenges(p *Proof, rShift, hcom *fr.Element, v Version) (xs, xsInv []fr.Element) {
	g := &p.TMIPP.GIPA
	k := len(g.CommsAB)
	xs = make([]fr.Element, k)
	xsInv = make([]fr.Element, k)
	xInv := firstChallenge(hcom, &p.IPAB, &p.AggC, rShift)
	for i := range k {
		if i > 0 || v == V2 {
			rv := roundValues{
				tabL: g.CommsAB[i][0], tabR: g.CommsAB[i][1],
				zabL: g.ZAB[i][0], zabR: g.ZAB[i][1],
				zcL: g.ZC[i][0], zcR: g.ZC[i][1],
				tucL: g.CommsC[i][0], tucR: g.CommsC[i][1],
			}
			xInv = roundChallenge(i, &xInv, &rv)
		}
		xsInv[i] = xInv
		xs[i].Inverse(&xInv)
	}
	return xs, xsInv
}

// gipaFold is the fold half of bellperson's gipa_verify_tipp_mipp: each
// commitment and product times its round's left message to the x and right
// message to the x⁻¹.
func gipaFold(ctx context.Context, p *Proof, xs, xsInv []fr.Element) (*gipaFinal, error) {
	g := &p.TMIPP.GIPA
	rounds := make([]gipaFinal, len(xs))
	if err := par.Range(ctx, len(xs), 1, func(lo, hi int) error {
		var ex, exInv big.Int
		var t bls12381.GT
		var q bls12381.G1Jac
		for i := lo; i < hi; i++ {
			xs[i].BigInt(&ex)
			xsInv[i].BigInt(&exInv)
			f := &rounds[i]
			pow := func(dst *bls12381.GT, l, r *bls12381.GT) {
				dst.ExpGLV(*l, &ex)
				t.ExpGLV(*r, &exInv)
				dst.Mul(dst, &t)
			}
			pow(&f.tab, &g.CommsAB[i][0][0], &g.CommsAB[i][1][0])
			pow(&f.uab, &g.CommsAB[i][0][1], &g.CommsAB[i][1][1])
			pow(&f.zab, &g.ZAB[i][0], &g.ZAB[i][1])
			pow(&f.tc, &g.CommsC[i][0][0], &g.CommsC[i][1][0])
			pow(&f.uc, &g.CommsC[i][0][1], &g.CommsC[i][1][1])
			f.zc.FromAffine(&g.ZC[i][0])
			f.zc.ScalarMultiplication(&f.zc, &ex)
			q.FromAffine(&g.ZC[i][1])
			q.ScalarMultiplication(&q, &exInv)
			f.zc.AddAssign(&q)
		}
		return nil
	}); err != nil {
		return nil, err
	}
	out := &gipaFinal{tab: p.ComAB[0], uab: p.ComAB[1], zab: p.IPAB, tc: p.ComC[0], uc: p.ComC[1]}
	out.zc.FromAffine(&p.AggC)
	for i := range rounds {
		out.mul(&rounds[i])
	}
	return out, nil
}

// verifyTippMipp is bellperson's verify_tipp_mipp: it merges the TIPP,
// MIPP and KZG checks into pc. n is the proof count, the w key's shift.
func verifyTippMipp(ctx context.Context, srs *VerifierSRS, n int, p *Proof, r *fr.Element, pc *pairingChecks, hcom *fr.Element, v Version) error {
	g := &p.TMIPP.GIPA
	xs, xsInv := gipaChallenges(p, r, hcom, v)
	extra := extraChallenge(&xs[len(xs)-1], g)
	final, err := gipaFold(ctx, p, xs, xsInv)
	if err != nil {
		return err
	}
	slices.Reverse(xs)
	slices.Reverse(xsInv)
	var one fr.Element
	one.SetOne()
	// r folded as the prover folded it: Π (1 + x⁻¹_{k-1-j}·r^{2^j}).
	finalR := polyEvalProductForm(xsInv, r, &one)
	z := kzgPoint(v, &xs[0], &extra, g)

	var rInv fr.Element
	rInv.Inverse(r)
	if err := verifyKZGV(srs, pc, &g.FinalVKey, &p.TMIPP.VKeyOpening, xsInv, &z); err != nil {
		return err
	}
	if err := verifyKZGW(srs, n, pc, &g.FinalWKey, &p.TMIPP.WKeyOpening, xs, &rInv, &z); err != nil {
		return err
	}

	var zab, tab, uab, tc, uc = final.zab, final.tab, final.uab, final.tc, final.uc
	fa, fb, fc := g.FinalA, g.FinalB, g.FinalC
	vk0, vk1, wk0, wk1 := g.FinalVKey[0], g.FinalVKey[1], g.FinalWKey[0], g.FinalWKey[1]
	for _, c := range []struct {
		ps  []bls12381.G1Affine
		qs  []bls12381.G2Affine
		out *bls12381.GT
	}{
		// TIPP: Z = e(A, B), T = e(A, v1)·e(w1, B), U = e(A, v2)·e(w2, B).
		{[]bls12381.G1Affine{fa}, []bls12381.G2Affine{fb}, &zab},
		{[]bls12381.G1Affine{fa, wk0}, []bls12381.G2Affine{vk0, fb}, &tab},
		{[]bls12381.G1Affine{fa, wk1}, []bls12381.G2Affine{vk1, fb}, &uab},
		// MIPP: T = e(C, v1), U = e(C, v2).
		{[]bls12381.G1Affine{fc}, []bls12381.G2Affine{vk0}, &tc},
		{[]bls12381.G1Affine{fc}, []bls12381.G2Affine{vk1}, &uc},
	} {
		if err := pc.mergeRandom(c.ps, c.qs, c.out); err != nil {
			return err
		}
	}
	// MIPP's Z = C^r needs no pairing.
	var e big.Int
	var wantZC bls12381.G1Jac
	wantZC.FromAffine(&fc)
	wantZC.ScalarMultiplication(&wantZC, finalR.BigInt(&e))
	if !wantZC.Equal(&final.zc) {
		pc.invalidate()
	}
	return nil
}

// verifyKZGV is bellperson's verify_kzg_v: for each half (v1 with alpha,
// v2 with beta) e(−g, v_final − f_v(z)·h)·e(g^{alpha} − z·g, π) = 1, the KZG
// check that v_final = h^{f_v(alpha)}. xsInv are the x⁻¹, last round first.
func verifyKZGV(srs *VerifierSRS, pc *pairingChecks, final *[2]bls12381.G2Affine, opening *[2]bls12381.G2Affine, xsInv []fr.Element, z *fr.Element) error {
	var one fr.Element
	one.SetOne()
	y := polyEvalProductForm(xsInv, z, &one)
	var ey, ez big.Int
	y.BigInt(&ey)
	z.BigInt(&ez)
	var ng, zg bls12381.G1Affine
	ng.Neg(&srs.G)
	zg.ScalarMultiplication(&srs.G, &ez)
	var yh bls12381.G2Affine
	yh.ScalarMultiplication(&srs.H, &ey)
	for i, base := range []bls12381.G1Affine{srs.GAlpha, srs.GBeta} {
		var b bls12381.G2Affine
		b.Sub(&final[i], &yh)
		var c bls12381.G1Affine
		c.Sub(&base, &zg)
		if err := pc.mergeRandom([]bls12381.G1Affine{ng, c}, []bls12381.G2Affine{b, opening[i]}, nil); err != nil {
			return err
		}
	}
	return nil
}

// verifyKZGW is bellperson's verify_kzg_w: for each half (w1 with alpha,
// w2 with beta) e(w_final − f_w(z)·g, −h)·e(π, h^{alpha} − z·h) = 1 with
// f_w(z) = z^n·f(z), f the product form under the shift r⁻¹. xs are the x,
// last round first.
func verifyKZGW(srs *VerifierSRS, n int, pc *pairingChecks, final *[2]bls12381.G1Affine, opening *[2]bls12381.G1Affine, xs []fr.Element, rInv, z *fr.Element) error {
	fz := polyEvalProductForm(xs, z, rInv)
	var zn, fwz fr.Element
	zn.Exp(*z, big.NewInt(int64(n)))
	fwz.Mul(&fz, &zn)
	var ey, ez big.Int
	fwz.BigInt(&ey)
	z.BigInt(&ez)
	var nh, zh bls12381.G2Affine
	nh.Neg(&srs.H)
	zh.ScalarMultiplication(&srs.H, &ez)
	var yg bls12381.G1Affine
	yg.ScalarMultiplication(&srs.G, &ey)
	for i, base := range []bls12381.G2Affine{srs.HAlpha, srs.HBeta} {
		var a bls12381.G1Affine
		a.Sub(&final[i], &yg)
		var d bls12381.G2Affine
		d.Sub(&base, &zh)
		if err := pc.mergeRandom([]bls12381.G1Affine{a, opening[i]}, []bls12381.G2Affine{nh, d}, nil); err != nil {
			return err
		}
	}
	return nil
}
