package aggregate

import (
	"math/big"
	"math/rand/v2"
	"testing"

	bls12381 "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fp"
	"github.com/stretchr/testify/require"
)

// blstrsGenerator is blstrs' Gt::generator() (src/gt.rs, blstrs 6646be1f),
// the 12 Fp coefficients in Montgomery form, c0.c0.c0 first: gnark's
// fp.Element uses the same Montgomery form (R = 2^384) and limb order.
var blstrsGenerator = [12]fp.Element{
	{0x1972e433a01f85c5, 0x97d32b76fd772538, 0xc8ce546fc96bcdf9, 0xcef63e7366d40614, 0xa611342781843780, 0x13f3448a3fc6d825},
	{0xd26331b02e9d6995, 0x9d68a482f7797e7d, 0x9c9b29248d39ea92, 0xf4801ca2e13107aa, 0xa16c0732bdbcb066, 0x083ca4afba360478},
	{0x59e261db0916b641, 0x2716b6f4b23e960d, 0xc8e55b10a0bd9c45, 0x0bdb0bd99c4deda8, 0x8cf89ebf57fdaac5, 0x12d6b7929e777a5e},
	{0x5fc85188b0e15f35, 0x34a06e3a8f096365, 0xdb3126a6e02ad62c, 0xfc6f5aa97d9a990b, 0xa12f55f5eb89c210, 0x1723703a926f8889},
	{0x93588f2971828778, 0x43f65b8611ab7585, 0x3183aaf5ec279fdf, 0xfa73d7e18ac99df6, 0x64e176a6a64c99b0, 0x179fa78c58388f1f},
	{0x672a0a11ca2aef12, 0x0d11b9b52aa3f16b, 0xa44412d0699d056e, 0xc01d0177221a5ba5, 0x66e0cede6c735529, 0x05f5a71e9fddc339},
	{0xd30a88a1b062c679, 0x5ac56a5d35fc8304, 0xd0c834a6a81f290d, 0xcd5430c2da3707c7, 0xf0c27ff780500af0, 0x09245da6e2d72eae},
	{0x9f2e0676791b5156, 0xe2d1c8234918fe13, 0x4c9e459f3c561bf4, 0xa3e85e53b9d3e3c1, 0x820a121e21a70020, 0x15af618341c59acc},
	{0x7c95658c24993ab1, 0x73eb38721ca886b9, 0x5256d749477434bc, 0x8ba41902ea504a8b, 0x04a3d3f80c86ce6d, 0x18a64a87fb686eaa},
	{0xbb83e71bb920cf26, 0x2a5277ac92a73945, 0xfc0ee59f94f046a0, 0x7158cdf3786058f7, 0x7cc1061b82f945f6, 0x03f847aa9fdbe567},
	{0x8078dba56134e657, 0x1cd7ec9a43998a6e, 0xb1aa599a1a993766, 0xc9a0f62f0842ee44, 0x8e159be3b605dffa, 0x0c86ba0d4af13fc2},
	{0xe80ff2a06a52ffb1, 0x7694ca48721a906c, 0x7583183e03b08514, 0xf567afdd40cee4e2, 0x9a6d96d2e526a5fc, 0x197e9f49861f2242},
}

func TestGTMarkerIsBlstrsGenerator(t *testing.T) {
	var g bls12381.GT
	cs := []*fp.Element{
		&g.C0.B0.A0, &g.C0.B0.A1, &g.C0.B1.A0, &g.C0.B1.A1, &g.C0.B2.A0, &g.C0.B2.A1,
		&g.C1.B0.A0, &g.C1.B0.A1, &g.C1.B1.A0, &g.C1.B1.A1, &g.C1.B2.A0, &g.C1.B2.A1,
	}
	for i, c := range cs {
		*c = blstrsGenerator[i]
	}
	m := gtMarker()
	require.True(t, g.Equal(&m))
}

