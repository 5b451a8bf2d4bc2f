package aggregate

import (
	"errors"
	"fmt"
	"runtime"

	"github.com/consensys/gnark-crypto/ecc"
	bls12381 "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"golang.org/x/sync/errgroup"
)

// ErrInput reports vectors or keys whose lengths do not fit together, the
// cases where bellperson returns SynthesisError::IncompatibleLengthVector.
var ErrInput = errors.New("aggregate: invalid input")

func lengthError(what string, left, right int) error {
	return fmt.Errorf("aggregate: %s: lengths %d and %d differ: %w", what, left, right, ErrInput)
}

// minPairingChunk keeps Miller-loop chunks large enough that the one GT
// multiplication per chunk is noise.
const minPairingChunk = 16

// pairingProduct is bellperson's inner_product::pairing: Π e(a_i, b_i),
// one final exponentiation over the product of the Miller loops. Empty
// vectors give 1, as bellperson's empty multi_miller_loop does (gnark's
// MillerLoop refuses them); identity points contribute 1 (gnark skips them).
func pairingProduct(a []bls12381.G1Affine, b []bls12381.G2Affine, what string) (bls12381.GT, error) {
	var acc bls12381.GT
	if len(a) != len(b) {
		return acc, lengthError(what, len(a), len(b))
	}
	acc.SetOne()
	if len(a) == 0 {
		return acc, nil
	}
	// Miller loops of chunks in parallel: gnark's MillerLoop is sequential.
	chunk := max(minPairingChunk, (len(a)+runtime.GOMAXPROCS(0)-1)/runtime.GOMAXPROCS(0))
	parts := make([]bls12381.GT, (len(a)+chunk-1)/chunk)
	var g errgroup.Group
	for i := range parts {
		lo, hi := i*chunk, min((i+1)*chunk, len(a))
		g.Go(func() error {
			f, err := bls12381.MillerLoop(a[lo:hi], b[lo:hi])
			if err != nil {
				return fmt.Errorf("aggregate: %s: Miller loop: %v: %w", what, err, ErrInput)
			}
			parts[i] = f
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return acc, err
	}
	for i := range parts {
		acc.Mul(&acc, &parts[i])
	}
	return bls12381.FinalExponentiation(&acc), nil
}

// multiExp is bellperson's inner_product::multiexponentiation for G1:
// Σ c_i·a_i. Empty vectors give the identity, as bellperson's does.
func multiExp(a []bls12381.G1Affine, c []fr.Element, what string) (bls12381.G1Affine, error) {
	var r bls12381.G1Affine
	if len(a) != len(c) {
		return r, lengthError(what, len(a), len(c))
	}
	if len(a) == 0 {
		return r, nil
	}
	var j bls12381.G1Jac
	if _, err := j.MultiExp(a, c, ecc.MultiExpConfig{}); err != nil {
		return r, fmt.Errorf("aggregate: %s: %v: %w", what, err, ErrInput)
	}
	r.FromJacobian(&j)
	return r, nil
}

// multiExpG2 is multiExp in G2, for the KZG opening of the v key.
func multiExpG2(a []bls12381.G2Affine, c []fr.Element, what string) (bls12381.G2Affine, error) {
	var r bls12381.G2Affine
	if len(a) != len(c) {
		return r, lengthError(what, len(a), len(c))
	}
	if len(a) == 0 {
		return r, nil
	}
	var j bls12381.G2Jac
	if _, err := j.MultiExp(a, c, ecc.MultiExpConfig{}); err != nil {
		return r, fmt.Errorf("aggregate: %s: %v: %w", what, err, ErrInput)
	}
	r.FromJacobian(&j)
	return r, nil
}
