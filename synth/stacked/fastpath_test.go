package stacked_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuc2/gpuc2/synth"
	"github.com/gpuc2/gpuc2/synth/gadgets/sha256"
	"github.com/gpuc2/gpuc2/synth/internal/testcs"
	"github.com/gpuc2/gpuc2/synth/stacked"
	"github.com/gpuc2/gpuc2/synth/stacked/stackedtest"
)

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
		require.NoError(t, c.Synthesize(context.Background(), testcs.Generic{P: slow}))
		require.NoError(t, testcs.SameAssignment(slow, fast), "%+v", p)
	}
	replayed, bad := sha256.FastPathShapes()
	assert.Positive(t, replayed)
	assert.Zero(t, bad, "compression shapes whose record failed its check")
}
