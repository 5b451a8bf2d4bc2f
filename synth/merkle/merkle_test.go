package merkle_test

import (
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/gpuc2/gpuc2/synth/hash/poseidon"
	"github.com/gpuc2/gpuc2/synth/hash/sha256"
	"github.com/gpuc2/gpuc2/synth/merkle"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func leaves(n int) []fr.Element {
	out := make([]fr.Element, n)
	for i := range out {
		out[i].SetUint64(uint64(i*7 + 1))
	}
	return out
}

func TestArities(t *testing.T) {
	tests := []struct {
		n     int
		shape merkle.Shape
		want  []int
	}{
		{64, merkle.Shape{Base: 8}, []int{8, 8}},
		{64, merkle.Shape{Base: 2}, []int{2, 2, 2, 2, 2, 2}},
		{512, merkle.Shape{Base: 8, Sub: 8}, []int{8, 8, 8}},
		{1024, merkle.Shape{Base: 8, Sub: 8, Top: 2}, []int{8, 8, 8, 2}},
		{1 << 30, merkle.Shape{Base: 8, Sub: 8}, []int{8, 8, 8, 8, 8, 8, 8, 8, 8, 8}},
		{1 << 31, merkle.Shape{Base: 8, Sub: 8, Top: 2}, []int{8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 2}},
	}
	for _, tc := range tests {
		got, err := tc.shape.Arities(tc.n)
		require.NoError(t, err)
		assert.Equal(t, tc.want, got)
	}
	for _, bad := range []struct {
		n int
		s merkle.Shape
	}{{63, merkle.Shape{Base: 8}}, {64, merkle.Shape{Base: 3}}, {128, merkle.Shape{Base: 8}}, {0, merkle.Shape{Base: 8}}, {16, merkle.Shape{Base: 8, Top: 2}}} {
		_, err := bad.s.Arities(bad.n)
		assert.ErrorIs(t, err, merkle.ErrShape)
	}
}

func TestPoseidonTrees(t *testing.T) {
	for _, tc := range []struct {
		n int
		s merkle.Shape
	}{{64, merkle.Shape{Base: 8}}, {64, merkle.Shape{Base: 2}}, {64, merkle.Shape{Base: 4}},
		{512, merkle.Shape{Base: 8, Sub: 8}}, {1024, merkle.Shape{Base: 8, Sub: 8, Top: 2}}} {
		ls := leaves(tc.n)
		tr, err := merkle.NewPoseidon(ls, tc.s)
		require.NoError(t, err)
		// The compound root is the sub/top hash of contiguous base-tree roots.
		if tc.s.Sub != 0 && tc.s.Top == 0 {
			per := tc.n / tc.s.Sub
			roots := make([]fr.Element, tc.s.Sub)
			for k := range roots {
				bt, err := merkle.NewPoseidon(ls[k*per:(k+1)*per], merkle.Shape{Base: tc.s.Base})
				require.NoError(t, err)
				roots[k] = bt.Root()
			}
			want, err := poseidon.Hash(roots)
			require.NoError(t, err)
			assert.Equal(t, want, tr.Root())
		}
		for _, i := range []int{0, 1, tc.n/2 + 3, tc.n - 1} {
			p, err := tr.Path(i)
			require.NoError(t, err)
			assert.Equal(t, uint64(i), p.LeafIndex())
			assert.True(t, p.Verify(merkle.PoseidonHash, ls[i], tr.Root()))
			assert.False(t, p.Verify(merkle.PoseidonHash, ls[(i+1)%tc.n], tr.Root()))
		}
		_, err = tr.Path(tc.n)
		assert.ErrorIs(t, err, merkle.ErrIndex)
	}
}

func TestSHA256Tree(t *testing.T) {
	ls := leaves(8)
	tr, err := merkle.NewSHA256(ls)
	require.NoError(t, err)
	h := func(a, b fr.Element) fr.Element { return sha256.HashFr(&a, &b) }
	l1 := []fr.Element{h(ls[0], ls[1]), h(ls[2], ls[3]), h(ls[4], ls[5]), h(ls[6], ls[7])}
	want := h(h(l1[0], l1[1]), h(l1[2], l1[3]))
	assert.Equal(t, want, tr.Root())
	for i := range ls {
		p, err := tr.Path(i)
		require.NoError(t, err)
		assert.True(t, p.Verify(merkle.SHA256Hash, ls[i], tr.Root()))
	}
	_, err = merkle.NewSHA256(leaves(6))
	assert.ErrorIs(t, err, merkle.ErrShape)
}
