package groth16_test

import (
	"bytes"
	"fmt"
	"testing"

	bls12381 "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuc2/gpuc2/groth16"
	"github.com/gpuc2/gpuc2/internal/testpoints"
)

func TestVerify(t *testing.T) {
	for _, nIC := range []int{1, 2, 5, 40} { // 40: IC sum through the bucket MSM
		t.Run(fmt.Sprintf("%d ic", nIC), func(t *testing.T) {
			vk, tw := fxSetup(t, nIC)
			x := fxInputs(t, nIC-1)
			proof := tw.fxProve(t, x)

			ok, err := groth16.Verify(vk, &proof, x)
			require.NoError(t, err)
			assert.True(t, ok)
			pvk := groth16.PrepareVerifyingKey(vk)
			ok, err = pvk.Verify(&proof, x)
			require.NoError(t, err)
			assert.True(t, ok, "prepared key")

			// Through the wire formats.
			var vkb bytes.Buffer
			_, err = vk.WriteTo(&vkb)
			require.NoError(t, err)
			vk2, err := groth16.ReadVerifyingKey(&vkb)
			require.NoError(t, err)
			pb, err := proof.MarshalBinary()
			require.NoError(t, err)
			var proof2 groth16.Proof
			require.NoError(t, proof2.UnmarshalBinary(pb))
			ok, err = groth16.Verify(vk2, &proof2, x)
			require.NoError(t, err)
			assert.True(t, ok, "after encode/decode")
		})
	}
}

func TestVerifyRejects(t *testing.T) {
	vk, tw := fxSetup(t, 3)
	x := fxInputs(t, 2)
	good := tw.fxProve(t, x)
	otherVK, _ := fxSetup(t, 3)
	_, _, g1, g2 := bls12381.Generators()

	tests := []struct {
		name   string
		vk     *groth16.VerifyingKey
		proof  func(p *groth16.Proof)
		public func() []fr.Element
	}{
		{"A tampered", vk, func(p *groth16.Proof) { p.A.Add(&p.A, &g1) }, nil},
		{"B tampered", vk, func(p *groth16.Proof) { p.B.Add(&p.B, &g2) }, nil},
		{"C tampered", vk, func(p *groth16.Proof) { p.C.Add(&p.C, &g1) }, nil},
		{"A and C swapped", vk, func(p *groth16.Proof) { p.A, p.C = p.C, p.A }, nil},
		{"C identity", vk, func(p *groth16.Proof) { p.C = bls12381.G1Affine{} }, nil},
		{"A outside G1", vk, func(p *groth16.Proof) { p.A = testpoints.OutsideG1(t) }, nil},
		{"B outside G2", vk, func(p *groth16.Proof) { p.B = testpoints.OutsideG2(t) }, nil},
		{"input changed", vk, nil, func() []fr.Element {
			y := append([]fr.Element(nil), x...)
			y[1].Add(&y[1], new(fr.Element).SetOne())
			return y
		}},
		{"inputs swapped", vk, nil, func() []fr.Element { return []fr.Element{x[1], x[0]} }},
		{"other key", otherVK, nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := good
			if tt.proof != nil {
				tt.proof(&p)
			}
			public := x
			if tt.public != nil {
				public = tt.public()
			}
			ok, err := groth16.Verify(tt.vk, &p, public)
			require.NoError(t, err)
			assert.False(t, ok)
		})
	}
}

func TestVerifyInputCount(t *testing.T) {
	vk, tw := fxSetup(t, 3)
	x := fxInputs(t, 2)
	proof := tw.fxProve(t, x)
	for _, n := range []int{0, 1, 3} {
		_, err := groth16.Verify(vk, &proof, fxInputs(t, n))
		assert.ErrorIs(t, err, groth16.ErrInvalidInput, "%d inputs", n)
	}
	_, err := groth16.Verify(nil, &proof, x)
	assert.ErrorIs(t, err, groth16.ErrInvalidInput)
	_, err = groth16.PrepareVerifyingKey(vk).Verify(nil, x)
	assert.ErrorIs(t, err, groth16.ErrInvalidInput)
}

func TestBatchVerify(t *testing.T) {
	const n = 5
	vk, tw := fxSetup(t, 4)
	proofs := make([]groth16.Proof, n)
	public := make([][]fr.Element, n)
	for i := range proofs {
		public[i] = fxInputs(t, 3)
		proofs[i] = tw.fxProve(t, public[i])
	}
	ok, err := groth16.BatchVerify(vk, proofs, public)
	require.NoError(t, err)
	require.True(t, ok)
	ok, err = groth16.BatchVerify(vk, proofs[:1], public[:1])
	require.NoError(t, err)
	require.True(t, ok, "batch of one")

	_, _, g1, _ := bls12381.Generators()
	for i := range n {
		t.Run(fmt.Sprintf("bad proof %d", i), func(t *testing.T) {
			bad := append([]groth16.Proof(nil), proofs...)
			bad[i].C.Add(&bad[i].C, &g1)
			ok, err := groth16.BatchVerify(vk, bad, public)
			require.NoError(t, err)
			assert.False(t, ok)
		})
		t.Run(fmt.Sprintf("bad input %d", i), func(t *testing.T) {
			in := append([][]fr.Element(nil), public...)
			in[i] = append([]fr.Element(nil), public[i]...)
			in[i][2].SetUint64(7)
			ok, err := groth16.BatchVerify(vk, proofs, in)
			require.NoError(t, err)
			assert.False(t, ok)
		})
	}
	// Errors that cancel in an unweighted sum must still be caught.
	t.Run("compensating errors", func(t *testing.T) {
		bad := append([]groth16.Proof(nil), proofs...)
		var neg bls12381.G1Affine
		neg.Neg(&g1)
		bad[1].C.Add(&bad[1].C, &g1)
		bad[3].C.Add(&bad[3].C, &neg)
		ok, err := groth16.BatchVerify(vk, bad, public)
		require.NoError(t, err)
		assert.False(t, ok)
	})
	t.Run("swapped inputs", func(t *testing.T) {
		in := append([][]fr.Element(nil), public...)
		in[0], in[1] = in[1], in[0]
		ok, err := groth16.BatchVerify(vk, proofs, in)
		require.NoError(t, err)
		assert.False(t, ok)
	})
	t.Run("outside subgroup", func(t *testing.T) {
		bad := append([]groth16.Proof(nil), proofs...)
		bad[2].B = testpoints.OutsideG2(t)
		ok, err := groth16.BatchVerify(vk, bad, public)
		require.NoError(t, err)
		assert.False(t, ok)
	})
}

func TestBatchVerifyInputErrors(t *testing.T) {
	vk, tw := fxSetup(t, 2)
	x := fxInputs(t, 1)
	p := tw.fxProve(t, x)
	tests := []struct {
		name   string
		proofs []groth16.Proof
		public [][]fr.Element
	}{
		{"no proofs", nil, nil},
		{"fewer input vectors", []groth16.Proof{p, p}, [][]fr.Element{x}},
		{"wrong input count", []groth16.Proof{p, p}, [][]fr.Element{x, fxInputs(t, 2)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := groth16.BatchVerify(vk, tt.proofs, tt.public)
			assert.ErrorIs(t, err, groth16.ErrInvalidInput)
		})
	}
}
