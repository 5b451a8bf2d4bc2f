package aggregate

import (
	"fmt"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

// The commitment keys GIPA folds down to one point are the SRS powers
// evaluated at a polynomial fixed by the challenges:
//
//	f(X) = Π_{j=0}^{k-1} (1 + x_{k-1-j}·(s·X)^{2^j})
//
// with x the round challenges, last round first (bellperson reverses them
// before the KZG step), and s a shift: 1 for v, r⁻¹ for w (the prover folds
// w scaled by r^{-i}). The KZG openings show the final keys are f(alpha)
// and f(beta) in the exponent.

// polyEvalProductForm is bellperson's
// polynomial_evaluation_product_form_from_transcript: f(z) in O(k), with
// xs in reversed order and shift s.
func polyEvalProductForm(xs []fr.Element, z, s *fr.Element) fr.Element {
	var power, res, term, one fr.Element
	one.SetOne()
	power.Mul(z, s)
	res.Mul(&xs[0], &power).Add(&res, &one)
	for i := 1; i < len(xs); i++ {
		power.Square(&power)
		term.Mul(&xs[i], &power).Add(&term, &one)
		res.Mul(&res, &term)
	}
	return res
}

// polyCoeffsFromTranscript is bellperson's
// polynomial_coefficients_from_transcript: the 2^k coefficients of f,
// lowest first. Each factor doubles the list: c ‖ (x·s^{2^j})·c.
func polyCoeffsFromTranscript(xs []fr.Element, s *fr.Element) []fr.Element {
	coeffs := make([]fr.Element, 1, 1<<len(xs))
	coeffs[0].SetOne()
	power := *s
	var f fr.Element
	for i := range xs {
		if i > 0 {
			power.Square(&power)
		}
		f.Mul(&xs[i], &power)
		n := len(coeffs)
		coeffs = coeffs[:2*n]
		for j := range n {
			coeffs[n+j].Mul(&coeffs[j], &f)
		}
	}
	return coeffs
}

// trimZeros drops trailing zero coefficients, as bellperson's
// DensePolynomial::from_coeffs does.
func trimZeros(p []fr.Element) []fr.Element {
	for len(p) > 0 && p[len(p)-1].IsZero() {
		p = p[:len(p)-1]
	}
	return p
}

// kzgQuotient returns the coefficients of (f(X) − f(z))/(X − z), of degree
// one less than f, by synthetic division; f(z) only changes the constant
// term, which the quotient does not depend on. bellperson's long division
// gives the same polynomial: the division is exact, so its quotient is
// unique.
func kzgQuotient(f []fr.Element, z *fr.Element) ([]fr.Element, error) {
	f = trimZeros(f)
	if len(f) < 2 {
		return nil, fmt.Errorf("aggregate: KZG opening of a constant polynomial: %w", ErrInput)
	}
	q := make([]fr.Element, len(f)-1)
	q[len(q)-1] = f[len(f)-1]
	for i := len(q) - 1; i > 0; i-- {
		q[i-1].Mul(&q[i], z).Add(&q[i-1], &f[i])
	}
	return q, nil
}
