package groth16_test

import (
	"bytes"
	"encoding/hex"
	"fmt"
	"testing"

	bls12381 "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuc2/gpuc2/groth16"
	"github.com/gpuc2/gpuc2/internal/testpoints"
)

func fxProof(t testing.TB) groth16.Proof {
	return groth16.Proof{A: fxG1(fxScalar(t)), B: fxG2(fxScalar(t)), C: fxG1(fxScalar(t))}
}

func TestProofRoundTrip(t *testing.T) {
	p := fxProof(t)
	b, err := p.MarshalBinary()
	require.NoError(t, err)
	require.Len(t, b, groth16.ProofSize)
	a, bb, c := p.A.Bytes(), p.B.Bytes(), p.C.Bytes()
	assert.Equal(t, a[:], b[:48], "A compressed first")
	assert.Equal(t, bb[:], b[48:144], "then B compressed")
	assert.Equal(t, c[:], b[144:], "then C compressed")

	var q groth16.Proof
	require.NoError(t, q.UnmarshalBinary(b))
	assert.True(t, q.A.Equal(&p.A) && q.B.Equal(&p.B) && q.C.Equal(&p.C))
}

// Real bellperson proofs from rust-fil-proofs
// filecoin-proofs/tests/seal_regression_records-v16.json (records 1 and 5:
// 2 KiB and 512 MiB sectors, one partition each).
var bellpersonProofs = []string{
	"8d9b1ab7dab2175671e849ac3d5488ad20e2d5646c55c73c4ffe038b72bec67a1c4c9765570027bb76174d4cee9c4d90" +
		"a12fa3be57ef03b320e495c0b6e47881ea18a0a545cf350f000b62270d6458a48026977c4e56391cc5d8909dec525ecf" +
		"0f9f32f0f2eb50a77b83877f4ff20995a2e67d9e939f038a43c6aba4f6a906c89fd97ae964a64a0d617aabcf216c7e70" +
		"ade2040a6b97e9759a66e5a6b558858f6f776a3b714d6236520cd440664019f72a298439c95a888460d3b3229ccfdd02",
	"b17449dd0325e8fb1981c7cbbca955ee33f8ef31751f7f160f318910784a95f533d141dc2ab31a647e6badc8a981abe2" +
		"94e4a8804fe872a968385bc2999d9bf8592847de2a3dcc3694ea47b2949d702ada9f0448985ee7d1888e31d2f0f57c57" +
		"15afe2e0f8b5b77f8547f0d2a254d2f4040ff64c280145c11f53032cdca8ee4dc438321e2fdf61f6b8c91cc18988c9c9" +
		"aef0ce8d9f4aeabe0534c1354cd3c6a31c1e3a9cb870fd80747ce1f4786df9616bcb4bcf1ed594e83829a2f7ffe3bb4c",
}

// Proofs written by bellperson decode (curve and subgroup checks pass) and
// re-encode to the same bytes.
func TestProofBellpersonVectors(t *testing.T) {
	var all []byte
	for i, h := range bellpersonProofs {
		b, err := hex.DecodeString(h)
		require.NoError(t, err)
		var p groth16.Proof
		require.NoError(t, p.UnmarshalBinary(b), "proof %d", i)
		again, err := p.MarshalBinary()
		require.NoError(t, err)
		assert.Equal(t, b, again, "proof %d", i)
		all = append(all, b...)
	}
	ps, err := groth16.UnmarshalProofs(all)
	require.NoError(t, err)
	again, err := groth16.MarshalProofs(ps)
	require.NoError(t, err)
	assert.Equal(t, all, again)
}

func TestProofsRoundTrip(t *testing.T) {
	ps := []groth16.Proof{fxProof(t), fxProof(t), fxProof(t)}
	b, err := groth16.MarshalProofs(ps)
	require.NoError(t, err)
	require.Len(t, b, 3*groth16.ProofSize)
	one, err := ps[1].MarshalBinary()
	require.NoError(t, err)
	assert.Equal(t, one, b[192:384], "partition order")
	got, err := groth16.UnmarshalProofs(b)
	require.NoError(t, err)
	assert.Equal(t, ps, got)

	for _, n := range []int{0, 191, 193, 2*192 + 1} {
		_, err := groth16.UnmarshalProofs(make([]byte, n))
		assert.ErrorIs(t, err, groth16.ErrMalformedProof, "%d bytes", n)
	}
	bad := bytes.Clone(b)
	bad[2*192+144] = 0xc0 // proof 2's C becomes the identity
	_, err = groth16.UnmarshalProofs(bad)
	require.ErrorIs(t, err, groth16.ErrMalformedProof)
	assert.Contains(t, err.Error(), "proof 2 point C")

	ps[1].B = bls12381.G2Affine{}
	_, err = groth16.MarshalProofs(ps)
	require.ErrorIs(t, err, groth16.ErrMalformedProof)
	assert.Contains(t, err.Error(), "proof 1 point B")
}

func TestProofMarshalRejectsIdentity(t *testing.T) {
	for _, name := range []string{"A", "B", "C"} {
		p := fxProof(t)
		switch name {
		case "A":
			p.A = bls12381.G1Affine{}
		case "B":
			p.B = bls12381.G2Affine{}
		case "C":
			p.C = bls12381.G1Affine{}
		}
		_, err := p.MarshalBinary()
		require.ErrorIs(t, err, groth16.ErrMalformedProof)
		assert.Contains(t, err.Error(), "point "+name)
	}
}

