package aggregate

import (
	"context"
	"fmt"
	"math/big"
	"slices"
	"strconv"

	bls12381 "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/consensys/gnark-crypto/parallel"
	"golang.org/x/sync/errgroup"

	"github.com/gpuc2/gpuc2/groth16"
	"github.com/gpuc2/gpuc2/internal/par"

	"github.com/gpuc2/gpuc2/internal/subgroup"
)

// Version is SnarkPack's version: V2 is what filecoin-proofs uses for every
// aggregate since nv16 (RegisteredAggregationProof SnarkPackV2); V1 only
// differs in the transcript.
type Version int

// The two versions, bellperson's AggregateVersion. V1 takes the first GIPA
// challenge before the first round's commitments exist and the KZG point
// from the last challenge and the final keys only; V2 hashes the first
// round into the first challenge and the final A, B, C and the GIPA link
// challenge into the KZG point.
const (
	V1 Version = 1
	V2 Version = 2
)

func (v Version) String() string {
	switch v {
	case V1:
		return "V1"
	case V2:
		return "V2"
	}
	return "Version(" + strconv.Itoa(int(v)) + ")"
}

func (v Version) check() error {
	if v != V1 && v != V2 {
		return fmt.Errorf("aggregate: unknown SnarkPack version %d (want V1 or V2): %w", int(v), ErrInput)
	}
	return nil
}

// checkCount is what bellperson's aggregate_proofs and parsing_check ask of
// a proof count: a power of two, at least 2 (and at most MaxProofs).
func checkCount(n int) error {
	switch {
	case n < MinProofs:
		return fmt.Errorf("aggregate: %d proofs, SnarkPack aggregates at least %d: %w", n, MinProofs, ErrInput)
	case n > MaxProofs:
		return fmt.Errorf("aggregate: %d proofs, more than SnarkPack's %d: %w", n, MaxProofs, ErrInput)
	case n&(n-1) != 0:
		// filecoin-proofs pads by repeating the last proof (and its inputs).
		return fmt.Errorf("aggregate: %d proofs is not a power of two; pad to %d by repeating the last proof: %w", n, nextPow2(n), ErrInput)
	}
	return nil
}

func nextPow2(n int) int {
	p := 1
	for p < n {
		p <<= 1
	}
	return p
}

// proverKeys is a ProverSRS cut to n proofs: what bellperson's
// specialize_prover(n) holds.
type proverKeys struct {
	n             int
	gAlpha, gBeta []bls12381.G1Affine // powers [0, 2n): the w opening's range
	hAlpha, hBeta []bls12381.G2Affine // powers [0, n): the v opening's range
	vkey          VKey                // h powers [0, n)
	wkey          WKey                // g powers [n, 2n)
}

// keys cuts s to n proofs. An SRS specialized to more proofs serves fewer:
// its powers start at the same index, so the cut is what Specialize(n)
// would have returned.
func (s *ProverSRS) keys(n int) (*proverKeys, error) {
	if s == nil {
		return nil, srsError("missing (nil prover SRS)")
	}
	if n > s.N {
		return nil, srsError("specialized to %d proofs, too small for %d", s.N, n)
	}
	for _, v := range []struct {
		name string
		have int
		want int
	}{
		{"g_alpha_powers", len(s.GAlphaPowers), 2 * n},
		{"g_beta_powers", len(s.GBetaPowers), 2 * n},
		{"h_alpha_powers", len(s.HAlphaPowers), n},
		{"h_beta_powers", len(s.HBetaPowers), n},
	} {
		if v.have < v.want {
			return nil, srsError("prover %s has %d powers, need %d for %d proofs", v.name, v.have, v.want, n)
		}
	}
	k := &proverKeys{
		n:      n,
		gAlpha: s.GAlphaPowers[: 2*n : 2*n],
		gBeta:  s.GBetaPowers[: 2*n : 2*n],
		hAlpha: s.HAlphaPowers[:n:n],
		hBeta:  s.HBetaPowers[:n:n],
	}
	k.vkey = VKey{A: k.hAlpha, B: k.hBeta}
	k.wkey = WKey{A: k.gAlpha[n:], B: k.gBeta[n:]}
	return k, nil
}

