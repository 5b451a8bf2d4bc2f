package aggregate

import (
	"math/big"
	"testing"

	bls12381 "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/stretchr/testify/require"
)

// blstFinalExp is blst's final_exp (src/pairing.c, supranational/blst
// HEAD of 2026-12-07), step by step with gnark-crypto's operations:
// raise_to_z is Expt, raise_to_z_div_by_2 ExptHalf.
func blstFinalExp(f *bls12381.GT) bls12381.GT {
	var y0, y1, y2, y3, ret bls12381.GT
	y1.Conjugate(f)
	y2.Inverse(f)
	ret.Mul(&y1, &y2)
	y2.FrobeniusSquare(&ret)
	ret.Mul(&ret, &y2)
	y0.CyclotomicSquare(&ret)
	y1.Expt(&y0)
	y2.ExptHalf(&y1)
	y3.Conjugate(&ret)
	y1.Mul(&y1, &y3)
	y1.Conjugate(&y1)
	y1.Mul(&y1, &y2)
	y2.Expt(&y1)
	y3.Expt(&y2)
	y1.Conjugate(&y1)
	y3.Mul(&y3, &y1)
	y1.Conjugate(&y1)
	y1.FrobeniusSquare(&y1)
	y1.Frobenius(&y1) // frobenius_map_fp12(·, 3)
	y2.FrobeniusSquare(&y2)
	y1.Mul(&y1, &y2)
	y2.Expt(&y3)
	y2.Mul(&y2, &y0)
	y2.Mul(&y2, &ret)
	y1.Mul(&y1, &y2)
	y2.Frobenius(&y3)
	ret.Mul(&y1, &y2)
	return ret
}

// The GT values SnarkPack commits to and hashes must be blst's: gnark-crypto's
// final exponentiation raises to 3·(p¹²−1)/r (its doc), and so does blst's
// (the cube of the textbook exponent's result, checked here too), so
// gnark-crypto's pairings are bellperson's.
func TestFinalExponentiationIsBlsts(t *testing.T) {
	_, _, g1, g2 := bls12381.Generators()
	var p bls12381.G1Affine
	p.ScalarMultiplication(&g1, big.NewInt(12345))
	f, err := bls12381.MillerLoop([]bls12381.G1Affine{p}, []bls12381.G2Affine{g2})
	require.NoError(t, err)
	gnark := bls12381.FinalExponentiation(&f)
	blst := blstFinalExp(&f)
	require.True(t, gnark.Equal(&blst), "gnark-crypto's final exponentiation differs from blst's")

	d := new(big.Int).Exp(bls12381.ID.BaseField(), big.NewInt(12), nil)
	d.Sub(d, big.NewInt(1)).Div(d, fr.Modulus())
	var textbook, cube bls12381.GT
	textbook.Exp(f, d)
	cube.Exp(textbook, big.NewInt(3))
	require.False(t, textbook.Equal(&gnark))
	require.True(t, cube.Equal(&gnark), "both raise to 3·(p¹²−1)/r")
}
