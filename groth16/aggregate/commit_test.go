package aggregate

import (
	"io"
	"math/big"
	"math/rand/v2"
	"testing"

	bls12381 "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/stretchr/testify/require"
)

func randScalars(t *testing.T, rng io.Reader, n int) []fr.Element {
	t.Helper()
	s := make([]fr.Element, n)
	var b [2 * fr.Bytes]byte
	for i := range s {
		_, err := io.ReadFull(rng, b[:])
		require.NoError(t, err)
		s[i].SetBytes(b[:])
	}
	return s
}

func randG1(t *testing.T, rng io.Reader, n int) []bls12381.G1Affine {
	_, _, g, _ := bls12381.Generators()
	return bls12381.BatchScalarMultiplicationG1(&g, randScalars(t, rng, n))
}

func randG2(t *testing.T, rng io.Reader, n int) []bls12381.G2Affine {
	_, _, _, h := bls12381.Generators()
	return bls12381.BatchScalarMultiplicationG2(&h, randScalars(t, rng, n))
}

// directPairing is Π e(a_i, b_i), one gnark Pair per term.
func directPairing(t *testing.T, a []bls12381.G1Affine, b []bls12381.G2Affine) bls12381.GT {
	t.Helper()
	require.Equal(t, len(a), len(b))
	var acc bls12381.GT
	acc.SetOne()
	for i := range a {
		e, err := bls12381.Pair(a[i:i+1], b[i:i+1])
		require.NoError(t, err)
		acc.Mul(&acc, &e)
	}
	return acc
}

func gtMul(x, y bls12381.GT) bls12381.GT {
	var z bls12381.GT
	return *z.Mul(&x, &y)
}

func commitMul(x, y Commitment) Commitment {
	return Commitment{gtMul(x[0], y[0]), gtMul(x[1], y[1])}
}

func addG1(x, y []bls12381.G1Affine) []bls12381.G1Affine {
	z := make([]bls12381.G1Affine, len(x))
	for i := range z {
		z[i].Add(&x[i], &y[i])
	}
	return z
}

func addG2(x, y []bls12381.G2Affine) []bls12381.G2Affine {
	z := make([]bls12381.G2Affine, len(x))
	for i := range z {
		z[i].Add(&x[i], &y[i])
	}
	return z
}

// testKeys returns the TEST-ONLY v and w keys for n proofs.
func testKeys(t *testing.T, n int) (*VKey, *WKey) {
	t.Helper()
	p, _, err := testSRS(t, n).Specialize(n)
	require.NoError(t, err)
	return &p.VKey, &p.WKey
}

// 37 terms span several Miller-loop chunks; the identity is skipped by
// gnark and must still count as 1.
func TestPairingProduct(t *testing.T) {
	rng := rand.NewChaCha8([32]byte{2})
	a, b := randG1(t, rng, 37), randG2(t, rng, 37)
	a[5] = bls12381.G1Affine{}
	got, err := pairingProduct(a, b, "test")
	require.NoError(t, err)
	want := directPairing(t, a, b)
	require.True(t, got.Equal(&want))

	got, err = pairingProduct(nil, nil, "test")
	require.NoError(t, err)
	require.True(t, got.IsOne(), "empty product is 1, as bellperson's")

	_, err = pairingProduct(a[:3], b[:4], "test")
	require.ErrorIs(t, err, ErrInput)
	require.ErrorContains(t, err, "3 and 4")
}

func TestMultiExp(t *testing.T) {
	rng := rand.NewChaCha8([32]byte{3})
	a, c := randG1(t, rng, 33), randScalars(t, rng, 33)
	got, err := multiExp(a, c, "test")
	require.NoError(t, err)
	var want, term bls12381.G1Affine
	var e big.Int
	for i := range a {
		term.ScalarMultiplication(&a[i], c[i].BigInt(&e))
		want.Add(&want, &term)
	}
	require.True(t, got.Equal(&want))

	got, err = multiExp(nil, nil, "test")
	require.NoError(t, err)
	require.True(t, got.IsInfinity())

	_, err = multiExp(a, c[:32], "test")
	require.ErrorIs(t, err, ErrInput)
	require.ErrorContains(t, err, "33 and 32")
}

