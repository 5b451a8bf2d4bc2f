package aggregate

import (
	"fmt"
	"io"
	"math/big"
	"sync"

	bls12381 "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

// gtMarker is blstrs' Gt::generator(), e(g1, g2), which bellperson's
// PairingChecks uses to mean 1: a check whose right side is it is left
// unscaled, and merging it leaves the accumulated right side alone.
// TestGTMarkerIsBlstrsGenerator pins it to blstrs' constant.
var gtMarker = sync.OnceValue(func() bls12381.GT {
	_, _, g1, g2 := bls12381.Generators()
	e, _ := bls12381.Pair([]bls12381.G1Affine{g1}, []bls12381.G2Affine{g2}) // lengths match
	return e
})

// pairingChecks is bellperson's PairingChecks: equations
// Π e(p_i, q_i) = out merged into one, each but one scaled by its own
// random coefficient ρ (p_i ↦ ρ·p_i, out ↦ out^ρ), so that one Miller loop
// and one final exponentiation check all of them; a false equation makes
// the merged one false except with probability about 1/r. A check that
// needs no pairing (MIPP's final z) invalidates the whole instead.
type pairingChecks struct {
	rng   io.Reader
	g1    []bls12381.G1Affine
	g2    []bls12381.G2Affine
	right bls12381.GT // the product of the right sides, gtMarker standing for 1
	valid bool
	// nonRandom: bellperson allows one unscaled check, the Groth16
	// equation, merged last.
	nonRandom bool
}

func newPairingChecks(rng io.Reader) *pairingChecks {
	return &pairingChecks{rng: rng, right: gtMarker(), valid: true}
}

// invalidate fails the whole check (bellperson's invalidate).
func (pc *pairingChecks) invalidate() { pc.valid = false }

// randomScalar is bellperson's derive_non_zero: a uniform scalar until
// non-zero. It reduces 64 bytes mod r where blstrs' Scalar::random rejects
// 255-bit draws ≥ r; both are uniform to within 2^-128, which is all the
// merge needs.
func randomScalar(rng io.Reader) (fr.Element, error) {
	var b [2 * fr.Bytes]byte
	for {
		if _, err := io.ReadFull(rng, b[:]); err != nil {
			return fr.Element{}, fmt.Errorf("aggregate: verifier randomness: %w", err)
		}
		var x fr.Element
		x.SetBytes(b[:])
		if !x.IsZero() {
			return x, nil
		}
	}
}

// mergeRandom adds Π e(ps_i, qs_i) = out under a fresh coefficient; out nil
// stands for 1 (bellperson passes Gt::generator(), its marker for 1).
func (pc *pairingChecks) mergeRandom(ps []bls12381.G1Affine, qs []bls12381.G2Affine, out *bls12381.GT) error {
	if len(ps) != len(qs) {
		return lengthError("pairing check", len(ps), len(qs))
	}
	if pc.nonRandom {
		return fmt.Errorf("aggregate: pairing check merged after the unscaled one: %w", ErrInput)
	}
	rho, err := randomScalar(pc.rng)
	if err != nil {
		return err
	}
	var e big.Int
	rho.BigInt(&e)
	for i := range ps {
		var p bls12381.G1Affine
		p.ScalarMultiplication(&ps[i], &e)
		pc.g1 = append(pc.g1, p)
		pc.g2 = append(pc.g2, qs[i])
	}
	if out == nil {
		return nil
	}
	marker := gtMarker()
	if out.Equal(&marker) {
		// bellperson skips 1^ρ, and out is its marker for 1.
		return nil
	}
	var r bls12381.GT
	r.ExpGLV(*out, &e) // out is in GT: Decode and Verify check every GT element
	pc.mergeRight(&r)
	return nil
}

// mergeNonRandom adds the one unscaled check, Π e(ps_i, qs_i) = out
// (bellperson's merge_nonrandom).
func (pc *pairingChecks) mergeNonRandom(ps []bls12381.G1Affine, qs []bls12381.G2Affine, out *bls12381.GT) error {
	if len(ps) != len(qs) {
		return lengthError("pairing check", len(ps), len(qs))
	}
	if pc.nonRandom {
		return fmt.Errorf("aggregate: second unscaled pairing check: %w", ErrInput)
	}
	pc.nonRandom = true
	pc.g1 = append(pc.g1, ps...)
	pc.g2 = append(pc.g2, qs...)
	pc.mergeRight(out)
	return nil
}

// mergeRight is bellperson's add_if_not_one_gt: the marker counts as 1 on
// either side.
func (pc *pairingChecks) mergeRight(x *bls12381.GT) {
	marker := gtMarker()
	switch {
	case pc.right.Equal(&marker):
		pc.right = *x
	case x.Equal(&marker):
	default:
		pc.right.Mul(&pc.right, x)
	}
}

// verify is the merged check: the final exponentiation of all Miller loops
// against the product of the right sides.
func (pc *pairingChecks) verify() (bool, error) {
	if !pc.valid {
		return false, nil
	}
	left, err := pairingProduct(pc.g1, pc.g2, "merged pairing checks")
	if err != nil {
		return false, err
	}
	return left.Equal(&pc.right), nil
}
