// Package subgroup finds points outside BLS12-381's prime-order subgroups
// in a slice: one batch test, and only when it fails a search point by
// point. groth16's parameter files and SnarkPack's SRS check their points
// with it.
package subgroup

import bls12381 "github.com/consensys/gnark-crypto/ecc/bls12-381"

// FirstOutsideG1 returns the index of the first point of ps outside the
// prime-order subgroup of G1, or -1.
func FirstOutsideG1(ps []bls12381.G1Affine) int {
	if bls12381.IsInSubGroupBatchG1(ps) {
		return -1
	}
	for i := range ps {
		if !ps[i].IsInSubGroup() {
			return i
		}
	}
	return -1
}

// FirstOutsideG2 is FirstOutsideG1 for G2.
func FirstOutsideG2(ps []bls12381.G2Affine) int {
	if bls12381.IsInSubGroupBatchG2(ps) {
		return -1
	}
	for i := range ps {
		if !ps[i].IsInSubGroup() {
			return i
		}
	}
	return -1
}
