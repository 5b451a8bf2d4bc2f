package aggregate

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math/rand/v2"
	"strconv"
	"testing"

	bls12381 "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fp"
	"github.com/stretchr/testify/require"

	"github.com/gpuc2/gpuc2/internal/zcash"
)

// testSRS is a TEST-ONLY SRS of 2·size powers from a fixed seed.
func testSRS(t *testing.T, size int) *GenericSRS {
	t.Helper()
	s, err := TestOnlySRS(rand.NewChaCha8([32]byte{1}), size)
	require.NoError(t, err)
	return s
}

func encode(t *testing.T, s *GenericSRS) []byte {
	t.Helper()
	var b bytes.Buffer
	n, err := s.WriteTo(&b)
	require.NoError(t, err)
	require.Equal(t, int64(b.Len()), n)
	return b.Bytes()
}

// samePairing checks e(a, b) = e(c, d).
func samePairing(t *testing.T, a bls12381.G1Affine, b bls12381.G2Affine, c bls12381.G1Affine, d bls12381.G2Affine, what string) {
	t.Helper()
	var nc bls12381.G1Affine
	nc.Neg(&c)
	ok, err := bls12381.PairingCheck([]bls12381.G1Affine{a, nc}, []bls12381.G2Affine{b, d})
	require.NoError(t, err)
	require.True(t, ok, what)
}

// The relations bellperson's commitments and KZG checks rely on: both groups
// hold powers of the same alpha (and beta), consecutive, from the generators.
func TestSpecializePairingRelations(t *testing.T) {
	const size = 8
	s := testSRS(t, size)
	_, _, g, h := bls12381.Generators()
	require.Equal(t, g, s.GAlphaPowers[0])
	require.Equal(t, h, s.HBetaPowers[0])
	for _, n := range []int{1, 2, 8} {
		p, vk, err := s.Specialize(n)
		require.NoError(t, err)
		require.Len(t, p.GAlphaPowers, 2*n)
		require.Len(t, p.HBetaPowers, n)
		require.Len(t, p.VKey.A, n)
		require.Len(t, p.WKey.B, n)
		for _, i := range []int{0, n - 1} {
			samePairing(t, p.GAlphaPowers[i], h, g, p.HAlphaPowers[i], "g^a^i vs h^a^i")
			samePairing(t, p.GBetaPowers[i], h, g, p.HBetaPowers[i], "g^b^i vs h^b^i")
			samePairing(t, p.GAlphaPowers[i+1], h, p.GAlphaPowers[i], vk.HAlpha, "consecutive alpha powers")
			samePairing(t, p.GBetaPowers[i+1], h, p.GBetaPowers[i], vk.HBeta, "consecutive beta powers")
			// WKey starts at exponent n: w_i = g^{a^(n+i)} pairs with v_i times h^{a^n}.
			samePairing(t, p.WKey.A[i], h, g, s.HAlphaPowers[n+i], "wkey alpha shift")
			samePairing(t, p.WKey.B[i], h, g, s.HBetaPowers[n+i], "wkey beta shift")
		}
		samePairing(t, vk.GAlpha, vk.H, vk.G, vk.HAlpha, "vk alpha")
		samePairing(t, vk.GBeta, vk.H, vk.G, vk.HBeta, "vk beta")
		// h_alpha_d = h^{a^(L-n)}, L = len(g_alpha) = 2·size here.
		samePairing(t, p.GAlphaPowersEnd[0], h, g, vk.HAlphaD, "h_alpha_d")
		require.Equal(t, s.HAlphaPowers[2*size-n], vk.HAlphaD)
		require.Equal(t, s.GAlphaPowers[2*size-n:], p.GAlphaPowersEnd)
	}
}

func TestSpecializeRefusals(t *testing.T) {
	s := testSRS(t, 4)
	for _, n := range []int{0, 3, 6, -2} {
		_, _, err := s.Specialize(n)
		require.ErrorIs(t, err, ErrSRS)
		require.Contains(t, err.Error(), "not a power of two")
	}
	_, _, err := s.Specialize(8)
	require.ErrorIs(t, err, ErrSRS)
	require.Contains(t, err.Error(), "too large")
}

func TestSRSRoundTrip(t *testing.T) {
	s := testSRS(t, 8)
	b := encode(t, s)
	require.Len(t, b, 4*lenSize+2*16*g1Size+2*16*g2Size)
	require.Equal(t, uint32(16), binary.BigEndian.Uint32(b))

	got, err := ReadGenericSRS(bytes.NewReader(b), int64(len(b)), 0)
	require.NoError(t, err)
	require.Equal(t, s, got)
	require.Equal(t, b, encode(t, got))
	h1, err := s.Hash()
	require.NoError(t, err)
	h2, err := got.Hash()
	require.NoError(t, err)
	require.Equal(t, h1, h2)
}

