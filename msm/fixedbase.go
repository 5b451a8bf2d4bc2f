package msm

import (
	"context"

	bls12381 "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/gpuc2/gpuc2/internal/par"
)

// Fixed-base batch scalar multiplication: k·P for one base P and many k, as a
// trusted setup needs. A table of d·2^(w·j)·P for every w-bit window j and
// digit 1 ≤ d ≤ 2^(w−1) turns each product into one addition or subtraction
// per window (15 for w = 17), the scalars recoded into signed digits. The
// additions run in affine coordinates, a window's worth of them at a time,
// so that one field inversion serves them all (see below): about half the
// field multiplications of Jacobian mixed additions, and the results need no
// conversion to affine form.
//
// Batched affine addition. The chord rule
//
//	λ = (y2 − y1)/(x2 − x1), x3 = λ² − x1 − x2, y3 = λ·(x1 − x3) − y1
//
// needs one inversion per addition; Montgomery's trick inverts a whole batch
// of x2 − x1 with one inversion and three multiplications per element, so an
// addition costs about six multiplications against eleven for a Jacobian
// mixed addition. The chord rule fails for x1 = x2 (a doubling, or P + (−P))
// and for the point at infinity (the zero affine point, as in gnark-crypto):
// affineAdderG1 and G2 do those at once with gnark-crypto's complete affine
// Add.
//
// The code of each group (FixedBaseG1 and G2, their tables, combs and
// adders) is generated from one template, internal/gen/fixedbase.go.tmpl,
// into fixedbase_g1.go and fixedbase_g2.go (internal/gen says why not
// generics); the test of internal/gen fails when they are stale.
//go:generate go run ./internal/gen

// FixedBaseEngine computes fixed-base batches: scalars[i]·base for every i,
// in affine form (a trusted setup's query points). CPU implements it with
// FixedBaseG1 and FixedBaseG2; msm/cuda's Engine on a GPU. The results do
// not depend on the engine.
type FixedBaseEngine interface {
	FixedBaseG1(ctx context.Context, base *bls12381.G1Affine, scalars []fr.Element) ([]bls12381.G1Affine, error)
	FixedBaseG2(ctx context.Context, base *bls12381.G2Affine, scalars []fr.Element) ([]bls12381.G2Affine, error)
}

var _ FixedBaseEngine = CPU{}

// FixedBaseG1 implements FixedBaseEngine: it is the package's FixedBaseG1
// (on every core; Workers does not bound it).
func (CPU) FixedBaseG1(ctx context.Context, base *bls12381.G1Affine, scalars []fr.Element) ([]bls12381.G1Affine, error) {
	return FixedBaseG1(ctx, base, scalars)
}

// FixedBaseG2 implements FixedBaseEngine: it is the package's FixedBaseG2.
func (CPU) FixedBaseG2(ctx context.Context, base *bls12381.G2Affine, scalars []fr.Element) ([]bls12381.G2Affine, error) {
	return FixedBaseG2(ctx, base, scalars)
}

// maxFixedBaseWindow keeps the table near 2^20 points (96 MiB in G1).
const maxFixedBaseWindow = 17

// fixedBaseWindows is the number of w-bit signed digits of a scalar below
// r/2 < 2^254 (see signedDigits).
func fixedBaseWindows(w uint) int {
	return (fr.Bits - 1 + int(w) - 1) / int(w)
}

// fixedBaseWindow picks the window minimizing table size plus additions
// (both cost about one batched affine addition per point; a scalar's first
// digit is a copy).
func fixedBaseWindow(n int) uint {
	best, bestCost := uint(4), -1
	for w := uint(4); w <= maxFixedBaseWindow; w++ {
		windows := fixedBaseWindows(w)
		cost := windows<<(w-1) + n*(windows-1)
		if bestCost < 0 || cost < bestCost {
			best, bestCost = w, cost
		}
	}
	return best
}

// digit returns the w-bit window j of the canonical scalar limbs.
func digit(limbs *[4]uint64, j, w uint) uint64 {
	bit := j * w
	word, shift := bit/64, bit%64
	if word >= 4 {
		return 0
	}
	d := limbs[word] >> shift
	if shift+w > 64 && word+1 < 4 {
		d |= limbs[word+1] << (64 - shift)
	}
	return d & (1<<w - 1)
}

// signedDigits returns digits[j·n+i] = d_j of scalars[i] = k, n scalars,
// with k = Σ d_j·2^(w·j) and |d_j| ≤ 2^(w−1): the table then needs half the
// multiples, and a negative digit subtracts, negating the point for free.
// A k above r/2 is recoded as −(r−k), so that the top window (bits below
// 254) cannot carry out.
func signedDigits(scalars []fr.Element, w uint) []int32 {
	windows := fixedBaseWindows(w)
	n := len(scalars)
	digits := make([]int32, windows*n)
	half := uint64(1) << (w - 1)
	for i := range scalars {
		k, sign := scalars[i], int32(1)
		if k.LexicographicallyLargest() {
			k.Neg(&k)
			sign = -1
		}
		limbs := [4]uint64(k.Bits())
		carry := uint64(0)
		for j := range windows {
			v := digit(&limbs, uint(j), w) + carry
			d := int32(v)
			carry = 0
			if v > half {
				d -= 1 << w
				carry = 1
			}
			digits[j*n+i] = sign * d
		}
	}
	return digits
}

// parallelChunks runs f over [0,n) split into chunks, stopping at ctx's end.
func parallelChunks(ctx context.Context, n, chunk int, f func(lo, hi int)) error {
	return par.Chunks(ctx, n, chunk, func(lo, hi int) error {
		f(lo, hi)
		return nil
	})
}

// fixedBaseChunk is the number of scalars one goroutine takes at a time, and
// so the number of affine additions that share an inversion: small enough
// that a window's warmed table points stay in cache until used (64 KiB in
// G1), large enough that the inversion is about 2 % of the batch.
const fixedBaseChunk = 1 << 9

func abs(d int32) int32 {
	if d < 0 {
		return -d
	}
	return d
}
