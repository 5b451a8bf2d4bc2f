// Package testkey has test helpers for code that needs a proving key of
// some shape but not a real setup.
package testkey

import (
	bls12381 "github.com/consensys/gnark-crypto/ecc/bls12-381"

	"github.com/gpuc2/gpuc2/groth16"
)

// GeneratorKey returns a key with the section counts of a circuit with
// inputs public inputs (ONE included), aux auxiliary variables and a domain
// of h+1 rows — h and l full, a as long as the inputs, one b point — every
// point the group generator. It passes shape checks in milliseconds;
// proofs made with it do not verify.
func GeneratorKey(inputs, aux, h int) (*groth16.ProvingKey, error) {
	_, _, g1, g2 := bls12381.Generators()
	tile := func(n int) []bls12381.G1Affine {
		out := make([]bls12381.G1Affine, n)
		for i := range out {
			out[i] = g1
		}
		return out
	}
	vk := &groth16.VerifyingKey{AlphaG1: g1, BetaG1: g1, DeltaG1: g1, BetaG2: g2, GammaG2: g2, DeltaG2: g2, IC: tile(inputs)}
	return groth16.NewProvingKey(vk, tile(h), tile(aux), tile(inputs), tile(1), []bls12381.G2Affine{g2})
}
