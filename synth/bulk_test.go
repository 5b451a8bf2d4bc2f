package synth_test

import (
	"math/rand/v2"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/stretchr/testify/require"

	"github.com/gpuc2/gpuc2/synth"
)

// Extend with MarkA, MarkB and OrAuxDensity writes exactly what Alloc and
// Enforce would: bit variables x_k, rows x_k · (ONE − y) = z with y an
// older variable (in a forked child: the parent's), at offsets that are not
// multiples of 64.
func TestBulkEqualsEnforce(t *testing.T) {
	for _, offset := range []int{0, 1, 63, 64, 100} {
		r := rand.New(rand.NewPCG(uint64(offset), 3))
		const n = 200
		vals := make([]bool, n)
		for k := range vals {
			vals[k] = r.IntN(2) == 1
		}
		bit := func(b bool) fr.Element {
			if b {
				return fr.One()
			}
			return fr.Element{}
		}
		setup := func() (*synth.ProvingAssignment, *synth.ProvingAssignment, synth.Variable) {
			p := synth.NewProvingAssignment(synth.Sizes{})
			for k := 0; k < offset; k++ {
				p.Alloc(fr.Element{})
			}
			y := p.Alloc(fr.One())
			c := p.ForkN([]synth.Sizes{{Aux: n}})[0]
			for k := 0; k < offset%7; k++ {
				c.Alloc(fr.Element{})
			}
			return p, c, y
		}

		want, wc, y := setup()
		first := wc.NextAux()
		for k := range vals {
			require.Equal(t, first+synth.Variable(k), wc.Alloc(bit(vals[k])))
		}
		for k := range vals {
			if k%3 == 0 { // only some variables get bits
				wc.Enforce(synth.LC(first+synth.Variable(k)), synth.LC(synth.One).Sub(y), nil)
			}
		}
		require.NoError(t, want.Join(wc))

		got, gc, y2 := setup()
		require.Equal(t, y, y2)
		start := gc.NextAux()
		require.Equal(t, first, start)
		aux, a, b, c := gc.Extend(n, (n+2)/3)
		var aBits, bBits []uint64 = make([]uint64, (n+63)/64), make([]uint64, (n+63)/64)
		for k := range vals {
			aux[k] = bit(vals[k])
			if k%3 == 0 {
				aBits[k/64] |= 1 << uint(k%64)
				a[k/3], b[k/3], c[k/3] = bit(vals[k]), fr.Element{}, fr.Element{}
			}
		}
		gc.OrAuxDensity(start, aBits, bBits)
		gc.MarkB(y)
		gc.MarkB(synth.One)
		require.NoError(t, got.Join(gc))
		assertSameAssignment(t, want, got)
	}
}
