package msm

import (
	"context"
	"math/big"
	"math/rand/v2"
	"testing"

	bls12381 "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/stretchr/testify/require"
)

// mulG1 and mulG2 return k·P through gnark-crypto's Jacobian arithmetic:
// the reference the affine code is checked against.
func mulG1(p *bls12381.G1Affine, k int64) bls12381.G1Affine {
	var out bls12381.G1Affine
	out.ScalarMultiplication(p, big.NewInt(k))
	return out
}

func mulG2(p *bls12381.G2Affine, k int64) bls12381.G2Affine {
	var out bls12381.G2Affine
	out.ScalarMultiplication(p, big.NewInt(k))
	return out
}

// The comb never meets x1 = x2: before window j a lane holds S·P with
// |S| < 2^(w·j) ≤ |d|·2^(w·j) for the digit d it adds, and the recoding of
// scalars below r/2 keeps |S| + |d|·2^(w·j) < r, so S ≢ ±d·2^(w·j) mod r.
// The adder's fallbacks are checked here instead: one batch mixing
// doublings, P + (−P), infinity on either side and plain additions and
// subtractions.
var adderCases = []struct {
	acc, p int64
	neg    bool // subtract p
}{
	{3, 5, false},   // plain
	{7, 7, false},   // doubling
	{4, -4, false},  // opposite: infinity
	{0, 9, false},   // acc at infinity: copy
	{6, 0, false},   // adding infinity: no change
	{0, 0, false},   // both at infinity
	{11, 2, false},  // plain
	{-5, -5, false}, // doubling
	{3, 5, true},    // plain subtraction
	{7, -7, true},   // doubling
	{4, 4, true},    // opposite: infinity
	{0, 9, true},    // acc at infinity: copy of −p
	{6, 0, true},    // subtracting infinity: no change
	{1, 8, false},   // plain
}

// sum is what a case must leave in acc.
func sum(acc, p int64, neg bool) int64 {
	if neg {
		return acc - p
	}
	return acc + p
}

func TestAffineAdderEdgeCasesG1(t *testing.T) {
	_, _, g, _ := bls12381.Generators()
	var adder affineAdderG1
	for round := range 2 { // the second reuses the adder's buffers
		acc := make([]bls12381.G1Affine, len(adderCases))
		pts := make([]bls12381.G1Affine, len(adderCases))
		for i, c := range adderCases {
			acc[i] = mulG1(&g, c.acc)
			pts[i] = mulG1(&g, c.p)
			adder.add(&acc[i], &pts[i], c.neg)
		}
		adder.flush()
		for i, c := range adderCases {
			want := mulG1(&g, sum(c.acc, c.p, c.neg))
			require.True(t, acc[i].Equal(&want), "round %d: case %+v", round, c)
		}
	}
}

func TestAffineAdderEdgeCasesG2(t *testing.T) {
	_, _, _, g := bls12381.Generators()
	var adder affineAdderG2
	for round := range 2 {
		acc := make([]bls12381.G2Affine, len(adderCases))
		pts := make([]bls12381.G2Affine, len(adderCases))
		for i, c := range adderCases {
			acc[i] = mulG2(&g, c.acc)
			pts[i] = mulG2(&g, c.p)
			adder.add(&acc[i], &pts[i], c.neg)
		}
		adder.flush()
		for i, c := range adderCases {
			want := mulG2(&g, sum(c.acc, c.p, c.neg))
			require.True(t, acc[i].Equal(&want), "round %d: case %+v", round, c)
		}
	}
}

// An empty flush inverts nothing.
func TestAffineAdderEmptyFlush(t *testing.T) {
	var a1 affineAdderG1
	a1.flush()
	var a2 affineAdderG2
	a2.flush()
}

