package aggregate

import (
	"fmt"
	"math/big"
	"slices"

	bls12381 "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/consensys/gnark-crypto/parallel"
)

// CommitSingleG1 is bellperson's commit::single_g1, the commitment to C:
// (Π e(a_i, v1_i), Π e(a_i, v2_i)) with v1 = vk.A, v2 = vk.B.
func CommitSingleG1(vk *VKey, a []bls12381.G1Affine) (Commitment, error) {
	var c Commitment
	var err error
	if c[0], err = pairingProduct(a, vk.A, "single commitment: A and v1"); err != nil {
		return c, err
	}
	if c[1], err = pairingProduct(a, vk.B, "single commitment: A and v2"); err != nil {
		return c, err
	}
	return c, nil
}

// CommitPair is bellperson's commit::pair, the commitment to A and B:
// (Π e(a_i, v1_i)·e(w1_i, b_i), Π e(a_i, v2_i)·e(w2_i, b_i)) with v1, v2 =
// vk.A, vk.B and w1, w2 = wk.A, wk.B. The w key pairs on the left, with the
// G2 vector. Lengths are checked pairwise as bellperson's four pairings
// check them; each half is then one product of Miller loops.
func CommitPair(vk *VKey, wk *WKey, a []bls12381.G1Affine, b []bls12381.G2Affine) (Commitment, error) {
	for _, l := range []struct {
		what string
		x, y int
	}{
		{"pair commitment: A and v1", len(a), len(vk.A)},
		{"pair commitment: w1 and B", len(wk.A), len(b)},
		{"pair commitment: A and v2", len(a), len(vk.B)},
		{"pair commitment: w2 and B", len(wk.B), len(b)},
	} {
		if l.x != l.y {
			return Commitment{}, lengthError(l.what, l.x, l.y)
		}
	}
	var c Commitment
	var err error
	if c[0], err = pairingProduct(slices.Concat(a, wk.A), slices.Concat(vk.A, b), "pair commitment: T"); err != nil {
		return c, err
	}
	if c[1], err = pairingProduct(slices.Concat(a, wk.B), slices.Concat(vk.B, b), "pair commitment: U"); err != nil {
		return c, err
	}
	return c, nil
}

// check refuses a key whose halves differ in length, where bellperson's
// zips would silently drop the excess.
func (k *Key[P]) check(what string) error {
	if len(k.A) != len(k.B) {
		return lengthError(what+": key halves A and B", len(k.A), len(k.B))
	}
	return nil
}

// HasCorrectLen is bellperson's has_correct_len: both halves hold n points,
// as GIPA needs one key point per proof.
func (k *Key[P]) HasCorrectLen(n int) bool {
	return len(k.A) == n && len(k.B) == n
}

// Scale is bellperson's Key::scale: (s_i·A_i, s_i·B_i) for each i.
func (k *Key[P]) Scale(s []fr.Element) (Key[P], error) {
	if err := k.check("scaling commitment key"); err != nil {
		return Key[P]{}, err
	}
	if len(k.A) != len(s) {
		return Key[P]{}, lengthError("scaling commitment key: key and scalars", len(k.A), len(s))
	}
	out := Key[P]{A: make([]P, len(s)), B: make([]P, len(s))}
	parallel.Execute(len(s), func(lo, hi int) {
		var e big.Int
		for i := lo; i < hi; i++ {
			s[i].BigInt(&e)
			out.A[i] = mulAdd(nil, &k.A[i], &e)
			out.B[i] = mulAdd(nil, &k.B[i], &e)
		}
	})
	return out, nil
}

// Compress is bellperson's Key::compress, GIPA's key folding:
// (k.A_i + scale·right.A_i, k.B_i + scale·right.B_i) for each i.
func (k *Key[P]) Compress(right *Key[P], scale *fr.Element) (Key[P], error) {
	if err := k.check("compressing commitment key: left"); err != nil {
		return Key[P]{}, err
	}
	if err := right.check("compressing commitment key: right"); err != nil {
		return Key[P]{}, err
	}
	if len(k.A) != len(right.A) {
		return Key[P]{}, lengthError("compressing commitment key: left and right", len(k.A), len(right.A))
	}
	var e big.Int
	scale.BigInt(&e)
	out := Key[P]{A: make([]P, len(k.A)), B: make([]P, len(k.A))}
	parallel.Execute(len(k.A), func(lo, hi int) {
		for i := lo; i < hi; i++ {
			out.A[i] = mulAdd(&k.A[i], &right.A[i], &e)
			out.B[i] = mulAdd(&k.B[i], &right.B[i], &e)
		}
	})
	return out, nil
}

// Split is bellperson's Key::split: points [0, at) and [at, len). The
// halves share k's arrays, capped so that appending to the left one cannot
// overwrite the right one; Scale and Compress never write in place.
func (k *Key[P]) Split(at int) (left, right Key[P], err error) {
	if err := k.check("splitting commitment key"); err != nil {
		return left, right, err
	}
	if at < 0 || at > len(k.A) {
		return left, right, fmt.Errorf("aggregate: splitting commitment key of %d points at %d: %w", len(k.A), at, ErrInput)
	}
	left = Key[P]{A: k.A[:at:at], B: k.B[:at:at]}
	right = Key[P]{A: k.A[at:], B: k.B[at:]}
	return left, right, nil
}

// First is bellperson's Key::first, (A_0, B_0): the final key once GIPA has
// folded it to one point.
func (k *Key[P]) First() (a, b P, err error) {
	if len(k.A) == 0 || len(k.B) == 0 {
		return a, b, fmt.Errorf("aggregate: first point of an empty commitment key (%d and %d points): %w", len(k.A), len(k.B), ErrInput)
	}
	return k.A[0], k.B[0], nil
}

// mulAdd returns l + s·r in P's group; l nil gives s·r. The union
// constraint allows no method calls, hence the switch.
func mulAdd[P bls12381.G1Affine | bls12381.G2Affine](l, r *P, s *big.Int) P {
	var out P
	switch o := any(&out).(type) {
	case *bls12381.G1Affine:
		o.ScalarMultiplication(any(r).(*bls12381.G1Affine), s)
		if l != nil {
			o.Add(o, any(l).(*bls12381.G1Affine))
		}
	case *bls12381.G2Affine:
		o.ScalarMultiplication(any(r).(*bls12381.G2Affine), s)
		if l != nil {
			o.Add(o, any(l).(*bls12381.G2Affine))
		}
	}
	return out
}
