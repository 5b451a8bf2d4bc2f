package poseidon

import (
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A trace ends with the hash; the gadget's test checks every value.
func TestTraceEndsWithHash(t *testing.T) {
	for _, arity := range []int{2, 4, 8, 11} {
		c, err := ConstantsFor(arity)
		require.NoError(t, err)
		in := make([]fr.Element, arity)
		for i := range in {
			_, _ = in[i].SetRandom()
		}
		tr := make([]fr.Element, c.TraceLen())
		require.NoError(t, c.Trace(tr, in))
		h, err := c.Hash(in)
		require.NoError(t, err)
		assert.Equal(t, h, tr[len(tr)-1], "arity %d", arity)

		assert.ErrorIs(t, c.Trace(tr, in[1:]), ErrArity)
		assert.Error(t, c.Trace(tr[1:], in))
	}
}
