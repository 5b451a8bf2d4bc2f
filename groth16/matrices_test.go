package groth16_test

import (
	"context"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
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

// proveWithMatrices checks p against the CPU prover's proof of a full
// synthesis: a witness-only assignment proved WithMatrices gives the same
// proof for the same r and s, and a full one ignores the matrices; without
// matrices, or with another circuit's, a witness-only one is refused with
// ErrInvalidInput.
func proveWithMatrices(t *testing.T, p groth16.Prover) {
	ctx := context.Background()
	c := &testcircuit.Chain{N: 300, Seed: 3, Inputs: 3}
	pk := setup(t, c, 7)
	ms := compile(t, c)
	var r, s fr.Element
	r.SetUint64(11)
	s.SetUint64(13)
	rs := groth16.WithRandomness(r, s)
	want := prove(t, pk, c, rs)

	got, err := p.Prove(ctx, pk, witness(t, c), groth16.WithMatrices(ms), rs)
	require.NoError(t, err)
	assert.Equal(t, want, got, "witness-only with matrices")
	got, err = groth16.Prove(ctx, p, pk, c, groth16.WithMatrices(ms), rs)
	require.NoError(t, err)
	assert.Equal(t, want, got, "a full synthesis ignores the matrices")

	_, err = p.Prove(ctx, pk, witness(t, c), rs)
	assert.ErrorIs(t, err, groth16.ErrInvalidInput, "witness-only without matrices")
	other := compile(t, &testcircuit.Chain{N: 200, Seed: 3, Inputs: 3})
	_, err = p.Prove(ctx, pk, witness(t, c), groth16.WithMatrices(other), rs)
	assert.ErrorIs(t, err, groth16.ErrInvalidInput, "another circuit's matrices")
}

func TestProveWithMatrices(t *testing.T) {
	proveWithMatrices(t, &groth16.CPUProver{})
}

// On a GPU: a, b, c evaluated on the device (resident key), and on the
// host for the streaming path.
func TestCUDAProverWithMatrices(t *testing.T) {
	for name, cfg := range map[string]groth16.CUDAConfig{"resident": {}, "streaming": {NoResident: true}} {
		t.Run(name, func(t *testing.T) { proveWithMatrices(t, gpuProver(t, cfg)) })
	}
}
