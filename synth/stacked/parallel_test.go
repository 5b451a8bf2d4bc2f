package stacked_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuc2/gpuc2/synth"
	"github.com/gpuc2/gpuc2/synth/merkle"
	"github.com/gpuc2/gpuc2/synth/stacked"
	"github.com/gpuc2/gpuc2/synth/stacked/stackedtest"
)

// Parallel synthesis gives exactly the sequential assignment: rows,
// values, inputs and densities.
func TestParallelEqualsSequential(t *testing.T) {
	tests := []struct {
		name    string
		p       stacked.Params
		workers []int
	}{
		{"2KiB", stacked.Params2KiB, []int{0, 2, 3}},
		// Four challenges of a test shape with sub and top levels, more
		// challenges than workers.
		{"8-4-2 x4", func() stacked.Params {
			p := stacked.TestCircuitParams(merkle.Shape{Base: 8, Sub: 4, Top: 2})
			p.Challenges = 4
			return p
		}(), []int{3}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.name != "2KiB" && testing.Short() {
				t.Skip("5 M rows")
			}
			w, err := stackedtest.Partition(tc.p, 21)
			require.NoError(t, err)
			seq := synth.NewProvingAssignment(tc.p.Sizes())
			require.NoError(t, (&stacked.Circuit{Params: tc.p, Witness: w, Workers: 1}).Synthesize(context.Background(), seq))
			for _, n := range tc.workers {
				par := synth.NewProvingAssignment(tc.p.Sizes())
				require.NoError(t, (&stacked.Circuit{Params: tc.p, Witness: w}).SynthesizeParallel(context.Background(), par, n))
				assert.Equal(t, seq.NumRows(), par.NumRows())
				assert.True(t, equal(seq.Inputs, par.Inputs), "inputs, %d workers", n)
				assert.True(t, equal(seq.Aux, par.Aux), "aux, %d workers", n)
				assert.True(t, equal(seq.A, par.A), "A, %d workers", n)
				assert.True(t, equal(seq.B, par.B), "B, %d workers", n)
				assert.True(t, equal(seq.C, par.C), "C, %d workers", n)
				assert.Equal(t, seq.AAux, par.AAux, "a_aux density, %d workers", n)
				assert.Equal(t, seq.BAux, par.BAux, "b_aux density, %d workers", n)
				assert.Equal(t, seq.BInput, par.BInput, "b_input density, %d workers", n)
			}
		})
	}
}

// equal compares long slices without testify's diff machinery.
func equal[T comparable](a, b []T) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
