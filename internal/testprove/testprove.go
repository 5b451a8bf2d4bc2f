// Package testprove has the fixtures that the tests of groth16 and of
// groth16/gpu share: seeded setups, CPU reference proofs, compiled
// matrices, witnesses, and the checks every prover must pass with them.
package testprove

import (
	"context"
	"crypto/rand"
	mrand "math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuc2/gpuc2/groth16"
	"github.com/gpuc2/gpuc2/internal/testcircuit"
	"github.com/gpuc2/gpuc2/synth"
	"github.com/gpuc2/gpuc2/synth/pce"
)

// Randomness fixes a proof's r and s, so that two provers' proofs compare
// byte for byte.
func Randomness(r, s uint64) groth16.ProveOption {
	var re, se fr.Element
	re.SetUint64(r)
	se.SetUint64(s)
	return groth16.WithRandomness(re, se)
}

// Seeded is a deterministic randomness source for test setups.
type Seeded struct{ r *mrand.ChaCha8 }

// NewSeeded returns the source of seed.
func NewSeeded(seed byte) Seeded {
	var s [32]byte
	s[0] = seed
	return Seeded{mrand.NewChaCha8(s)}
}

func (s Seeded) Read(p []byte) (int, error) { return s.r.Read(p) }

// Setup runs groth16.Setup for c with the randomness of seed.
func Setup(t testing.TB, c synth.Circuit, seed byte) *groth16.ProvingKey {
	t.Helper()
	pk, err := groth16.Setup(context.Background(), c, NewSeeded(seed))
	require.NoError(t, err)
	return pk
}

// Prove proves c with pk on the CPU prover.
func Prove(t testing.TB, pk *groth16.ProvingKey, c synth.Circuit, opts ...groth16.ProveOption) *groth16.Proof {
	t.Helper()
	p, err := groth16.Prove(context.Background(), &groth16.CPUProver{}, pk, c, opts...)
	require.NoError(t, err)
	return p
}

// CubicKey is a key for testcircuit.Cubic with x = 3 (a fresh random
// setup) and that circuit.
func CubicKey(t testing.TB) (*groth16.ProvingKey, synth.Circuit) {
	t.Helper()
	c := &testcircuit.Cubic{}
	c.X.SetUint64(3)
	pk, err := groth16.Setup(context.Background(), c, rand.Reader)
	require.NoError(t, err)
	return pk, c
}

// FileKey returns a small in-memory key (CubicKey's) and its copy written
// to a .params file and opened (whose sections are decoded on demand and
// can be dropped), closed when the test ends.
func FileKey(t testing.TB) (mem, file *groth16.ProvingKey) {
	t.Helper()
	mem, _ = CubicKey(t)
	path := filepath.Join(t.TempDir(), "k.params")
	f, err := os.Create(path)
	require.NoError(t, err)
	_, err = mem.WriteTo(f)
	require.NoError(t, err)
	require.NoError(t, f.Close())
	file, err = groth16.OpenProvingKey(path)
	require.NoError(t, err)
	t.Cleanup(func() { _ = file.Close() })
	return mem, file
}

// Compile records c with its input rows appended (as Prove appends them)
// and compiles its matrices.
func Compile(t testing.TB, c synth.Circuit) *pce.Matrices {
	t.Helper()
	rec := synth.NewRecorder()
	require.NoError(t, c.Synthesize(context.Background(), rec))
	synth.AppendInputRows(rec, len(rec.Inputs))
	ms, err := pce.Compile(rec)
	require.NoError(t, err)
	return ms
}

// Witness synthesizes c's witness alone.
func Witness(t testing.TB, c synth.Circuit) *synth.ProvingAssignment {
	t.Helper()
	w := synth.NewWitnessAssignment(synth.Sizes{})
	require.NoError(t, c.Synthesize(context.Background(), w))
	return w
}

// MatricesCase is a small circuit, its key and matrices, and r, s.
func MatricesCase(t testing.TB) (*testcircuit.Chain, *groth16.ProvingKey, *pce.Matrices, groth16.ProveOption) {
	t.Helper()
	c := &testcircuit.Chain{N: 300, Seed: 3, Inputs: 3}
	return c, Setup(t, c, 7), Compile(t, c), Randomness(11, 13)
}

// ProveWithMatrices checks p against the CPU prover's proof of a full
// synthesis: a witness-only assignment proved WithMatrices gives the same
// proof for the same r and s, and a full one ignores the matrices; without
// matrices, or with another circuit's, a witness-only one is refused with
// ErrInvalidInput. Matrices without their arrays serve a prover that
// holds its own copy (deviceCopy: a GPU's, made by the first proof); the
// host's evaluation needs them.
func ProveWithMatrices(t *testing.T, p groth16.Prover, deviceCopy bool) {
	t.Helper()
	ctx := context.Background()
	c, pk, ms, rs := MatricesCase(t)
	want := Prove(t, pk, c, rs)

	got, err := p.Prove(ctx, pk, Witness(t, c), groth16.WithMatrices(ms), rs)
	require.NoError(t, err)
	assert.Equal(t, want, got, "witness-only with matrices")
	got, err = groth16.Prove(ctx, p, pk, c, groth16.WithMatrices(ms), rs)
	require.NoError(t, err)
	assert.Equal(t, want, got, "a full synthesis ignores the matrices")

	// Without their arrays, the matrices serve a device that holds its own
	// copy (made above, found by their ID); the host's evaluation needs them.
	got, err = p.Prove(ctx, pk, Witness(t, c), groth16.WithMatrices(ms.WithoutArrays()), rs)
	if deviceCopy {
		require.NoError(t, err)
		assert.Equal(t, want, got, "without arrays, from the device's copy")
	} else {
		assert.ErrorIs(t, err, pce.ErrNoArrays, "without arrays, evaluated on the host")
	}

	_, err = p.Prove(ctx, pk, Witness(t, c), rs)
	assert.ErrorIs(t, err, groth16.ErrInvalidInput, "witness-only without matrices")
	other := Compile(t, &testcircuit.Chain{N: 200, Seed: 3, Inputs: 3})
	_, err = p.Prove(ctx, pk, Witness(t, c), groth16.WithMatrices(other), rs)
	assert.ErrorIs(t, err, groth16.ErrInvalidInput, "another circuit's matrices")
}