// checkProofs refuses points off the curve or outside the prime-order
// subgroups: bellperson's Proof::read does, and one such point could make
// the aggregate's pairing products meaningless. The identity passes (it is
// in the subgroup).
func checkProofs(proofs []groth16.Proof) error {
	a := make([]bls12381.G1Affine, 0, 2*len(proofs))
	b := make([]bls12381.G2Affine, len(proofs))
	for i := range proofs {
		p := &proofs[i]
		for _, pt := range []struct {
			name string
			ok   bool
		}{{"A", p.A.IsOnCurve()}, {"B", p.B.IsOnCurve()}, {"C", p.C.IsOnCurve()}} {
			if !pt.ok {
				return fmt.Errorf("aggregate: proof %d: %s is not on the curve: %w", i, pt.name, ErrInput)
			}
		}
		a = append(a, p.A, p.C)
		b[i] = p.B
	}
	if k := subgroup.FirstOutsideG1(a); k >= 0 {
		return fmt.Errorf("aggregate: proof %d: %s is not in the prime-order subgroup: %w", k/2, [2]string{"A", "C"}[k%2], ErrInput)
	}
	if k := subgroup.FirstOutsideG2(b); k >= 0 {
		return fmt.Errorf("aggregate: proof %d: B is not in the prime-order subgroup: %w", k, ErrInput)
	}
	return nil
}

// Aggregate aggregates proofs (a power of two count, ≥ 2, ≤ the SRS's
// size) under srs; transcriptInclude is the caller's bytes bellperson's
// aggregate_proofs takes as `transcript_include` (filecoin-proofs passes a
// hash of the seeds and comm_rs). Errors name the problem (wrong count, a
// proof not in the subgroup, SRS too small, ctx cancelled).
//
// It is bellperson's aggregate_proofs: commit to A, B (pair commitment) and
// C (single), derive r from the commitments and transcriptInclude, prove
// ip_ab = Π e(A_i, B_i^{r^i}) (TIPP) and agg_c = Σ r^i·C_i (MIPP) in one
// GIPA recursion, then open the final keys with KZG. There is no randomness:
// the same inputs give the same bytes. An SRS specialized to more proofs
// gives what one specialized to exactly len(proofs) gives.
func Aggregate(ctx context.Context, srs *ProverSRS, proofs []groth16.Proof, transcriptInclude []byte, v Version) (*Proof, error) {
	if err := v.check(); err != nil {
		return nil, err
	}
	n := len(proofs)
	if err := checkCount(n); err != nil {
		return nil, err
	}
	keys, err := srs.keys(n)
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := checkProofs(proofs); err != nil {
		return nil, err
	}
	a := make([]bls12381.G1Affine, n)
	b := make([]bls12381.G2Affine, n)
	c := make([]bls12381.G1Affine, n)
	for i := range proofs {
		a[i], b[i], c[i] = proofs[i].A, proofs[i].B, proofs[i].C
	}

	var comAB, comC Commitment
	if err := concurrently(ctx,
		func() (err error) { comAB, err = CommitPair(&keys.vkey, &keys.wkey, a, b); return },
		func() (err error) { comC, err = CommitSingleG1(&keys.vkey, c); return },
	); err != nil {
		return nil, err
	}

	hcom := NewTranscript("hcom").writeCommitment(&comAB).writeCommitment(&comC).Challenge()
	// r makes the n Groth16 equations one: a random linear combination.
	r := NewTranscript("random-r").WriteFr(&hcom).WriteBytes(transcriptInclude).Challenge()
	rVec := powers(n, &r)
	rInv := fr.BatchInvert(rVec)

	// B^{r^i}: TIPP proves the product of e(A_i, B_i^{r^i}).
	bR := make([]bls12381.G2Affine, n)
	if err := par.Range(ctx, n, 64, func(lo, hi int) error {
		var e big.Int
		for i := lo; i < hi; i++ {
			bR[i] = mulAdd(nil, &b[i], rVec[i].BigInt(&e))
		}
		return nil
	}); err != nil {
		return nil, err
	}
	var ipAB bls12381.GT
	var aggC bls12381.G1Affine
	if err := concurrently(ctx,
		func() (err error) { ipAB, err = pairingProduct(a, bR, "ip_ab: A and B^r"); return },
		func() (err error) { aggC, err = multiExp(c, rVec, "agg_c: C and r"); return },
	); err != nil {
		return nil, err
	}
	// The w key scaled by r^{-i} commits to (A, B^r) as w commits to (A, B):
	// com_ab serves both.
	wkeyRInv, err := keys.wkey.Scale(rInv)
	if err != nil {
		return nil, err
	}
	tmipp, err := proveTippMipp(ctx, keys, a, bR, c, &wkeyRInv, rVec, &ipAB, &aggC, &hcom, v)
	if err != nil {
		return nil, err
	}
	return &Proof{ComAB: comAB, ComC: comC, IPAB: ipAB, AggC: aggC, TMIPP: *tmipp}, nil
}

