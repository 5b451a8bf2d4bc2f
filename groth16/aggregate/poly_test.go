package aggregate

import (
	"math/rand/v2"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/stretchr/testify/require"
)

// horner evaluates coefficients (lowest first) at z.
func horner(f []fr.Element, z *fr.Element) fr.Element {
	var acc fr.Element
	for i := len(f) - 1; i >= 0; i-- {
		acc.Mul(&acc, z).Add(&acc, &f[i])
	}
	return acc
}

// The coefficient form and the product form are one polynomial, for each
// round count and shift; its leading coefficient is Π x·s^{2^k−1} ≠ 0, so
// it keeps all 2^k coefficients (bellperson's length check).
func TestPolynomialForms(t *testing.T) {
	rng := rand.NewChaCha8([32]byte{5})
	for k := 1; k <= 6; k++ {
		xs := randScalars(t, rng, k)
		s := randScalars(t, rng, 2)
		var one fr.Element
		one.SetOne()
		for _, shift := range []*fr.Element{&one, &s[0]} {
			f := polyCoeffsFromTranscript(xs, shift)
			require.Len(t, f, 1<<k)
			require.Len(t, trimZeros(f), 1<<k)
			got := polyEvalProductForm(xs, &s[1], shift)
			want := horner(f, &s[1])
			require.True(t, got.Equal(&want), "k=%d", k)
		}
	}
	// The example in bellperson's comment: (1 + x1·r·X)(1 + x0·(rX)²) with
	// the challenges passed reversed, [x1, x0].
	xs := randScalars(t, rng, 2)
	r := randScalars(t, rng, 1)[0]
	f := polyCoeffsFromTranscript(xs, &r)
	var r2, want fr.Element
	r2.Square(&r)
	want.Mul(&xs[0], &r)
	require.True(t, f[1].Equal(&want))
	want.Mul(&xs[1], &r2)
	require.True(t, f[2].Equal(&want))
	want.Mul(&xs[0], &xs[1]).Mul(&want, &r2).Mul(&want, &r)
	require.True(t, f[3].Equal(&want))
}

// (f(X) − f(z)) = (X − z)·q(X), checked at a random point.
func TestKZGQuotient(t *testing.T) {
	rng := rand.NewChaCha8([32]byte{6})
	for _, deg := range []int{1, 2, 7, 16} {
		f := randScalars(t, rng, deg+1)
		pts := randScalars(t, rng, 2)
		z, u := pts[0], pts[1]
		q, err := kzgQuotient(f, &z)
		require.NoError(t, err)
		require.Len(t, q, deg)
		fz, fu, qu := horner(f, &z), horner(f, &u), horner(q, &u)
		var lhs, rhs fr.Element
		lhs.Sub(&fu, &fz)
		rhs.Sub(&u, &z).Mul(&rhs, &qu)
		require.True(t, lhs.Equal(&rhs), "degree %d", deg)
	}
	// Trailing zeros do not count toward the degree.
	f := randScalars(t, rng, 3)
	f = append(f, fr.Element{}, fr.Element{})
	q, err := kzgQuotient(f, &f[0])
	require.NoError(t, err)
	require.Len(t, q, 2)
	_, err = kzgQuotient(f[:1], &f[0])
	require.ErrorIs(t, err, ErrInput)
}