// A prefix read (read_mmap's max_len) shortens every vector, which moves
// h_alpha_d and the end powers; ReadSpecializedSRS agrees with the full path.
func TestReadPrefixAndSpecialized(t *testing.T) {
	s := testSRS(t, 8) // 16 powers per vector
	b := encode(t, s)
	const maxLen = 11
	prefix, err := ReadGenericSRS(bytes.NewReader(b), int64(len(b)), maxLen)
	require.NoError(t, err)
	require.Equal(t, s.HBetaPowers[:maxLen], prefix.HBetaPowers)
	for _, n := range []int{1, 2, 4} {
		p1, v1, err := prefix.Specialize(n)
		require.NoError(t, err)
		p2, v2, err := ReadSpecializedSRS(bytes.NewReader(b), int64(len(b)), maxLen, n)
		require.NoError(t, err)
		require.Equal(t, p1, p2)
		require.Equal(t, v1, v2)
		require.Equal(t, s.HAlphaPowers[maxLen-n], v2.HAlphaD)
		require.Equal(t, s.GAlphaPowers[maxLen-n:maxLen], p2.GAlphaPowersEnd)
	}
	_, _, err = ReadSpecializedSRS(bytes.NewReader(b), int64(len(b)), maxLen, 8)
	require.ErrorIs(t, err, ErrSRS)
	require.Contains(t, err.Error(), "too large")
}

// offCurveG1 returns a compressed x with no curve point.
func offCurveG1(t *testing.T) []byte {
	for x := uint64(1); ; x++ {
		var fx, y2, b4 fp.Element
		fx.SetUint64(x)
		b4.SetUint64(4)
		y2.Square(&fx).Mul(&y2, &fx).Add(&y2, &b4)
		if y2.Legendre() == -1 {
			e := fx.Bytes()
			e[0] |= zcash.FlagCompressed
			return e[:]
		}
	}
}

// onCurveOutsideG1 returns a compressed point of E(Fp) outside the subgroup.
func onCurveOutsideG1(t *testing.T) []byte {
	for x := uint64(1); ; x++ {
		var p bls12381.G1Affine
		var b4 fp.Element
		b4.SetUint64(4)
		p.X.SetUint64(x)
		var y2 fp.Element
		y2.Square(&p.X).Mul(&y2, &p.X).Add(&y2, &b4)
		if p.Y.Sqrt(&y2) == nil {
			continue
		}
		require.True(t, p.IsOnCurve())
		if !p.IsInSubGroup() {
			e := p.Bytes()
			return e[:]
		}
	}
}

func TestReadRefusesCorruptSRS(t *testing.T) {
	s := testSRS(t, 4) // 8 powers per vector
	good := encode(t, s)
	// Element 3 of g_beta_powers.
	at := lenSize + 8*g1Size + lenSize + 3*g1Size
	modulus := fp.Modulus().FillBytes(make([]byte, fp.Bytes))
	withPoint := func(p []byte) []byte {
		b := bytes.Clone(good)
		copy(b[at:], p)
		return b
	}
	identity := make([]byte, g1Size)
	identity[0] = zcash.FlagCompressed | zcash.FlagInfinity
	uncompressed := bytes.Clone(good[at : at+g1Size])
	uncompressed[0] &^= zcash.FlagCompressed
	nonCanonical := bytes.Clone(modulus)
	nonCanonical[0] |= zcash.FlagCompressed

	tooMany := bytes.Clone(good)
	binary.BigEndian.PutUint32(tooMany[lenSize+8*g1Size:], MaxSRSSize+1)
	longer := bytes.Clone(good)
	binary.BigEndian.PutUint32(longer[3*lenSize+16*g1Size+8*g2Size:], 9)

	for _, c := range []struct {
		name, want string
		b          []byte
	}{
		{"off curve", "g_beta_powers element 3 at offset " + strconv.Itoa(at) + ": point not on the curve", withPoint(offCurveG1(t))},
		{"outside subgroup", "g_beta_powers element 3 at offset " + strconv.Itoa(at) + ": point not in the prime-order subgroup", withPoint(onCurveOutsideG1(t))},
		{"identity", "g_beta_powers element 3 at offset " + strconv.Itoa(at) + ": point at infinity not allowed here", withPoint(identity)},
		{"uncompressed flag", "invalid flag bits", withPoint(uncompressed)},
		{"x not canonical", "not below the field modulus", withPoint(nonCanonical)},
		{"count too large", "g_beta_powers count 1048578", tooMany},
		{"count past the end", "short file: h_beta_powers declares 9 points", longer},
		{"truncated", "short file: h_beta_powers", good[:len(good)-1]},
		{"empty", "short file: g_alpha_powers count", nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := ReadGenericSRS(bytes.NewReader(c.b), int64(len(c.b)), 0)
			require.ErrorIs(t, err, ErrSRS)
			require.Contains(t, err.Error(), c.want)
		})
	}
	// The specialized reader decodes only what n needs, so it misses a bad
	// point outside that range but refuses one inside it.
	bad := withPoint(offCurveG1(t))
	_, _, err := ReadSpecializedSRS(bytes.NewReader(bad), int64(len(bad)), 0, 1)
	require.NoError(t, err)
	_, _, err = ReadSpecializedSRS(bytes.NewReader(bad), int64(len(bad)), 0, 2)
	require.ErrorIs(t, err, ErrSRS)
}

func TestWriteRefusesOversizedVector(t *testing.T) {
	s := &GenericSRS{GAlphaPowers: make([]bls12381.G1Affine, MaxSRSSize+1)}
	_, err := s.WriteTo(&bytes.Buffer{})
	require.ErrorIs(t, err, ErrSRS)
	require.Contains(t, err.Error(), "g_alpha_powers")
}

func TestTestOnlySRSRefusesSize(t *testing.T) {
	_, err := TestOnlySRS(rand.NewChaCha8([32]byte{}), 0)
	require.ErrorIs(t, err, ErrSRS)
	_, err = TestOnlySRS(bytes.NewReader(nil), 1)
	require.Error(t, err)
	require.False(t, errors.Is(err, ErrSRS))
}
