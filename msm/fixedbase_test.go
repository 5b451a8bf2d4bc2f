package msm_test

import (
	"context"
	"math/big"
	"math/rand/v2"
	"testing"

	bls12381 "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/stretchr/testify/require"

	"github.com/gpuc2/gpuc2/msm"
)

// edgeScalars are scalars whose windows take extreme values: zero, one, the
// largest scalar, both sides of r/2 (where the recoding negates), single set
// bits at window edges, all ones below them.
func edgeScalars() []fr.Element {
	var s []fr.Element
	add := func(b *big.Int) {
		var e fr.Element
		e.SetBigInt(b)
		s = append(s, e)
	}
	r := fr.Modulus()
	one := big.NewInt(1)
	add(big.NewInt(0))
	add(one)
	add(big.NewInt(2))
	add(new(big.Int).Sub(r, one))
	add(new(big.Int).Sub(r, big.NewInt(2)))
	add(new(big.Int).Rsh(r, 1))
	add(new(big.Int).Add(new(big.Int).Rsh(r, 1), one))
	for _, bit := range []uint{7, 8, 12, 13, 15, 16, 17, 34, 63, 64, 127, 237, 238, 239, 240, 253, 254} {
		p := new(big.Int).Lsh(one, bit)
		add(p)
		add(new(big.Int).Sub(p, one)) // all ones below bit
	}
	return s
}

// checkFixedBase compares FixedBaseG1/G2 with ScalarMultiplication.
func checkFixedBase(t *testing.T, s []fr.Element) {
	t.Helper()
	ctx := context.Background()
	_, _, g1, g2 := bls12381.Generators()
	got1, err := msm.FixedBaseG1(ctx, &g1, s)
	require.NoError(t, err)
	got2, err := msm.FixedBaseG2(ctx, &g2, s)
	require.NoError(t, err)
	require.Len(t, got1, len(s))
	require.Len(t, got2, len(s))
	for i := range s {
		if s[i].IsZero() {
			require.Equal(t, bls12381.G1Affine{}, got1[i], "G1 i=%d: 0·P as the zero point", i)
			require.Equal(t, bls12381.G2Affine{}, got2[i], "G2 i=%d: 0·P as the zero point", i)
		}
		k := s[i].BigInt(new(big.Int))
		var want1 bls12381.G1Affine
		want1.ScalarMultiplication(&g1, k)
		require.True(t, got1[i].Equal(&want1), "G1 n=%d i=%d k=%v", len(s), i, k)
		var want2 bls12381.G2Affine
		want2.ScalarMultiplication(&g2, k)
		require.True(t, got2[i].Equal(&want2), "G2 n=%d i=%d k=%v", len(s), i, k)
	}
}

func TestFixedBaseEdgeScalars(t *testing.T) {
	checkFixedBase(t, edgeScalars())
}

// Sizes around the chunk of scalars one goroutine takes, and empty input.
func TestFixedBaseBatchSizes(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for _, n := range []int{0, 2, 3, 7, 511, 513, 1537} {
		checkFixedBase(t, testScalars(rng, n))
	}
}

// Equal scalars meet equal accumulators in one batch.
func TestFixedBaseRepeatedScalars(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	s := testScalars(rng, 40)
	s = append(s, s...)
	checkFixedBase(t, s)
}

func TestFixedBaseCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, _, g1, g2 := bls12381.Generators()
	s := make([]fr.Element, 5000)
	_, err := msm.FixedBaseG1(ctx, &g1, s)
	require.ErrorIs(t, err, context.Canceled)
	_, err = msm.FixedBaseG2(ctx, &g2, s)
	require.ErrorIs(t, err, context.Canceled)
}