// pairTerms returns a, b with e(a_0, b_0)·e(a_1, b_1) = out.
func pairTerms(t *testing.T, rng *rand.ChaCha8) ([]bls12381.G1Affine, []bls12381.G2Affine, bls12381.GT) {
	a, b := randG1(t, rng, 2), randG2(t, rng, 2)
	return a, b, directPairing(t, a, b)
}

func TestPairingChecks(t *testing.T) {
	rng := rand.NewChaCha8([32]byte{8})
	coeffs := rand.NewChaCha8([32]byte{9})
	check := func(f func(pc *pairingChecks)) bool {
		pc := newPairingChecks(coeffs)
		f(pc)
		ok, err := pc.verify()
		require.NoError(t, err)
		return ok
	}
	a1, b1, o1 := pairTerms(t, rng)
	a2, b2, o2 := pairTerms(t, rng)
	a3, b3, o3 := pairTerms(t, rng)
	// e(a, b)·e(−a, b) = 1: bellperson's KZG form, right side its marker.
	var na bls12381.G1Affine
	na.Neg(&a1[0])
	one := func(pc *pairingChecks) {
		require.NoError(t, pc.mergeRandom([]bls12381.G1Affine{a1[0], na}, []bls12381.G2Affine{b1[0], b1[0]}, nil))
	}

	require.True(t, check(func(pc *pairingChecks) {
		require.NoError(t, pc.mergeRandom(a1, b1, &o1))
		one(pc)
		require.NoError(t, pc.mergeRandom(a2, b2, &o2))
		require.NoError(t, pc.mergeNonRandom(a3, b3, &o3))
	}))
	// Any one false equation fails the merge.
	require.False(t, check(func(pc *pairingChecks) {
		require.NoError(t, pc.mergeRandom(a1, b1, &o2))
		require.NoError(t, pc.mergeNonRandom(a3, b3, &o3))
	}))
	require.False(t, check(func(pc *pairingChecks) {
		require.NoError(t, pc.mergeRandom(a1, b1, &o1))
		require.NoError(t, pc.mergeNonRandom(a3, b3, &o2))
	}))
	require.False(t, check(func(pc *pairingChecks) {
		require.NoError(t, pc.mergeRandom(a1[:1], b1[:1], nil))
		require.NoError(t, pc.mergeNonRandom(a3, b3, &o3))
	}))
	require.False(t, check(func(pc *pairingChecks) {
		require.NoError(t, pc.mergeRandom(a1, b1, &o1))
		pc.invalidate()
	}))
	// Two errors that would cancel without the random coefficients: the
	// first side off by a factor, the second by its inverse.
	var shift, o1s, o2s bls12381.GT
	shift.Exp(o3, big.NewInt(5))
	o1s.Mul(&o1, &shift)
	shift.Inverse(&shift)
	o2s.Mul(&o2, &shift)
	require.False(t, check(func(pc *pairingChecks) {
		require.NoError(t, pc.mergeRandom(a1, b1, &o1s))
		require.NoError(t, pc.mergeRandom(a2, b2, &o2s))
		require.NoError(t, pc.mergeNonRandom(a3, b3, &o3))
	}))
	// One unscaled check, and it comes last.
	pc := newPairingChecks(coeffs)
	require.NoError(t, pc.mergeNonRandom(a3, b3, &o3))
	require.ErrorIs(t, pc.mergeNonRandom(a3, b3, &o3), ErrInput)
	require.ErrorIs(t, pc.mergeRandom(a1, b1, &o1), ErrInput)

	// bellperson's marker: a right side equal to e(g1, g2) counts as 1.
	_, _, g1, g2 := bls12381.Generators()
	m := gtMarker()
	require.False(t, check(func(pc *pairingChecks) {
		require.NoError(t, pc.mergeRandom([]bls12381.G1Affine{g1}, []bls12381.G2Affine{g2}, &m))
		require.NoError(t, pc.mergeNonRandom(a3, b3, &o3))
	}), "e(g1, g2) = marker reads as e(g1, g2) = 1 and fails, as in bellperson")
}