// Every table entry of a small window, and the first, middle and last
// digits of every window at w = 17 (the setup's window).
func TestFixedBaseTable(t *testing.T) {
	ctx := context.Background()
	_, _, g1, g2 := bls12381.Generators()
	for _, w := range []uint{5, 17} {
		table, err := fixedBaseTableG1(ctx, &g1, w)
		require.NoError(t, err)
		checkTable(t, w, func(i int, k *big.Int) bool {
			var want bls12381.G1Affine
			want.ScalarMultiplication(&g1, k)
			return table[i].Equal(&want)
		})
	}
	for _, w := range []uint{5, 11} {
		table, err := fixedBaseTableG2(ctx, &g2, w)
		require.NoError(t, err)
		checkTable(t, w, func(i int, k *big.Int) bool {
			var want bls12381.G2Affine
			want.ScalarMultiplication(&g2, k)
			return table[i].Equal(&want)
		})
	}
}

// checkTable asks equal(j·(2^(w−1)+1)+d, d·2^(w·j)) for the digits d it
// samples.
func checkTable(t *testing.T, w uint, equal func(i int, k *big.Int) bool) {
	t.Helper()
	half := 1 << (w - 1)
	for j := range fixedBaseWindows(w) {
		for d := 1; d <= half; d++ {
			if w > 8 && d > 3 && d != half/2 && d < half-1 {
				continue
			}
			k := new(big.Int).Lsh(big.NewInt(int64(d)), uint(j)*w)
			require.True(t, equal(j*(half+1)+d, k), "w=%d window %d digit %d", w, j, d)
		}
	}
}

// signedDigits sum back to the scalar, each within the table's range.
func TestSignedDigits(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 16))
	s := make([]fr.Element, 200)
	for i := range s {
		s[i].SetRandom()
	}
	r := fr.Modulus()
	half := new(big.Int).Rsh(r, 1)
	for _, k := range []*big.Int{big.NewInt(0), big.NewInt(1), new(big.Int).Sub(r, big.NewInt(1)), half, new(big.Int).Add(half, big.NewInt(1))} {
		s[rng.IntN(len(s))].SetBigInt(k)
	}
	for w := uint(4); w <= maxFixedBaseWindow; w++ {
		digits := signedDigits(s, w)
		windows := fixedBaseWindows(w)
		require.Len(t, digits, windows*len(s))
		for i := range s {
			sum := new(big.Int)
			for j := windows - 1; j >= 0; j-- {
				d := digits[j*len(s)+i]
				require.LessOrEqual(t, abs(d), int32(1)<<(w-1), "w=%d", w)
				sum.Lsh(sum, w).Add(sum, big.NewInt(int64(d)))
			}
			sum.Mod(sum, r)
			require.Zero(t, sum.Cmp(s[i].BigInt(new(big.Int))), "w=%d i=%d", w, i)
		}
	}
}

// The comb at window sizes where digits straddle limbs (5, 13, 17) or not
// (16).
func TestCombWindowSizes(t *testing.T) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(13, 14))
	_, _, g1, g2 := bls12381.Generators()
	s := make([]fr.Element, 50)
	for i := range s {
		s[i].SetUint64(rng.Uint64())
		s[i].Mul(&s[i], &s[i]).Mul(&s[i], &s[i]).Mul(&s[i], &s[i])
	}
	s[0].SetZero()
	s[1].SetOne()
	s[2].Neg(&s[1])
	for _, w := range []uint{5, 13, 16, 17} {
		table, err := fixedBaseTableG1(ctx, &g1, w)
		require.NoError(t, err)
		acc := make([]bls12381.G1Affine, len(s))
		combG1(acc, s, table, w)
		for i := range s {
			var want bls12381.G1Affine
			want.ScalarMultiplication(&g1, s[i].BigInt(new(big.Int)))
			require.True(t, acc[i].Equal(&want), "G1 w=%d i=%d", w, i)
		}
	}
	for _, w := range []uint{5, 13} {
		table, err := fixedBaseTableG2(ctx, &g2, w)
		require.NoError(t, err)
		acc := make([]bls12381.G2Affine, len(s))
		combG2(acc, s, table, w)
		for i := range s {
			var want bls12381.G2Affine
			want.ScalarMultiplication(&g2, s[i].BigInt(new(big.Int)))
			require.True(t, acc[i].Equal(&want), "G2 w=%d i=%d", w, i)
		}
	}
}
