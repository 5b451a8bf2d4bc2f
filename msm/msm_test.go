package msm_test

import (
	"context"
	"fmt"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/consensys/gnark-crypto/ecc"
	bls12381 "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuc2/gpuc2/msm"
)

// testScalars mixes random scalars with the values MSMs get wrong: 0, 1, r−1.
func testScalars(rng *rand.Rand, n int) []fr.Element {
	s := make([]fr.Element, n)
	for i := range s {
		switch rng.IntN(6) {
		case 0:
		case 1:
			s[i].SetOne()
		case 2:
			s[i].SetOne()
			s[i].Neg(&s[i])
		default:
			s[i].SetUint64(rng.Uint64())
			s[i].Mul(&s[i], &s[i]).Mul(&s[i], &s[i])
		}
	}
	return s
}

// testPointsG1 returns points with repeats and the point at infinity mixed in.
func testPointsG1(rng *rand.Rand, n int) []bls12381.G1Affine {
	_, _, g1, _ := bls12381.Generators()
	p := make([]bls12381.G1Affine, n)
	for i := range p {
		switch {
		case i > 0 && rng.IntN(5) == 0:
			p[i] = p[rng.IntN(i)]
		case rng.IntN(9) == 0: // infinity: zero value
		default:
			p[i].ScalarMultiplication(&g1, big.NewInt(int64(rng.Uint32())+1))
		}
	}
	return p
}

func testPointsG2(rng *rand.Rand, n int) []bls12381.G2Affine {
	_, _, _, g2 := bls12381.Generators()
	p := make([]bls12381.G2Affine, n)
	for i := range p {
		switch {
		case i > 0 && rng.IntN(5) == 0:
			p[i] = p[rng.IntN(i)]
		case rng.IntN(9) == 0:
		default:
			p[i].ScalarMultiplication(&g2, big.NewInt(int64(rng.Uint32())+1))
		}
	}
	return p
}

func naiveG1(points []bls12381.G1Affine, scalars []fr.Element) bls12381.G1Jac {
	var acc bls12381.G1Jac
	for i := range points {
		var t bls12381.G1Affine
		t.ScalarMultiplication(&points[i], scalars[i].BigInt(new(big.Int)))
		acc.AddMixed(&t)
	}
	return acc
}

func naiveG2(points []bls12381.G2Affine, scalars []fr.Element) bls12381.G2Jac {
	var acc bls12381.G2Jac
	for i := range points {
		var t bls12381.G2Affine
		t.ScalarMultiplication(&points[i], scalars[i].BigInt(new(big.Int)))
		acc.AddMixed(&t)
	}
	return acc
}

// randomDensity sets about half the bits of an n-bit mask.
func randomDensity(rng *rand.Rand, n int) *msm.Density {
	d := &msm.Density{Words: make([]uint64, (n+63)/64), Len: n}
	for i := 0; i < n; i++ {
		if rng.IntN(2) == 0 {
			d.Words[i/64] |= 1 << (i % 64)
		}
	}
	return d
}

func TestCPUMatchesNaive(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	ctx := context.Background()
	for _, n := range []int{1, 2, 3, 63, 64, 65, 257} {
		t.Run(fmt.Sprintf("n=%d", n), func(t *testing.T) {
			p1, p2, s := testPointsG1(rng, n), testPointsG2(rng, n), testScalars(rng, n)
			got1, err := msm.CPU{}.G1(ctx, p1, s, nil)
			require.NoError(t, err)
			want1 := naiveG1(p1, s)
			assert.True(t, got1.Equal(&want1), "G1")
			got2, err := msm.CPU{}.G2(ctx, p2, s, nil)
			require.NoError(t, err)
			want2 := naiveG2(p2, s)
			assert.True(t, got2.Equal(&want2), "G2")

			// With a density mask the bases hold one point per set bit.
			d := randomDensity(rng, n)
			var sel []fr.Element
			for i := 0; i < n; i++ {
				if d.Test(i) {
					sel = append(sel, s[i])
				}
			}
			got1, err = msm.CPU{}.G1(ctx, p1[:len(sel)], s, d)
			require.NoError(t, err)
			want1 = naiveG1(p1[:len(sel)], sel)
			assert.True(t, got1.Equal(&want1), "G1 with density")
			got2, err = msm.CPU{}.G2(ctx, p2[:len(sel)], s, d)
			require.NoError(t, err)
			want2 = naiveG2(p2[:len(sel)], sel)
			assert.True(t, got2.Equal(&want2), "G2 with density")
		})
	}
}

