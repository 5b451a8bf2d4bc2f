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
// so that one field inversion serves them all (see affineAdderG1): about
// half the field multiplications of Jacobian mixed additions, and the
// results need no conversion to affine form.

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

// FixedBaseG1 returns scalars[i]·base for every i, in affine form.
func FixedBaseG1(ctx context.Context, base *bls12381.G1Affine, scalars []fr.Element) ([]bls12381.G1Affine, error) {
	w := fixedBaseWindow(len(scalars))
	table, err := fixedBaseTableG1(ctx, base, w)
	if err != nil {
		return nil, err
	}
	out := make([]bls12381.G1Affine, len(scalars)) // zero value: infinity
	err = parallelChunks(ctx, len(scalars), fixedBaseChunk, func(lo, hi int) {
		combG1(out[lo:hi], scalars[lo:hi], table, w)
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// fixedBaseTableG1 returns table[j·(2^(w−1)+1)+d] = d·2^(w·j)·base for every
// window j and digit 1 ≤ d ≤ 2^(w−1) (d = 0 is unused), one window per task.
func fixedBaseTableG1(ctx context.Context, base *bls12381.G1Affine, w uint) ([]bls12381.G1Affine, error) {
	size := 1<<(w-1) + 1
	table := make([]bls12381.G1Affine, fixedBaseWindows(w)*size)
	err := parallelChunks(ctx, fixedBaseWindows(w), 1, func(lo, hi int) {
		var start bls12381.G1Jac
		start.FromAffine(base)
		for range lo * int(w) {
			start.DoubleAssign()
		}
		row := table[lo*size : (lo+1)*size]
		row[1].FromJacobian(&start)
		multiplesG1(row)
	})
	return table, err
}

// multiplesG1 sets row[d] = d·row[1] for d ≥ 2, doubling the filled prefix
// each round (row[m+i] = row[i] + row[m]) so that a round's additions are
// independent and batch.
func multiplesG1(row []bls12381.G1Affine) {
	var adder affineAdderG1
	for m := 1; m+1 < len(row); m *= 2 {
		for i := 1; i <= m && m+i < len(row); i++ {
			row[m+i] = row[i]
			adder.add(&row[m+i], &row[m], false) // i = m: a doubling
		}
		adder.flush()
	}
}

// combG1 sets acc[i] += scalars[i]·base, the table holding base's multiples
// (see fixedBaseTableG1), one window of all the scalars at a time.
func combG1(acc []bls12381.G1Affine, scalars []fr.Element, table []bls12381.G1Affine, w uint) {
	digits := signedDigits(scalars, w)
	size := 1<<(w-1) + 1
	n := len(acc)
	var adder affineAdderG1
	for j := range fixedBaseWindows(w) {
		row := table[j*size : (j+1)*size]
		window := digits[j*n : (j+1)*n]
		adder.sink ^= warmG1(row, window)
		for i, d := range window {
			if d > 0 {
				adder.add(&acc[i], &row[d], false)
			} else if d < 0 {
				adder.add(&acc[i], &row[-d], true)
			}
		}
		adder.flush()
	}
}

// warmG1 loads the two cache lines of each point the digits select, as
// independent loads the CPU overlaps; the additions' own loads would each
// wait for memory (the table is far larger than the caches).
func warmG1(row []bls12381.G1Affine, digits []int32) uint64 {
	var sink uint64
	for _, d := range digits {
		p := &row[abs(d)]
		sink ^= p.X[0] ^ p.Y[5]
	}
	return sink
}

func abs(d int32) int32 {
	if d < 0 {
		return -d
	}
	return d
}

// FixedBaseG2 returns scalars[i]·base for every i, in affine form.
func FixedBaseG2(ctx context.Context, base *bls12381.G2Affine, scalars []fr.Element) ([]bls12381.G2Affine, error) {
	w := fixedBaseWindow(len(scalars))
	table, err := fixedBaseTableG2(ctx, base, w)
	if err != nil {
		return nil, err
	}
	out := make([]bls12381.G2Affine, len(scalars))
	err = parallelChunks(ctx, len(scalars), fixedBaseChunk, func(lo, hi int) {
		combG2(out[lo:hi], scalars[lo:hi], table, w)
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// fixedBaseTableG2 is fixedBaseTableG1 in G2.
func fixedBaseTableG2(ctx context.Context, base *bls12381.G2Affine, w uint) ([]bls12381.G2Affine, error) {
	size := 1<<(w-1) + 1
	table := make([]bls12381.G2Affine, fixedBaseWindows(w)*size)
	err := parallelChunks(ctx, fixedBaseWindows(w), 1, func(lo, hi int) {
		var start bls12381.G2Jac
		start.FromAffine(base)
		for range lo * int(w) {
			start.DoubleAssign()
		}
		row := table[lo*size : (lo+1)*size]
		row[1].FromJacobian(&start)
		multiplesG2(row)
	})
	return table, err
}

// multiplesG2 is multiplesG1 in G2.
func multiplesG2(row []bls12381.G2Affine) {
	var adder affineAdderG2
	for m := 1; m+1 < len(row); m *= 2 {
		for i := 1; i <= m && m+i < len(row); i++ {
			row[m+i] = row[i]
			adder.add(&row[m+i], &row[m], false)
		}
		adder.flush()
	}
}

// combG2 is combG1 in G2.
func combG2(acc []bls12381.G2Affine, scalars []fr.Element, table []bls12381.G2Affine, w uint) {
	digits := signedDigits(scalars, w)
	size := 1<<(w-1) + 1
	n := len(acc)
	var adder affineAdderG2
	for j := range fixedBaseWindows(w) {
		row := table[j*size : (j+1)*size]
		window := digits[j*n : (j+1)*n]
		adder.sink ^= warmG2(row, window)
		for i, d := range window {
			if d > 0 {
				adder.add(&acc[i], &row[d], false)
			} else if d < 0 {
				adder.add(&acc[i], &row[-d], true)
			}
		}
		adder.flush()
	}
}

// warmG2 is warmG1 for G2 points (three cache lines).
func warmG2(row []bls12381.G2Affine, digits []int32) uint64 {
	var sink uint64
	for _, d := range digits {
		p := &row[abs(d)]
		sink ^= p.X.A0[0] ^ p.Y.A0[0] ^ p.Y.A1[5]
	}
	return sink
}
