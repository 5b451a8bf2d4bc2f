package synth_test

import (
	"context"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuc2/gpuc2/internal/testcircuit"
	"github.com/gpuc2/gpuc2/synth"
)

func elem(v uint64) fr.Element {
	var e fr.Element
	e.SetUint64(v)
	return e
}

func TestCheckerCountsCubic(t *testing.T) {
	c := synth.NewChecker()
	require.NoError(t, (&testcircuit.Cubic{X: elem(3)}).Synthesize(context.Background(), c))
	require.NoError(t, c.Err())
	// Rows: x·x = x2; x2·x = x3; (x3 + x + 5·ONE)·ONE = out.
	assert.Equal(t, synth.Stats{
		Constraints: 3, Inputs: 2, Aux: 3,
		NNZA: 1 + 1 + 3, NNZB: 1 + 1 + 1, NNZC: 3,
		AAuxDensity: 3, BInputDensity: 1, BAuxDensity: 1,
	}, c.Stats())

	synth.AppendInputRows(c, 2)
	s := c.Stats()
	assert.Equal(t, 5, s.Constraints)
	assert.Equal(t, 7, s.NNZA, "input rows put each input in A")
	assert.Equal(t, 3, s.NNZB, "input rows add nothing to B")
}

// mergeCircuit has rows whose linear combinations repeat variables,
// including a term that cancels exactly.
type mergeCircuit struct{}

func (mergeCircuit) Synthesize(_ context.Context, cs synth.ConstraintSystem) error {
	x := cs.Alloc(elem(2))
	y := cs.Alloc(elem(5))
	z := cs.Alloc(elem(10))
	// (x + x − x)·y = z: A merges to 1·x.
	cs.Enforce(synth.LC(x, x).Sub(x), synth.LC(y), synth.LC(z))
	// (x + y − y)·(ONE + y − y) = x: y cancels to a zero coefficient in A and B,
	// so it sets no density bit and counts as no non-zero.
	cs.Enforce(synth.LC(x, y).Sub(y), synth.LC(synth.One, y).Sub(y), synth.LC(x))
	return nil
}

func TestCheckerMergesDuplicates(t *testing.T) {
	c := synth.NewChecker()
	require.NoError(t, mergeCircuit{}.Synthesize(context.Background(), c))
	require.NoError(t, c.Err())
	assert.Equal(t, synth.Stats{
		Constraints: 2, Inputs: 1, Aux: 3,
		NNZA: 2, NNZB: 2, NNZC: 2,
		AAuxDensity: 1, BInputDensity: 1, BAuxDensity: 1,
	}, c.Stats())
}

// badCircuit's second row does not hold.
type badCircuit struct{}

func (badCircuit) Synthesize(_ context.Context, cs synth.ConstraintSystem) error {
	x := cs.Alloc(elem(3))
	y := cs.Alloc(elem(9))
	cs.Enforce(synth.LC(x), synth.LC(x), synth.LC(y))
	cs.Enforce(synth.LC(x), synth.LC(y), synth.LC(y))
	cs.Enforce(synth.LC(x), synth.LC(x), synth.LC(x))
	return nil
}

func TestCheckerReportsFirstUnsatisfied(t *testing.T) {
	c := synth.NewChecker()
	require.NoError(t, badCircuit{}.Synthesize(context.Background(), c))
	assert.Equal(t, 1, c.FirstUnsatisfied())
	assert.ErrorIs(t, c.Err(), synth.ErrUnsatisfied)
	assert.Contains(t, c.Err().Error(), "row 1 of 3")
}

// The three systems agree on a circuit mixing every row kind: the witness-only
// evaluations equal the recorded matrices times the assignment, and all
// track the same densities.
func TestSystemsAgree(t *testing.T) {
	circ := &testcircuit.Chain{N: 500, Seed: 4, Inputs: 3}
	ctx := context.Background()
	p := synth.NewProvingAssignment(synth.Sizes{})
	r := synth.NewRecorder()
	c := synth.NewChecker()
	for _, cs := range []synth.ConstraintSystem{p, r, c} {
		require.NoError(t, circ.Synthesize(ctx, cs))
	}
	require.NoError(t, c.Err())
	require.Equal(t, p.NumRows(), r.NumRows())
	assert.Equal(t, p.A, r.MulVec(&r.A, r.Inputs, r.Aux))
	assert.Equal(t, p.B, r.MulVec(&r.B, r.Inputs, r.Aux))
	assert.Equal(t, p.C, r.MulVec(&r.C, r.Inputs, r.Aux))
	assert.Equal(t, p.AAux, r.AAux)
	assert.Equal(t, p.BAux, r.BAux)
	assert.Equal(t, p.BInput, r.BInput)
	s := c.Stats()
	assert.Equal(t, s.NNZA, r.A.NNZ())
	assert.Equal(t, s.NNZB, r.B.NNZ())
	assert.Equal(t, s.NNZC, r.C.NNZ())
	assert.Equal(t, s.AAuxDensity, p.AAux.Count())
	for i := range p.A {
		var ab fr.Element
		ab.Mul(&p.A[i], &p.B[i])
		require.Equal(t, ab, p.C[i], "row %d", i)
	}
}

// A recorder sized for the circuit records what an unsized one does, and
// with room for all of it grows none of its slices (each growth would leave
// a backing array behind as garbage).
func TestRecorderSized(t *testing.T) {
	circ := &testcircuit.Chain{N: 500, Seed: 4, Inputs: 3}
	ctx := context.Background()
	want := synth.NewRecorder()
	require.NoError(t, circ.Synthesize(ctx, want))
	synth.AppendInputRows(want, len(want.Inputs))

	hint := synth.Sizes{Inputs: len(want.Inputs), Aux: len(want.Aux), Rows: want.NumRows() - len(want.Inputs)}
	terms := [3]int{want.A.NNZ(), want.B.NNZ(), want.C.NNZ()}
	got := synth.NewRecorderSized(hint, terms)
	firsts := func(r *synth.Recorder) []any {
		return []any{&r.Aux[:1][0], &r.Inputs[:1][0], &r.A.RowStart[0], &r.A.Cols[:1][0], &r.B.CoeffIDs[:1][0], &r.C.Cols[:1][0], &r.AAux.Words[:1][0]}
	}
	before := firsts(got)
	require.NoError(t, circ.Synthesize(ctx, got))
	synth.AppendInputRows(got, len(got.Inputs))
	assert.Equal(t, want.A, got.A)
	assert.Equal(t, want.B, got.B)
	assert.Equal(t, want.C, got.C)
	assert.Equal(t, want.Coeffs, got.Coeffs)
	assert.Equal(t, want.Aux, got.Aux)
	assert.Equal(t, want.Inputs, got.Inputs)
	assert.Equal(t, want.AAux, got.AAux)
	assert.Equal(t, want.BAux, got.BAux)
	assert.Equal(t, want.BInput, got.BInput)
	after := firsts(got)
	for i := range before {
		assert.Same(t, before[i], after[i], "slice %d moved: it grew", i)
	}
}

func TestVariables(t *testing.T) {
	assert.Equal(t, synth.One, synth.Input(0))
	assert.False(t, synth.Input(5).IsAux())
	assert.True(t, synth.Aux(5).IsAux())
	assert.Equal(t, 5, synth.Aux(5).Index())
	assert.Less(t, synth.Input(1<<30), synth.Aux(0), "inputs order before aux")
	assert.Equal(t, "aux7", synth.Aux(7).String())
}
