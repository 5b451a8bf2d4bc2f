package stacked_test

import (
	"context"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuc2/gpuc2/synth"
	"github.com/gpuc2/gpuc2/synth/gadgets/sha256"
	"github.com/gpuc2/gpuc2/synth/stacked"
	"github.com/gpuc2/gpuc2/synth/stacked/stackedtest"
)

// generic hides ProvingAssignment's SmallRow fast path, so gadgets build and
// enforce every row as linear combinations.
type generic struct{ p *synth.ProvingAssignment }

func (g generic) Alloc(v fr.Element) synth.Variable       { return g.p.Alloc(v) }
func (g generic) AllocInput(v fr.Element) synth.Variable  { return g.p.AllocInput(v) }
func (g generic) Enforce(a, b, c synth.LinearCombination) { g.p.Enforce(a, b, c) }
func (g generic) Value(v synth.Variable) fr.Element       { return g.p.Value(v) }

// The witness-only fast paths — bit rows the gadgets hand over
// pre-evaluated, SHA-256 compressions replayed from their recorded
// templates — give exactly the values and densities of the same rows
// enforced as linear combinations.
func TestSmallRowFastPathEqualsGeneric(t *testing.T) {
	shapes := []stacked.Params{stacked.Params2KiB, stacked.TestCircuitParams(stacked.Params32GiB.TreeShape)}
	if !testing.Short() {
		// Eleven layers: the label shapes of 32 GiB sectors.
		p := stacked.TestCircuitParams(stacked.Params32GiB.TreeShape)
		p.Layers = 11
		shapes = append(shapes, p)
	}
	for _, p := range shapes {
		w, err := stackedtest.Partition(p, 5)
		require.NoError(t, err)
		c := &stacked.Circuit{Params: p, Witness: w, Workers: 1}
		fast := synth.NewProvingAssignment(synth.Sizes{})
		require.NoError(t, c.Synthesize(context.Background(), fast))
		slow := synth.NewProvingAssignment(synth.Sizes{})
		require.NoError(t, c.Synthesize(context.Background(), generic{slow}))
		require.Equal(t, slow.NumRows(), fast.NumRows())
		assert.Equal(t, slow.Inputs, fast.Inputs)
		assert.Equal(t, slow.Aux, fast.Aux)
		assert.True(t, equalElems(slow.A, fast.A), "A")
		assert.True(t, equalElems(slow.B, fast.B), "B")
		assert.True(t, equalElems(slow.C, fast.C), "C")
		assert.Equal(t, slow.AAux, fast.AAux)
		assert.Equal(t, slow.BAux, fast.BAux)
		assert.Equal(t, slow.BInput, fast.BInput)
	}
	replayed, bad := sha256.FastPathShapes()
	assert.Positive(t, replayed)
	assert.Zero(t, bad, "compression shapes whose record failed its check")
}

func equalElems(x, y []fr.Element) bool {
	if len(x) != len(y) {
		return false
	}
	for i := range x {
		if x[i] != y[i] {
			return false
		}
	}
	return true
}