// The pair commitment is bellperson's: T pairs A with v1 and w1 with B, U
// pairs A with v2 and w2 with B, and its A part is the single commitment.
func TestCommitPairIsProductOfPieces(t *testing.T) {
	const n = 8
	vk, wk := testKeys(t, n)
	rng := rand.NewChaCha8([32]byte{4})
	a, b := randG1(t, rng, n), randG2(t, rng, n)

	single, err := CommitSingleG1(vk, a)
	require.NoError(t, err)
	wantS := Commitment{directPairing(t, a, vk.A), directPairing(t, a, vk.B)}
	require.True(t, single[0].Equal(&wantS[0]), "Π e(A_i, v1_i)")
	require.True(t, single[1].Equal(&wantS[1]), "Π e(A_i, v2_i)")
	require.False(t, single[0].Equal(&single[1]), "the two outputs use different key halves")

	pair, err := CommitPair(vk, wk, a, b)
	require.NoError(t, err)
	wantT := gtMul(single[0], directPairing(t, wk.A, b))
	wantU := gtMul(single[1], directPairing(t, wk.B, b))
	require.True(t, pair[0].Equal(&wantT), "T = Π e(A_i, v1_i)·e(w1_i, B_i)")
	require.True(t, pair[1].Equal(&wantU), "U = Π e(A_i, v2_i)·e(w2_i, B_i)")
}

func TestCommitHomomorphic(t *testing.T) {
	const n = 4
	vk, wk := testKeys(t, n)
	rng := rand.NewChaCha8([32]byte{5})
	a, a2 := randG1(t, rng, n), randG1(t, rng, n)
	b, b2 := randG2(t, rng, n), randG2(t, rng, n)

	commitS := func(x []bls12381.G1Affine) Commitment {
		c, err := CommitSingleG1(vk, x)
		require.NoError(t, err)
		return c
	}
	commitP := func(x []bls12381.G1Affine, y []bls12381.G2Affine) Commitment {
		c, err := CommitPair(vk, wk, x, y)
		require.NoError(t, err)
		return c
	}
	require.Equal(t, commitMul(commitS(a), commitS(a2)), commitS(addG1(a, a2)))
	require.Equal(t, commitMul(commitP(a, b), commitP(a2, b2)), commitP(addG1(a, a2), addG2(b, b2)))
}

// Changing any one element changes the commitment.
func TestCommitChangesWithEachElement(t *testing.T) {
	const n = 4
	vk, wk := testKeys(t, n)
	rng := rand.NewChaCha8([32]byte{6})
	a, b := randG1(t, rng, n), randG2(t, rng, n)
	s0, err := CommitSingleG1(vk, a)
	require.NoError(t, err)
	p0, err := CommitPair(vk, wk, a, b)
	require.NoError(t, err)
	_, _, g, h := bls12381.Generators()
	for i := range n {
		a2 := append([]bls12381.G1Affine(nil), a...)
		a2[i].Add(&a2[i], &g)
		s, err := CommitSingleG1(vk, a2)
		require.NoError(t, err)
		require.False(t, s[0].Equal(&s0[0]) || s[1].Equal(&s0[1]), "single, A[%d]", i)
		p, err := CommitPair(vk, wk, a2, b)
		require.NoError(t, err)
		require.False(t, p[0].Equal(&p0[0]) || p[1].Equal(&p0[1]), "pair, A[%d]", i)

		b2 := append([]bls12381.G2Affine(nil), b...)
		b2[i].Add(&b2[i], &h)
		p, err = CommitPair(vk, wk, a, b2)
		require.NoError(t, err)
		require.False(t, p[0].Equal(&p0[0]) || p[1].Equal(&p0[1]), "pair, B[%d]", i)
	}
}

// prove.rs checks com_ab against pair(vkey, wkey.scale(r^-1), A, B^r); that
// identity holds here too.
func TestCommitPairUnderScaledKey(t *testing.T) {
	const n = 4
	vk, wk := testKeys(t, n)
	rng := rand.NewChaCha8([32]byte{7})
	a, b, r := randG1(t, rng, n), randG2(t, rng, n), randScalars(t, rng, n)
	rInv := fr.BatchInvert(r)
	wkRInv, err := wk.Scale(rInv)
	require.NoError(t, err)
	bR := make([]bls12381.G2Affine, n)
	var e big.Int
	for i := range bR {
		bR[i].ScalarMultiplication(&b[i], r[i].BigInt(&e))
	}
	want, err := CommitPair(vk, wk, a, b)
	require.NoError(t, err)
	got, err := CommitPair(vk, &wkRInv, a, bR)
	require.NoError(t, err)
	require.Equal(t, want, got)
}