// Inputs larger than one call's budget are summed over several calls, with
// the same result as one gnark-crypto call.
func TestCPUSlicedMatchesOneCall(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	ctx := context.Background()
	const n = 5000 // the first call takes about 1024 full-width scalars
	p1, p2, s := testPointsG1(rng, n), testPointsG2(rng, n), testScalars(rng, n)
	got1, err := msm.CPU{}.G1(ctx, p1, s, nil)
	require.NoError(t, err)
	var want1 bls12381.G1Jac
	_, err = want1.MultiExp(p1, s, ecc.MultiExpConfig{})
	require.NoError(t, err)
	assert.True(t, got1.Equal(&want1), "G1")
	got2, err := msm.CPU{}.G2(ctx, p2, s, nil)
	require.NoError(t, err)
	var want2 bls12381.G2Jac
	_, err = want2.MultiExp(p2, s, ecc.MultiExpConfig{})
	require.NoError(t, err)
	assert.True(t, got2.Equal(&want2), "G2")

	d := randomDensity(rng, n)
	var sel []fr.Element
	for i := range n {
		if d.Test(i) {
			sel = append(sel, s[i])
		}
	}
	got1, err = msm.CPU{}.G1(ctx, p1[:len(sel)], s, d)
	require.NoError(t, err)
	_, err = want1.MultiExp(p1[:len(sel)], sel, ecc.MultiExpConfig{})
	require.NoError(t, err)
	assert.True(t, got1.Equal(&want1), "G1 with density")
}

func TestCPURejectsMismatch(t *testing.T) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(3, 4))
	p, s := testPointsG1(rng, 4), testScalars(rng, 5)
	_, err := msm.CPU{}.G1(ctx, p, s, nil)
	assert.ErrorIs(t, err, msm.ErrLengthMismatch)

	d := &msm.Density{Words: []uint64{0b1011}, Len: 5} // 3 bits for 4 bases
	_, err = msm.CPU{}.G1(ctx, p, s, d)
	assert.ErrorIs(t, err, msm.ErrLengthMismatch)

	d = &msm.Density{Words: []uint64{0b1100111}, Len: 5} // bit 6 beyond Len
	_, err = msm.CPU{}.G1(ctx, p, s, d)
	assert.ErrorIs(t, err, msm.ErrLengthMismatch)

	d = &msm.Density{Words: nil, Len: 5}
	_, err = msm.CPU{}.G2(ctx, nil, s, d)
	assert.ErrorIs(t, err, msm.ErrLengthMismatch)
}

func TestCPUCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	rng := rand.New(rand.NewPCG(5, 6))
	_, err := msm.CPU{}.G1(ctx, testPointsG1(rng, 8), testScalars(rng, 8), nil)
	assert.ErrorIs(t, err, context.Canceled)
}

func TestFixedBaseMatchesScalarMultiplication(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	ctx := context.Background()
	_, _, g1, g2 := bls12381.Generators()
	for _, n := range []int{1, 5, 300} {
		s := testScalars(rng, n)
		got1, err := msm.FixedBaseG1(ctx, &g1, s)
		require.NoError(t, err)
		got2, err := msm.FixedBaseG2(ctx, &g2, s)
		require.NoError(t, err)
		for i := range s {
			var w1 bls12381.G1Affine
			w1.ScalarMultiplication(&g1, s[i].BigInt(new(big.Int)))
			require.True(t, got1[i].Equal(&w1), "G1 n=%d i=%d", n, i)
			var w2 bls12381.G2Affine
			w2.ScalarMultiplication(&g2, s[i].BigInt(new(big.Int)))
			require.True(t, got2[i].Equal(&w2), "G2 n=%d i=%d", n, i)
		}
	}
}