// concurrently runs fs at once (bellperson's try_par!) and returns the
// first error, or ctx's once all are done: a cancelled ctx stops none of
// them midway, but fails the call.
func concurrently(ctx context.Context, fs ...func() error) error {
	var eg errgroup.Group
	for _, f := range fs {
		eg.Go(par.Guard(f))
	}
	if err := eg.Wait(); err != nil {
		return err
	}
	return ctx.Err()
}

// powers is bellperson's structured_scalar_power: 1, x, x², …, x^{n-1}.
func powers(n int, x *fr.Element) []fr.Element {
	p := make([]fr.Element, n)
	p[0].SetOne()
	for i := 1; i < n; i++ {
		p[i].Mul(&p[i-1], x)
	}
	return p
}

// proveTippMipp is bellperson's prove_tipp_mipp: GIPA, then KZG openings
// that the final v and w keys are the SRS keys folded by the challenges.
// b is B^r and wkey w^{r^{-1}}.
func proveTippMipp(ctx context.Context, keys *proverKeys, a []bls12381.G1Affine, b []bls12381.G2Affine, c []bls12381.G1Affine,
	wkey *WKey, rVec []fr.Element, ipAB *bls12381.GT, aggC *bls12381.G1Affine, hcom *fr.Element, v Version) (*TippMippProof, error) {
	rShift := rVec[1]
	gipa, xs, xsInv, extra, err := gipaTippMipp(ctx, a, b, c, &keys.vkey, wkey, rVec, ipAB, aggC, hcom, v)
	if err != nil {
		return nil, err
	}
	// The key polynomials take the challenges last round first, and V1's
	// KZG point hashes the last challenge.
	slices.Reverse(xs)
	slices.Reverse(xsInv)
	var rInv fr.Element
	rInv.Inverse(&rShift)
	z := kzgPoint(v, &xs[0], &extra, gipa)

	var vOpen [2]bls12381.G2Affine
	var wOpen [2]bls12381.G1Affine
	if err := concurrently(ctx,
		func() (err error) {
			// f_v(X) = Π (1 + x⁻¹_{k-1-j}·X^{2^j}), n coefficients.
			f := polyCoeffsFromTranscript(xsInv, new(fr.Element).SetOne())
			vOpen, err = kzgOpening(keys.hAlpha, keys.hBeta, keys.n, f, &z, multiExpG2, "v key")
			return err
		},
		func() (err error) {
			// f_w(X) = X^n·Π (1 + x_{k-1-j}·(r⁻¹X)^{2^j}): w starts at power n.
			f := polyCoeffsFromTranscript(xs, &rInv)
			fw := make([]fr.Element, keys.n, 2*keys.n)
			fw = append(fw, f...)
			wOpen, err = kzgOpening(keys.gAlpha, keys.gBeta, 2*keys.n, fw, &z, multiExp, "w key")
			return err
		},
	); err != nil {
		return nil, err
	}
	return &TippMippProof{GIPA: *gipa, VKeyOpening: vOpen, WKeyOpening: wOpen}, nil
}

// kzgPoint is the KZG evaluation point, "random-z". last is the last
// round's challenge x (V1); extra the "gipa-extra-link" challenge (V2).
func kzgPoint(v Version, last, extra *fr.Element, g *GipaProof) fr.Element {
	t := NewTranscript("random-z")
	if v == V1 {
		t.WriteFr(last)
	} else {
		t.WriteFr(extra)
	}
	t.WriteG2(&g.FinalVKey[0]).WriteG2(&g.FinalVKey[1]).WriteG1(&g.FinalWKey[0]).WriteG1(&g.FinalWKey[1])
	if v == V2 {
		t.WriteG1(&g.FinalA).WriteG2(&g.FinalB).WriteG1(&g.FinalC)
	}
	return t.Challenge()
}

