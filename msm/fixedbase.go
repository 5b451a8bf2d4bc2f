package msm

import (
	"context"

	bls12381 "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/gpuc2/gpuc2/internal/par"
)

// Fixed-base batch scalar multiplication: k·P for one base P and many k, as a
// trusted setup needs. A table of d·2^(w·j)·P for every w-bit window j and
// digit d turns each product into one mixed addition per window (16 for
// w = 16), several times faster than a double-and-add per scalar.

// fixedBaseWindow picks the window minimizing table size plus additions.
func fixedBaseWindow(n int) uint {
	best, bestCost := uint(4), -1
	for w := uint(4); w <= 16; w++ {
		windows := (fr.Bits + int(w) - 1) / int(w)
		cost := windows*(1<<w) + n*windows
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

// parallelChunks runs f over [0,n) split into chunks, stopping at ctx's end.
func parallelChunks(ctx context.Context, n, chunk int, f func(lo, hi int)) error {
	return par.Chunks(ctx, n, chunk, func(lo, hi int) error {
		f(lo, hi)
		return nil
	})
}

const fixedBaseChunk = 1 << 12

// FixedBaseG1 returns scalars[i]·base for every i, in affine form.
func FixedBaseG1(ctx context.Context, base *bls12381.G1Affine, scalars []fr.Element) ([]bls12381.G1Affine, error) {
	w := fixedBaseWindow(len(scalars))
	windows := (fr.Bits + w - 1) / w
	size := 1 << w
	// table[j*size+d] = d·2^(w·j)·base (d = 0 is unused).
	table := make([]bls12381.G1Affine, int(windows)*size)
	err := parallelChunks(ctx, int(windows), 1, func(lo, hi int) {
		var start bls12381.G1Jac
		start.FromAffine(base)
		for k := 0; k < lo*int(w); k++ {
			start.DoubleAssign()
		}
		row := make([]bls12381.G1Jac, size)
		var acc bls12381.G1Jac
		for d := 1; d < size; d++ {
			acc.AddAssign(&start)
			row[d] = acc
		}
		copy(table[lo*size+1:(lo+1)*size], bls12381.BatchJacobianToAffineG1(row[1:]))
	})
	if err != nil {
		return nil, err
	}
	out := make([]bls12381.G1Affine, len(scalars))
	err = parallelChunks(ctx, len(scalars), fixedBaseChunk, func(lo, hi int) {
		jac := make([]bls12381.G1Jac, hi-lo)
		for i := lo; i < hi; i++ {
			limbs := [4]uint64(scalars[i].Bits())
			var acc bls12381.G1Jac // zero value: infinity
			for j := uint(0); j < windows; j++ {
				if d := digit(&limbs, j, w); d != 0 {
					acc.AddMixed(&table[int(j)*size+int(d)])
				}
			}
			jac[i-lo] = acc
		}
		copy(out[lo:hi], bls12381.BatchJacobianToAffineG1(jac))
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// FixedBaseG2 returns scalars[i]·base for every i, in affine form.
func FixedBaseG2(ctx context.Context, base *bls12381.G2Affine, scalars []fr.Element) ([]bls12381.G2Affine, error) {
	w := fixedBaseWindow(len(scalars))
	windows := (fr.Bits + w - 1) / w
	size := 1 << w
	table := make([]bls12381.G2Affine, int(windows)*size)
	err := parallelChunks(ctx, int(windows), 1, func(lo, hi int) {
		var start bls12381.G2Jac
		start.FromAffine(base)
		for k := 0; k < lo*int(w); k++ {
			start.DoubleAssign()
		}
		row := make([]bls12381.G2Jac, size)
		var acc bls12381.G2Jac
		for d := 1; d < size; d++ {
			acc.AddAssign(&start)
			row[d] = acc
		}
		batchToAffineG2(table[lo*size+1:(lo+1)*size], row[1:])
	})
	if err != nil {
		return nil, err
	}
	out := make([]bls12381.G2Affine, len(scalars))
	err = parallelChunks(ctx, len(scalars), fixedBaseChunk, func(lo, hi int) {
		jac := make([]bls12381.G2Jac, hi-lo)
		for i := lo; i < hi; i++ {
			limbs := [4]uint64(scalars[i].Bits())
			var acc bls12381.G2Jac
			for j := uint(0); j < windows; j++ {
				if d := digit(&limbs, j, w); d != 0 {
					acc.AddMixed(&table[int(j)*size+int(d)])
				}
			}
			jac[i-lo] = acc
		}
		batchToAffineG2(out[lo:hi], jac)
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// batchToAffineG2 converts with one field inversion for the whole batch
// (Montgomery's trick); points at infinity map to the zero affine point.
func batchToAffineG2(dst []bls12381.G2Affine, src []bls12381.G2Jac) {
	prefix := make([]bls12381.E2, len(src))
	var acc bls12381.E2
	acc.SetOne()
	for i := range src {
		prefix[i] = acc
		if !src[i].Z.IsZero() {
			acc.Mul(&acc, &src[i].Z)
		}
	}
	acc.Inverse(&acc)
	var zinv, zz bls12381.E2
	for i := len(src) - 1; i >= 0; i-- {
		if src[i].Z.IsZero() {
			dst[i] = bls12381.G2Affine{}
			continue
		}
		zinv.Mul(&acc, &prefix[i])
		acc.Mul(&acc, &src[i].Z)
		zz.Square(&zinv)
		dst[i].X.Mul(&src[i].X, &zz)
		zz.Mul(&zz, &zinv)
		dst[i].Y.Mul(&src[i].Y, &zz)
	}
}
