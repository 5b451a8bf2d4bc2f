package groth16_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuc2/gpuc2/groth16"
	"github.com/gpuc2/gpuc2/internal/testcircuit"
	"github.com/gpuc2/gpuc2/synth"
	"github.com/gpuc2/gpuc2/synth/pce"
)

// compile records c with its input rows appended (as Prove appends them)
// and compiles its matrices.
func compile(t testing.TB, c synth.Circuit) *pce.Matrices {
	t.Helper()
	rec := synth.NewRecorder()
	require.NoError(t, c.Synthesize(context.Background(), rec))
	synth.AppendInputRows(rec, len(rec.Inputs))
	ms, err := pce.Compile(rec)
	require.NoError(t, err)
	return ms
}

// witness synthesizes c's witness alone.
func witness(t testing.TB, c synth.Circuit) *synth.ProvingAssignment {
	t.Helper()
	w := synth.NewWitnessAssignment(synth.Sizes{})
	require.NoError(t, c.Synthesize(context.Background(), w))
	return w
}

// matricesCase is a small circuit, its key and matrices, and r, s.
func matricesCase(t *testing.T) (*testcircuit.Chain, *groth16.ProvingKey, *pce.Matrices, groth16.ProveOption) {
	c := &testcircuit.Chain{N: 300, Seed: 3, Inputs: 3}
	return c, setup(t, c, 7), compile(t, c), randomness(11, 13)
}

// proveWithMatrices checks p against the CPU prover's proof of a full
// synthesis: a witness-only assignment proved WithMatrices gives the same
// proof for the same r and s, and a full one ignores the matrices; without
// matrices, or with another circuit's, a witness-only one is refused with
// ErrInvalidInput.
func proveWithMatrices(t *testing.T, p groth16.Prover) {
	ctx := context.Background()
	c, pk, ms, rs := matricesCase(t)
	want := prove(t, pk, c, rs)

	got, err := p.Prove(ctx, pk, witness(t, c), groth16.WithMatrices(ms), rs)
	require.NoError(t, err)
	assert.Equal(t, want, got, "witness-only with matrices")
	got, err = groth16.Prove(ctx, p, pk, c, groth16.WithMatrices(ms), rs)
	require.NoError(t, err)
	assert.Equal(t, want, got, "a full synthesis ignores the matrices")

	// Without their arrays, the matrices serve a device that holds its own
	// copy (made above, found by their ID); the host's evaluation needs them.
	got, err = p.Prove(ctx, pk, witness(t, c), groth16.WithMatrices(ms.WithoutArrays()), rs)
	if _, gpu := p.(*groth16.CUDAProver); gpu {
		require.NoError(t, err)
		assert.Equal(t, want, got, "without arrays, from the device's copy")
	} else {
		assert.ErrorIs(t, err, pce.ErrNoArrays, "without arrays, evaluated on the host")
	}

	_, err = p.Prove(ctx, pk, witness(t, c), rs)
	assert.ErrorIs(t, err, groth16.ErrInvalidInput, "witness-only without matrices")
	other := compile(t, &testcircuit.Chain{N: 200, Seed: 3, Inputs: 3})
	_, err = p.Prove(ctx, pk, witness(t, c), groth16.WithMatrices(other), rs)
	assert.ErrorIs(t, err, groth16.ErrInvalidInput, "another circuit's matrices")
}

func TestProveWithMatrices(t *testing.T) {
	proveWithMatrices(t, &groth16.CPUProver{})
}

// On a GPU: a, b, c evaluated from the matrices, resident key and
// streamed; and a witness synthesized into groth16.PinnedVectors' memory
// gives the same proof, its upload reported as from pinned memory (one DMA).
func TestCUDAProverWithMatrices(t *testing.T) {
	for name, cfg := range map[string]groth16.CUDAConfig{"resident": {}, "streaming": {NoResident: true}} {
		t.Run(name, func(t *testing.T) {
			p := gpuProver(t, cfg)
			proveWithMatrices(t, p)

			ctx := context.Background()
			c, pk, ms, rs := matricesCase(t)
			heap := witness(t, c)
			aux, err := groth16.PinnedVectors{}.Alloc(len(heap.Aux))
			require.NoError(t, err)
			t.Cleanup(func() { assert.NoError(t, groth16.PinnedVectors{}.Free(aux)) })
			w := synth.NewWitnessAssignmentIn(synth.Sizes{}, aux)
			require.NoError(t, c.Synthesize(ctx, w))
			require.Same(t, &aux[:1][0], &w.Aux[0], "synthesized into the pinned vector")
			var pinned []any
			phases := groth16.WithPhases(func(name string, _, _ time.Time, args ...any) {
				for i := 0; name == "upload" && i+1 < len(args); i += 2 {
					if args[i] == "pinned_aux" {
						pinned = append(pinned, args[i+1])
					}
				}
			})
			got, err := p.Prove(ctx, pk, w, groth16.WithMatrices(ms), rs, phases)
			require.NoError(t, err)
			assert.Equal(t, prove(t, pk, c, rs), got)
			assert.Equal(t, []any{true}, pinned, "the witness's upload, from pinned memory")

			// Matrices no device holds (compiled again: another ID) cannot be
			// copied to it without their arrays.
			_, err = p.Prove(ctx, pk, witness(t, c), groth16.WithMatrices(compile(t, c).WithoutArrays()), rs)
			assert.ErrorIs(t, err, groth16.ErrInvalidInput)
			assert.ErrorIs(t, err, pce.ErrNoArrays)
		})
	}
}
