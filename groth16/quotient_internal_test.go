package groth16

import (
	"context"
	"fmt"
	"math/big"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/consensys/gnark-crypto/ecc"
	bls12381 "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr/fft"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuc2/gpuc2/internal/testcircuit"
	"github.com/gpuc2/gpuc2/msm"
	"github.com/gpuc2/gpuc2/synth"
)

// quotientWhole is the quotient as one gnark-crypto call per transform (the
// code before issue 15): the reference the split transforms must equal.
func quotientWhole(a, b, c []fr.Element, m int) []fr.Element {
	domain := fft.NewDomain(uint64(m))
	pad := func(v []fr.Element) []fr.Element { return append(v, make([]fr.Element, m-len(v))...) }
	a, b, c = pad(a), pad(b), pad(c)
	for _, v := range [][]fr.Element{a, b, c} {
		domain.FFTInverse(v, fft.DIF)
		domain.FFT(v, fft.DIT, fft.OnCoset())
	}
	var zInv fr.Element
	zInv.Exp(domain.FrMultiplicativeGen, big.NewInt(int64(m)))
	zInv.Sub(&zInv, &synth.CoeffOne).Inverse(&zInv)
	for i := range a {
		a[i].Mul(&a[i], &b[i]).Sub(&a[i], &c[i]).Mul(&a[i], &zInv)
	}
	domain.FFTInverse(a, fft.DIF, fft.OnCoset())
	fft.BitReverse(a)
	return a
}

func randomRows(rng *rand.Rand, n int) []fr.Element {
	v := make([]fr.Element, n)
	for i := range v {
		v[i].SetUint64(rng.Uint64())
		v[i].Mul(&v[i], &v[i]).Mul(&v[i], &v[i])
	}
	return v
}

// The split transforms give exactly the whole ones' result, with one block
// (m ≤ block), with every level above tiny blocks, and at the real block size.
func TestQuotientBlocksEqualsWhole(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 1))
	for _, tc := range []struct{ m, block int }{
		{2, 4}, {8, 8}, {8, 2}, {16, 1}, {64, 4}, {1 << 10, 8}, {1 << 10, 1 << 9},
		{4 * fftBlock, fftBlock},
	} {
		t.Run(fmt.Sprintf("m=%d/block=%d", tc.m, tc.block), func(t *testing.T) {
			rows := tc.m - tc.m/4 // padding too
			if tc.m <= 2 {
				rows = tc.m
			}
			a, b, c := randomRows(rng, rows), randomRows(rng, rows), randomRows(rng, rows)
			want := quotientWhole(append([]fr.Element(nil), a...), append([]fr.Element(nil), b...), append([]fr.Element(nil), c...), tc.m)
			got, err := quotientBlocks(context.Background(), slices.Clone(a), slices.Clone(b), slices.Clone(c), tc.m, tc.block)
			require.NoError(t, err)
			assert.Equal(t, want, got, "padded by appending")

			// With room for the domain, padding is in place: stale values
			// past the rows must not leak in.
			room := func(v []fr.Element) []fr.Element { return append(v, randomRows(rng, tc.m-rows)...)[:rows] }
			got, err = quotientBlocks(context.Background(), room(a), room(b), room(c), tc.m, tc.block)
			require.NoError(t, err)
			assert.Equal(t, want, got, "padded in place")
		})
	}
}

func TestQuotientCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	rng := rand.New(rand.NewPCG(15, 2))
	a, b, c := randomRows(rng, 100), randomRows(rng, 100), randomRows(rng, 100)
	_, err := quotientBlocks(ctx, a, b, c, 128, 8)
	assert.ErrorIs(t, err, context.Canceled)
}

// wholeMSM is msm.CPU as it was before issue 15: one gnark-crypto call.
type wholeMSM struct{}

func (wholeMSM) gather(n int, s []fr.Element, d *msm.Density) []fr.Element {
	if d == nil {
		return s
	}
	var sel []fr.Element
	for i := range s {
		if d.Test(i) {
			sel = append(sel, s[i])
		}
	}
	return sel[:n]
}

func (e wholeMSM) G1(_ context.Context, p []bls12381.G1Affine, s []fr.Element, d *msm.Density) (r bls12381.G1Jac, err error) {
	_, err = r.MultiExp(p, e.gather(len(p), s, d), ecc.MultiExpConfig{})
	return r, err
}

func (e wholeMSM) G2(_ context.Context, p []bls12381.G2Affine, s []fr.Element, d *msm.Density) (r bls12381.G2Jac, err error) {
	_, err = r.MultiExp(p, e.gather(len(p), s, d), ecc.MultiExpConfig{})
	return r, err
}

// The CPU prover's proof, with the split transforms and sliced MSMs, is the
// proof of whole transforms and one MSM call per section, byte for byte.
func TestCPUProverEqualsWhole(t *testing.T) {
	if testing.Short() {
		t.Skip("two proofs over a 2^16 domain")
	}
	ctx := context.Background()
	c := &testcircuit.Chain{N: 40000, Seed: 15, Inputs: 3}
	synthesize := func() *synth.ProvingAssignment {
		w := synth.NewProvingAssignment(synth.Sizes{})
		require.NoError(t, c.Synthesize(ctx, w))
		return w
	}
	w := synthesize()
	require.Greater(t, synth.DomainSize(w.NumRows()+len(w.Inputs)), fftBlock, "levels above the blocks")
	pk := tiledKey(t, w)
	var r, s fr.Element
	r.SetUint64(15)
	s.SetUint64(16)
	got, err := (&CPUProver{}).Prove(ctx, pk, w, WithRandomness(r, s))
	require.NoError(t, err)
	whole := func(_ context.Context, a, b, c []fr.Element, m int) ([]fr.Element, error) {
		return quotientWhole(a, b, c, m), nil
	}
	want, err := prove(ctx, pk, synthesize(), wholeMSM{}, whole, []ProveOption{WithRandomness(r, s)})
	require.NoError(t, err)
	gb, err := got.MarshalBinary()
	require.NoError(t, err)
	wb, err := want.MarshalBinary()
	require.NoError(t, err)
	assert.Equal(t, wb, gb)
}
