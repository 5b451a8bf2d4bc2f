// Package testpoints has test helpers that make BLS12-381 points a decoder
// or a key check must refuse.
package testpoints

import (
	"testing"

	bls12381 "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fp"
)

// OutsideG1 returns a point on y² = x³ + 4 outside the prime-order
// subgroup: almost every curve point is, the cofactor being large.
func OutsideG1(t testing.TB) bls12381.G1Affine {
	t.Helper()
	var p bls12381.G1Affine
	var four, rhs fp.Element
	four.SetUint64(4)
	for x := uint64(1); x < 1000; x++ {
		p.X.SetUint64(x)
		rhs.Square(&p.X).Mul(&rhs, &p.X).Add(&rhs, &four)
		if p.Y.Sqrt(&rhs) != nil && p.IsOnCurve() && !p.IsInSubGroup() {
			return p
		}
	}
	t.Fatal("no point outside G1 found")
	return p
}

// OutsideG2 returns a point of the twist outside the prime-order subgroup.
func OutsideG2(t testing.TB) bls12381.G2Affine {
	t.Helper()
	var u bls12381.E2
	u.A0.SetUint64(5)
	u.A1.SetUint64(7)
	j := bls12381.GeneratePointNotInG2(u)
	var p bls12381.G2Affine
	p.FromJacobian(&j)
	if !p.IsOnCurve() || p.IsInSubGroup() {
		t.Fatal("the point made is not on the twist outside G2")
	}
	return p
}