// kzgOpening is bellperson's create_kzg_opening: (Σ q_i·alpha_i, Σ
// q_i·beta_i) with q = (f − f(z))/(X − z). f must have exactly powersLen
// coefficients once trailing zeros go (bellperson's MalformedSrs check).
func kzgOpening[P any](alpha, beta []P, powersLen int, f []fr.Element, z *fr.Element,
	msm func([]P, []fr.Element, string) (P, error), what string) ([2]P, error) {
	var out [2]P
	f = trimZeros(f)
	if len(f) != powersLen || len(alpha) < powersLen || len(beta) < powersLen {
		return out, fmt.Errorf("aggregate: KZG opening of the %s: polynomial of %d coefficients, want %d (SRS powers %d and %d): %w",
			what, len(f), powersLen, len(alpha), len(beta), ErrSRS)
	}
	q, err := kzgQuotient(f, z)
	if err != nil {
		return out, err
	}
	if out[0], err = msm(alpha[:len(q)], q, "KZG opening of the "+what+": alpha powers"); err != nil {
		return out, err
	}
	if out[1], err = msm(beta[:len(q)], q, "KZG opening of the "+what+": beta powers"); err != nil {
		return out, err
	}
	return out, nil
}

// roundValues are one GIPA round's messages: the cross commitments and
// cross products of the halves.
type roundValues struct {
	tabL, tabR Commitment // pair commitments of (A_R, B_L), (A_L, B_R)
	zabL, zabR bls12381.GT
	zcL, zcR   bls12381.G1Affine
	tucL, tucR Commitment // single commitments of C_R, C_L
}

// roundChallenge is the challenge x⁻¹ of round i (bellperson's c_inv):
// "gipa-i" over the previous challenge and the round's messages in
// bellperson's order.
func roundChallenge(i int, prev *fr.Element, rv *roundValues) fr.Element {
	return NewTranscript("gipa-" + strconv.Itoa(i)).WriteFr(prev).
		WriteGT(&rv.zabL).WriteGT(&rv.zabR).WriteG1(&rv.zcL).WriteG1(&rv.zcR).
		writeCommitment(&rv.tabL).writeCommitment(&rv.tabR).
		writeCommitment(&rv.tucL).writeCommitment(&rv.tucR).
		Challenge()
}

// firstChallenge is the "gipa-0" challenge both versions start from.
func firstChallenge(hcom *fr.Element, ipAB *bls12381.GT, aggC *bls12381.G1Affine, rShift *fr.Element) fr.Element {
	return NewTranscript("gipa-0").WriteFr(hcom).WriteGT(ipAB).WriteG1(aggC).WriteFr(rShift).Challenge()
}

// extraChallenge is "gipa-extra-link", which ties the GIPA rounds to the
// KZG point in V2 (V1 computes it and does not use it).
func extraChallenge(last *fr.Element, g *GipaProof) fr.Element {
	k := len(g.CommsAB) - 1
	return NewTranscript("gipa-extra-link").WriteFr(last).
		WriteG1(&g.FinalA).WriteG2(&g.FinalB).WriteG1(&g.FinalC).
		WriteGT(&g.ZAB[k][0]).WriteGT(&g.ZAB[k][1]).WriteG1(&g.ZC[k][0]).WriteG1(&g.ZC[k][1]).
		writeCommitment(&g.CommsAB[k][0]).writeCommitment(&g.CommsAB[k][1]).
		writeCommitment(&g.CommsC[k][0]).writeCommitment(&g.CommsC[k][1]).
		Challenge()
}