// No proof with a point off its curve or outside its subgroup is encoded:
// MarshalBinary and MarshalProofs refuse it, naming the proof and point.
func TestProofMarshalRejectsInvalidPoints(t *testing.T) {
	offG1 := fxG1(fxScalar(t))
	offG1.Y.Add(&offG1.Y, &offG1.X) // breaks y² = x³ + 4
	offG2 := fxG2(fxScalar(t))
	offG2.X.A0.Double(&offG2.X.A0)
	notG1, notG2 := testpoints.OutsideG1(t), testpoints.OutsideG2(t)
	tests := []struct {
		name   string
		mutate func(p *groth16.Proof)
		want   string
	}{
		{"A off curve", func(p *groth16.Proof) { p.A = offG1 }, "point A: point not on the curve"},
		{"B off curve", func(p *groth16.Proof) { p.B = offG2 }, "point B: point not on the curve"},
		{"C off curve", func(p *groth16.Proof) { p.C = offG1 }, "point C: point not on the curve"},
		{"A outside G1", func(p *groth16.Proof) { p.A = notG1 }, "point A: point not in the prime-order subgroup"},
		{"B outside G2", func(p *groth16.Proof) { p.B = notG2 }, "point B: point not in the prime-order subgroup"},
		{"C outside G1", func(p *groth16.Proof) { p.C = notG1 }, "point C: point not in the prime-order subgroup"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := fxProof(t)
			tt.mutate(&p)
			_, err := p.MarshalBinary()
			require.ErrorIs(t, err, groth16.ErrMalformedProof)
			assert.Contains(t, err.Error(), "groth16: proof "+tt.want)

			ps := []groth16.Proof{fxProof(t), p}
			_, err = groth16.MarshalProofs(ps)
			require.ErrorIs(t, err, groth16.ErrMalformedProof)
			assert.Contains(t, err.Error(), "groth16: proof 1 "+tt.want)
		})
	}
}

func TestProofUnmarshalRejects(t *testing.T) {
	p := fxProof(t)
	good, err := p.MarshalBinary()
	require.NoError(t, err)
	notG1 := testpoints.OutsideG1(t)
	notG2 := testpoints.OutsideG2(t)
	notG1b, notG2b := notG1.Bytes(), notG2.Bytes()
	modulus := fp.Modulus().FillBytes(make([]byte, fp.Bytes))
	// An x with no point above it: x³ + 4 is not a square.
	var offCurve [48]byte
	for x := uint64(1); ; x++ {
		var e, rhs, four fp.Element
		four.SetUint64(4)
		e.SetUint64(x)
		rhs.Square(&e).Mul(&rhs, &e).Add(&rhs, &four)
		if rhs.Legendre() == -1 {
			fp.BigEndian.PutElement(&offCurve, e)
			break
		}
	}
	offCurve[0] |= 0x80
	identityG1 := append([]byte{0xc0}, make([]byte, 47)...)
	identityG2 := append([]byte{0xc0}, make([]byte, 95)...)

	tests := []struct {
		name    string
		mutate  func(b []byte) []byte
		message string
	}{
		{"empty", func([]byte) []byte { return nil }, "0 bytes, want 192"},
		{"short", func(b []byte) []byte { return b[:191] }, "191 bytes, want 192"},
		{"long", func(b []byte) []byte { return append(b, 0) }, "193 bytes, want 192"},
		{"identity A", func(b []byte) []byte { copy(b[0:], identityG1); return b }, "point A at offset 0: point at infinity"},
		{"identity B", func(b []byte) []byte { copy(b[48:], identityG2); return b }, "point B at offset 48: point at infinity"},
		{"identity C", func(b []byte) []byte { copy(b[144:], identityG1); return b }, "point C at offset 144: point at infinity"},
		{"uncompressed flag", func(b []byte) []byte { b[0] &^= 0x80; return b }, "point A at offset 0: invalid flag bits"},
		{"all flags", func(b []byte) []byte { b[48] |= 0xe0; return b }, "point B at offset 48: invalid flag bits"},
		{"x not canonical", func(b []byte) []byte {
			copy(b[144:], modulus)
			b[144] |= 0x80
			return b
		}, "point C at offset 144: coordinate not below"},
		{"x.c0 not canonical", func(b []byte) []byte { copy(b[96:144], modulus); return b }, "point B at offset 48: coordinate not below"},
		{"A not on curve", func(b []byte) []byte { copy(b[0:], offCurve[:]); return b }, "point A at offset 0: point not on the curve"},
		{"A not in subgroup", func(b []byte) []byte { copy(b[0:], notG1b[:]); return b }, "point A at offset 0: point not in the prime-order subgroup"},
		{"B not in subgroup", func(b []byte) []byte { copy(b[48:], notG2b[:]); return b }, "point B at offset 48: point not in the prime-order subgroup"},
		{"C not in subgroup", func(b []byte) []byte { copy(b[144:], notG1b[:]); return b }, "point C at offset 144: point not in the prime-order subgroup"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var q groth16.Proof
			err := q.UnmarshalBinary(tt.mutate(bytes.Clone(good)))
			require.ErrorIs(t, err, groth16.ErrMalformedProof)
			assert.Contains(t, err.Error(), tt.message)
		})
	}
}

func ExampleProof_MarshalBinary() {
	_, _, g1, g2 := bls12381.Generators()
	p := groth16.Proof{A: g1, B: g2, C: g1}
	b, err := p.MarshalBinary()
	if err != nil {
		panic(err)
	}
	var q groth16.Proof
	if err := q.UnmarshalBinary(b); err != nil {
		panic(err)
	}
	fmt.Println(len(b), groth16.ProofSize, q.B.Equal(&g2))
	fmt.Printf("%x…\n", b[:4])
	// Output:
	// 192 192 true
	// 97f1d3a7…
}
