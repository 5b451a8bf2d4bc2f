package stacked_test

import (
	"context"
	"fmt"
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
		// Eleven layers (the 32 GiB label shapes) on a small tree.
		{"11 layers x3", func() stacked.Params {
			p := stacked.TestCircuitParams(merkle.Shape{Base: 8})
			p.Layers, p.Challenges = 11, 3
			return p
		}(), []int{4}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.name != "2KiB" && testing.Short() {
				t.Skip("5 M rows and more")
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

// The part sizes SynthesizeParallel forks along are exact, so its children
// write in place: each equals the distance between the steps that start
// consecutive parts in sequential synthesis.
func TestChallengePartsExact(t *testing.T) {
	shapes := []stacked.Params{stacked.Params2KiB}
	if !testing.Short() {
		p := stacked.Params32GiB
		p.Challenges = 2
		shapes = append(shapes, p)
	}
	for _, p := range shapes {
		starts := []string{"ch0 data_leaf", "ch0 tree-D inclusion", "ch0 DRG parent 0 column"}
		for l := 1; l <= p.Layers; l++ {
			starts = append(starts, fmt.Sprintf("ch0 layer %d parent bits", l))
		}
		starts = append(starts, "ch0 encode", "ch1 data_leaf")
		want := map[string]pos{}
		for _, s := range starts {
			want[s] = pos{}
		}
		got, _ := positions(t, p, 4, want)
		parts, err := p.ChallengeParts()
		require.NoError(t, err)
		require.Len(t, parts, len(starts)-1)
		for k, sz := range parts {
			a, b := got[starts[k]], got[starts[k+1]]
			assert.Equal(t, synth.Sizes{Inputs: b.inputs - a.inputs, Aux: b.aux - a.aux, Rows: b.rows - a.rows}, sz,
				"%d layers: part from %q", p.Layers, starts[k])
		}
	}
}