// gipaTippMipp is bellperson's gipa_tipp_mipp. Each round halves A, B, C,
// r and the keys: A, C and w fold with x, B, r and v with x⁻¹. It returns
// the proof, the challenges x and x⁻¹ in round order, and the extra
// challenge.
func gipaTippMipp(ctx context.Context, a []bls12381.G1Affine, b []bls12381.G2Affine, c []bls12381.G1Affine,
	vkey *VKey, wkey *WKey, r []fr.Element, ipAB *bls12381.GT, aggC *bls12381.G1Affine, hcom *fr.Element,
	v Version) (*GipaProof, []fr.Element, []fr.Element, fr.Element, error) {
	var extra fr.Element
	n := len(a)
	k := 0
	for m := n; m > 1; m >>= 1 {
		k++
	}
	g := &GipaProof{
		NProofs: uint32(n),
		CommsAB: make([][2]Commitment, 0, k),
		CommsC:  make([][2]Commitment, 0, k),
		ZAB:     make([][2]bls12381.GT, 0, k),
		ZC:      make([][2]bls12381.G1Affine, 0, k),
	}
	xs := make([]fr.Element, 0, k)
	xsInv := make([]fr.Element, 0, k)
	vk, wk := *vkey, *wkey
	// V1 uses this as round 0's challenge; V2 hashes it into round 0's.
	xInv := firstChallenge(hcom, ipAB, aggC, &r[1])
	for i := 0; len(a) > 1; i++ {
		if err := ctx.Err(); err != nil {
			return nil, nil, nil, extra, err
		}
		m := len(a) / 2
		aL, aR := a[:m], a[m:]
		bL, bR := b[:m], b[m:]
		cL, cR := c[:m], c[m:]
		rL, rR := r[:m], r[m:]
		vkL, vkR, err := vk.Split(m)
		if err != nil {
			return nil, nil, nil, extra, err
		}
		wkL, wkR, err := wk.Split(m)
		if err != nil {
			return nil, nil, nil, extra, err
		}
		var rv roundValues
		if err := concurrently(ctx,
			func() (err error) { rv.tabL, err = CommitPair(&vkL, &wkR, aR, bL); return },
			func() (err error) { rv.tabR, err = CommitPair(&vkR, &wkL, aL, bR); return },
			func() (err error) { rv.zabL, err = pairingProduct(aR, bL, "z_ab left: A right and B left"); return },
			func() (err error) { rv.zabR, err = pairingProduct(aL, bR, "z_ab right: A left and B right"); return },
			func() (err error) { rv.zcL, err = multiExp(cR, rL, "z_c left: C right and r left"); return },
			func() (err error) { rv.zcR, err = multiExp(cL, rR, "z_c right: C left and r right"); return },
			func() (err error) { rv.tucL, err = CommitSingleG1(&vkL, cR); return },
			func() (err error) { rv.tucR, err = CommitSingleG1(&vkR, cL); return },
		); err != nil {
			return nil, nil, nil, extra, err
		}
		if i > 0 || v == V2 {
			xInv = roundChallenge(i, &xInv, &rv)
		}
		var x fr.Element
		x.Inverse(&xInv)

		a = fold(a, &x)
		b = fold(b, &xInv)
		c = fold(c, &x)
		r = foldFr(r, &xInv)
		if vk, err = vkL.Compress(&vkR, &xInv); err != nil {
			return nil, nil, nil, extra, err
		}
		if wk, err = wkL.Compress(&wkR, &x); err != nil {
			return nil, nil, nil, extra, err
		}
		g.CommsAB = append(g.CommsAB, [2]Commitment{rv.tabL, rv.tabR})
		g.CommsC = append(g.CommsC, [2]Commitment{rv.tucL, rv.tucR})
		g.ZAB = append(g.ZAB, [2]bls12381.GT{rv.zabL, rv.zabR})
		g.ZC = append(g.ZC, [2]bls12381.G1Affine{rv.zcL, rv.zcR})
		xs = append(xs, x)
		xsInv = append(xsInv, xInv)
	}
	g.FinalA, g.FinalB, g.FinalC = a[0], b[0], c[0]
	var err error
	if g.FinalVKey[0], g.FinalVKey[1], err = vk.First(); err != nil {
		return nil, nil, nil, extra, err
	}
	if g.FinalWKey[0], g.FinalWKey[1], err = wk.First(); err != nil {
		return nil, nil, nil, extra, err
	}
	extra = extraChallenge(&xs[len(xs)-1], g)
	return g, xs, xsInv, extra, nil
}

// fold is bellperson's compress for a vector: left_i + x·right_i over the
// two halves of v.
func fold[P bls12381.G1Affine | bls12381.G2Affine](v []P, x *fr.Element) []P {
	m := len(v) / 2
	out := make([]P, m)
	var e big.Int
	x.BigInt(&e)
	parallel.Execute(m, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			out[i] = mulAdd(&v[i], &v[m+i], &e)
		}
	})
	return out
}

// foldFr is fold for the scalars r: left_i + x·right_i.
func foldFr(v []fr.Element, x *fr.Element) []fr.Element {
	m := len(v) / 2
	out := make([]fr.Element, m)
	for i := range out {
		out[i].Mul(&v[m+i], x).Add(&out[i], &v[i])
	}
	return out
}
