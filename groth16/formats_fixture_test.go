package groth16_test

import (
	"bytes"
	"encoding/binary"
	"math/big"
	"testing"

	bls12381 "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/stretchr/testify/require"

	"github.com/gpuc2/gpuc2/groth16"
)

// Fixtures for the format and verification tests. Names carry an fx prefix
// so they cannot clash with helpers of the prover tests in this package.

func fxScalar(t testing.TB) fr.Element {
	t.Helper()
	var s fr.Element
	_, err := s.SetRandom()
	require.NoError(t, err)
	return s
}

func fxG1(s fr.Element) bls12381.G1Affine {
	var p bls12381.G1Affine
	var k big.Int
	p.ScalarMultiplicationBase(s.BigInt(&k))
	return p
}

func fxG2(s fr.Element) bls12381.G2Affine {
	var p bls12381.G2Affine
	var k big.Int
	p.ScalarMultiplicationBase(s.BigInt(&k))
	return p
}

func fxG1s(t testing.TB, n int) []bls12381.G1Affine {
	t.Helper()
	out := make([]bls12381.G1Affine, n)
	for i := range out {
		out[i] = fxG1(fxScalar(t))
	}
	return out
}

func fxG2s(t testing.TB, n int) []bls12381.G2Affine {
	t.Helper()
	out := make([]bls12381.G2Affine, n)
	for i := range out {
		out[i] = fxG2(fxScalar(t))
	}
	return out
}

// fxToxic is the trapdoor of a fake setup; ic holds the discrete logs of
// the IC points, so valid proofs can be built without a prover.
type fxToxic struct {
	alpha, beta, gamma, delta fr.Element
	ic                        []fr.Element
}

// fxSetup returns a verifying key with nIC IC points and its trapdoor.
func fxSetup(t testing.TB, nIC int) (*groth16.VerifyingKey, *fxToxic) {
	t.Helper()
	tw := &fxToxic{alpha: fxScalar(t), beta: fxScalar(t), gamma: fxScalar(t), delta: fxScalar(t)}
	vk := &groth16.VerifyingKey{
		AlphaG1: fxG1(tw.alpha),
		BetaG1:  fxG1(tw.beta),
		BetaG2:  fxG2(tw.beta),
		GammaG2: fxG2(tw.gamma),
		DeltaG1: fxG1(tw.delta),
		DeltaG2: fxG2(tw.delta),
	}
	for range nIC {
		s := fxScalar(t)
		tw.ic = append(tw.ic, s)
		vk.IC = append(vk.IC, fxG1(s))
	}
	return vk, tw
}

// fxProve builds a proof that satisfies the verification equation in the
// exponent: pick a, b and solve c·δ = a·b − α·β − γ·Σ xᵢ·icᵢ (x₀ = 1).
func (tw *fxToxic) fxProve(t testing.TB, public []fr.Element) groth16.Proof {
	t.Helper()
	require.Len(t, public, len(tw.ic)-1)
	a, b := fxScalar(t), fxScalar(t)
	sum := tw.ic[0]
	var tmp, c, dInv fr.Element
	for i := range public {
		tmp.Mul(&public[i], &tw.ic[i+1])
		sum.Add(&sum, &tmp)
	}
	c.Mul(&a, &b)
	tmp.Mul(&tw.alpha, &tw.beta)
	c.Sub(&c, &tmp)
	tmp.Mul(&tw.gamma, &sum)
	c.Sub(&c, &tmp)
	dInv.Inverse(&tw.delta)
	c.Mul(&c, &dInv)
	return groth16.Proof{A: fxG1(a), B: fxG2(b), C: fxG1(c)}
}

func fxInputs(t testing.TB, n int) []fr.Element {
	t.Helper()
	out := make([]fr.Element, n)
	for i := range out {
		out[i] = fxScalar(t)
	}
	return out
}

// fxShape is a small key shape that satisfies the bellperson relations
// OpenProvingKey checks: h = 2^k−1, ic ≤ a ≤ ic+l, b ≤ ic+l.
type fxShape struct{ ic, h, l, a, b int }

var fxSmall = fxShape{ic: 3, h: 7, l: 5, a: 6, b: 4}

type fxKey struct {
	vk           *groth16.VerifyingKey
	h, l, a, bg1 []bls12381.G1Affine
	bg2          []bls12381.G2Affine
}

func fxNewKey(t testing.TB, s fxShape) *fxKey {
	t.Helper()
	vk, _ := fxSetup(t, s.ic)
	return &fxKey{vk: vk, h: fxG1s(t, s.h), l: fxG1s(t, s.l), a: fxG1s(t, s.a), bg1: fxG1s(t, s.b), bg2: fxG2s(t, s.b)}
}

func (k *fxKey) provingKey(t testing.TB) *groth16.ProvingKey {
	t.Helper()
	pk, err := groth16.NewProvingKey(k.vk, k.h, k.l, k.a, k.bg1, k.bg2)
	require.NoError(t, err)
	return pk
}

// fxParamsBytes encodes a .params image by hand, independently of
// ProvingKey.WriteTo, so that counts can be made inconsistent.
func fxParamsBytes(t testing.TB, k *fxKey) []byte {
	t.Helper()
	var buf bytes.Buffer
	_, err := k.vk.WriteTo(&buf)
	require.NoError(t, err)
	for _, sec := range [][]bls12381.G1Affine{k.h, k.l, k.a, k.bg1} {
		require.NoError(t, binary.Write(&buf, binary.BigEndian, uint32(len(sec))))
		for i := range sec {
			b := sec[i].RawBytes()
			buf.Write(b[:])
		}
	}
	require.NoError(t, binary.Write(&buf, binary.BigEndian, uint32(len(k.bg2))))
	for i := range k.bg2 {
		b := k.bg2[i].RawBytes()
		buf.Write(b[:])
	}
	return buf.Bytes()
}

// fxParamsSize is the .params size bellperson's layout implies.
func fxParamsSize(s fxShape) int {
	return 868 + 96*s.ic + 5*4 + 96*(s.h+s.l+s.a+s.b) + 192*s.b
}