func TestCommitRefusesLengths(t *testing.T) {
	const n = 4
	vk, wk := testKeys(t, n)
	rng := rand.NewChaCha8([32]byte{8})
	a, b := randG1(t, rng, n), randG2(t, rng, n)
	short := &VKey{A: vk.A, B: vk.B[:n-1]}
	shortW := &WKey{A: wk.A[:n-1], B: wk.B}
	for name, err := range map[string]error{
		"single: short A":  second(CommitSingleG1(vk, a[:n-1])),
		"single: short v2": second(CommitSingleG1(short, a)),
		"pair: short A":    second(CommitPair(vk, wk, a[:n-1], b)),
		"pair: short B":    second(CommitPair(vk, wk, a, b[:n-1])),
		"pair: short v2":   second(CommitPair(short, wk, a, b)),
		"pair: short w1":   second(CommitPair(vk, shortW, a, b)),
	} {
		require.ErrorIs(t, err, ErrInput, name)
		require.Regexp(t, `lengths (4 and 3|3 and 4) differ`, err.Error(), name)
	}
}

func second[T any](_ T, err error) error { return err }

func TestKeyOperations(t *testing.T) {
	const n = 4
	vk, wk := testKeys(t, n)
	rng := rand.NewChaCha8([32]byte{9})
	s := randScalars(t, rng, n)
	var e big.Int

	scaled, err := vk.Scale(s)
	require.NoError(t, err)
	for i := range n {
		s[i].BigInt(&e)
		var wa, wb bls12381.G2Affine
		wa.ScalarMultiplication(&vk.A[i], &e)
		wb.ScalarMultiplication(&vk.B[i], &e)
		require.True(t, scaled.A[i].Equal(&wa) && scaled.B[i].Equal(&wb), "scale %d", i)
	}

	left, right, err := wk.Split(n / 2)
	require.NoError(t, err)
	require.Equal(t, wk.A[:n/2], left.A)
	require.Equal(t, wk.B[n/2:], right.B)
	left.A = append(left.A, bls12381.G1Affine{})
	require.False(t, wk.A[n/2].IsInfinity(), "appending to the left half leaves the key alone")
	left.A = left.A[:n/2]

	c := s[0]
	comp, err := left.Compress(&right, &c)
	require.NoError(t, err)
	require.Len(t, comp.A, n/2)
	c.BigInt(&e)
	for i := range n / 2 {
		var wa, wb bls12381.G1Affine
		wa.ScalarMultiplication(&right.A[i], &e)
		wa.Add(&wa, &left.A[i])
		wb.ScalarMultiplication(&right.B[i], &e)
		wb.Add(&wb, &left.B[i])
		require.True(t, comp.A[i].Equal(&wa) && comp.B[i].Equal(&wb), "compress %d", i)
	}

	fa, fb, err := wk.First()
	require.NoError(t, err)
	require.Equal(t, wk.A[0], fa)
	require.Equal(t, wk.B[0], fb)
	require.True(t, wk.HasCorrectLen(n))
	require.False(t, wk.HasCorrectLen(n-1))

	uneven := &WKey{A: wk.A, B: wk.B[:n-1]}
	_, err = vk.Scale(s[:n-1])
	require.ErrorIs(t, err, ErrInput)
	_, err = uneven.Scale(s)
	require.ErrorIs(t, err, ErrInput)
	_, err = wk.Compress(&right, &c)
	require.ErrorIs(t, err, ErrInput)
	_, err = left.Compress(uneven, &c)
	require.ErrorIs(t, err, ErrInput)
	_, _, err = wk.Split(n + 1)
	require.ErrorIs(t, err, ErrInput)
	_, _, err = wk.Split(-1)
	require.ErrorIs(t, err, ErrInput)
	_, _, err = (&WKey{}).First()
	require.ErrorIs(t, err, ErrInput)
}
