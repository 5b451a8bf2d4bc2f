package synth_test

import (
	"context"
	"sync"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuc2/gpuc2/internal/testcircuit"
	"github.com/gpuc2/gpuc2/synth"
	"github.com/gpuc2/gpuc2/synth/internal/testcs"
)

// part synthesizes one independent piece that also uses shared variables of
// the parent in A and B, and allocates inputs of its own.
func part(cs synth.ConstraintSystem, shared []synth.Variable, seed uint64) {
	x := cs.Alloc(elem(seed))
	in := cs.AllocInput(elem(seed + 1))
	var xs, v = elem(seed), elem(0)
	v.Mul(&xs, &xs)
	y := cs.Alloc(v)
	cs.Enforce(synth.LC(x), synth.LC(x), synth.LC(y))
	// shared[0] in A, shared[1] in B.
	s0, s1 := cs.Value(shared[0]), cs.Value(shared[1])
	v.Mul(&s0, &s1)
	z := cs.Alloc(v)
	cs.Enforce(synth.LC(shared[0]), synth.LC(shared[1]), synth.LC(z))
	cs.Enforce(synth.LC(in), synth.LC(synth.One), synth.LC(in))
	// A longer run of rows so that parts end mid-word in the bitmaps.
	c := &testcircuit.Chain{N: int(seed%7) + 60, Seed: seed, Inputs: 1}
	_ = c.Synthesize(context.Background(), cs)
}

func top(cs synth.ConstraintSystem) []synth.Variable {
	a := cs.Alloc(elem(3))
	b := cs.Alloc(elem(4))
	i := cs.AllocInput(elem(5))
	cs.Enforce(synth.LC(a), synth.LC(b), synth.LC(a).AddTerm(elem(3), a))
	return []synth.Variable{a, b, i}
}

func TestForkJoinEqualsSequential(t *testing.T) {
	seq := synth.NewProvingAssignment(synth.Sizes{})
	shared := top(seq)
	for k := uint64(0); k < 5; k++ {
		part(seq, shared, 10+k)
	}

	par := synth.NewProvingAssignment(synth.Sizes{})
	shared = top(par)
	children := make([]*synth.ProvingAssignment, 5)
	var wg sync.WaitGroup
	for k := range children {
		children[k] = par.Fork(synth.Sizes{})
		wg.Add(1)
		go func() {
			defer wg.Done()
			if k == 2 {
				// A nested fork: the grandchildren read both levels.
				c := children[k]
				inner := []*synth.ProvingAssignment{c.Fork(synth.Sizes{})}
				part(inner[0], shared, 10+uint64(k))
				require.NoError(t, c.Join(inner...))
				return
			}
			part(children[k], shared, 10+uint64(k))
		}()
	}
	wg.Wait()
	require.NoError(t, par.Join(children...))

	assertSameAssignment(t, seq, par)
}

func TestJoinRejectsForeignChild(t *testing.T) {
	p := synth.NewProvingAssignment(synth.Sizes{})
	q := synth.NewProvingAssignment(synth.Sizes{})
	assert.Error(t, p.Join(q.Fork(synth.Sizes{})))
	c := p.Fork(synth.Sizes{})
	p.Alloc(elem(1)) // p changed after the fork
	assert.Error(t, p.Join(c))
}

func TestResetReusesBuffers(t *testing.T) {
	c := &testcircuit.Chain{N: 300, Seed: 2, Inputs: 2}
	fresh := synth.NewProvingAssignment(synth.Sizes{})
	require.NoError(t, c.Synthesize(context.Background(), fresh))

	reused := synth.NewProvingAssignment(synth.Sizes{})
	require.NoError(t, (&testcircuit.Chain{N: 500, Seed: 9, Inputs: 3}).Synthesize(context.Background(), reused))
	reused.Reset()
	require.NoError(t, c.Synthesize(context.Background(), reused))
	assertSameAssignment(t, fresh, reused)
}

// ForkN children write in place when their sizes are exact, and still join
// correctly when a size is too small or too large.
func TestForkNEqualsSequential(t *testing.T) {
	seq, sizes := sequential(20)
	wrong := append([]synth.Sizes(nil), sizes...)
	wrong[1].Aux -= 3  // overflows: reallocates
	wrong[2].Rows += 5 // leaves a gap
	for name, sz := range map[string][]synth.Sizes{"exact": sizes, "inexact": wrong} {
		t.Run(name, func(t *testing.T) {
			par := synth.NewProvingAssignment(synth.Sizes{})
			forkParts(t, par, top(par), sz, 20)
			assertSameAssignment(t, seq, par)
		})
	}
}

// A full system in the caller's vectors writes its values there, through
// ForkN and after Reset, and equals one on the heap; a vector too small
// moves to the heap with the same values.
func TestProvingAssignmentInVectors(t *testing.T) {
	seq, sizes := sequential(20)
	rows := seq.NumRows()
	v := synth.Vectors{
		Aux: make([]fr.Element, 3, len(seq.Aux)), // lengths are ignored
		A:   make([]fr.Element, 0, rows), B: make([]fr.Element, 0, rows), C: make([]fr.Element, 5, rows),
	}
	w := synth.NewProvingAssignmentIn(synth.Sizes{}, v)
	for range 2 { // and again after Reset
		w.Reset()
		shared := top(w)
		part(w, shared, 20)
		forkParts(t, w, shared, sizes[1:], 21)
		assertSameAssignment(t, seq, w)
		for _, x := range [][2][]fr.Element{{v.Aux, w.Aux}, {v.A, w.A}, {v.B, w.B}, {v.C, w.C}} {
			assert.Same(t, &x[0][:1][0], &x[1][0], "the values are written into the caller's vectors")
		}
	}
	small := v
	small.B = make([]fr.Element, 0, rows-1)
	w = synth.NewProvingAssignmentIn(synth.Sizes{}, small)
	shared := top(w)
	for k := uint64(0); k < 4; k++ {
		part(w, shared, 20+k)
	}
	assertSameAssignment(t, seq, w) // b moved to the heap, the same values
	assert.NotSame(t, &small.B[:1][0], &w.B[0])
	assert.Same(t, &small.A[:1][0], &w.A[0])
}

// sequential synthesizes four parts from seed on, one after another, into
// a full system, and returns it and each part's sizes.
func sequential(seed uint64) (*synth.ProvingAssignment, []synth.Sizes) {
	seq := synth.NewProvingAssignment(synth.Sizes{})
	shared := top(seq)
	var sizes []synth.Sizes
	for k := uint64(0); k < 4; k++ {
		before := synth.Sizes{Inputs: len(seq.Inputs), Aux: len(seq.Aux), Rows: seq.NumRows()}
		part(seq, shared, seed+k)
		sizes = append(sizes, synth.Sizes{Inputs: len(seq.Inputs) - before.Inputs, Aux: len(seq.Aux) - before.Aux, Rows: seq.NumRows() - before.Rows})
	}
	return seq, sizes
}

// assertSameAssignment checks that two systems hold the same values, rows
// and densities.
func assertSameAssignment(t *testing.T, want, got *synth.ProvingAssignment) {
	t.Helper()
	assert.NoError(t, testcs.SameAssignment(want, got))
}

// A witness-only system keeps the same witness and row count as the full
// one, sequentially, through Fork and nested Join, through ForkN with exact
// and inexact sizes, and after Reset; it keeps no rows and no densities.
func TestWitnessOnlyEqualsWitness(t *testing.T) {
	full, sizes := sequential(30)
	wrong := append([]synth.Sizes(nil), sizes...)
	wrong[1].Aux -= 3
	wrong[2].Rows += 5
	same := func(t *testing.T, got *synth.ProvingAssignment) {
		t.Helper()
		require.True(t, got.WitnessOnly())
		assert.Equal(t, full.Inputs, got.Inputs)
		assert.Equal(t, full.Aux, got.Aux)
		assert.Equal(t, full.NumRows(), got.NumRows())
		assert.Empty(t, got.A)
		assert.Zero(t, got.AAux.Len+got.BAux.Len+got.BInput.Len)
	}
	t.Run("sequential", func(t *testing.T) {
		w := synth.NewWitnessAssignment(synth.Sizes{})
		shared := top(w)
		for k := uint64(0); k < 4; k++ {
			part(w, shared, 30+k)
		}
		same(t, w)
		w.Reset() // reused for the same circuit
		shared = top(w)
		for k := uint64(0); k < 4; k++ {
			part(w, shared, 30+k)
		}
		same(t, w)
	})
	t.Run("fork", func(t *testing.T) {
		w := synth.NewWitnessAssignment(synth.Sizes{})
		shared := top(w)
		children := make([]*synth.ProvingAssignment, 4)
		for k := range children {
			children[k] = w.Fork(synth.Sizes{})
		}
		var wg sync.WaitGroup
		for k, c := range children {
			wg.Go(func() {
				if k == 1 { // nested
					inner := c.Fork(synth.Sizes{})
					part(inner, shared, 30+uint64(k))
					assert.NoError(t, c.Join(inner))
					return
				}
				part(c, shared, 30+uint64(k))
			})
		}
		wg.Wait()
		require.NoError(t, w.Join(children...))
		same(t, w)
	})
	t.Run("caller's aux buffer", func(t *testing.T) {
		buf := make([]fr.Element, 7, len(full.Aux)) // its length is ignored
		w := synth.NewWitnessAssignmentIn(synth.Sizes{Inputs: len(full.Inputs)}, buf)
		for range 2 { // and again after Reset
			w.Reset()
			shared := top(w)
			part(w, shared, 30)
			forkParts(t, w, shared, sizes[1:], 31)
			same(t, w)
			assert.Same(t, &buf[:1][0], &w.Aux[0], "the values are written into the caller's buffer")
		}
		small := make([]fr.Element, 0, len(full.Aux)-1)
		w = synth.NewWitnessAssignmentIn(synth.Sizes{}, small)
		shared := top(w)
		for k := uint64(0); k < 4; k++ {
			part(w, shared, 30+k)
		}
		same(t, w) // moved to the heap, the same values
		assert.NotSame(t, &small[:1][0], &w.Aux[0])
	})
	for name, sz := range map[string][]synth.Sizes{"forkN exact": sizes, "forkN inexact": wrong} {
		t.Run(name, func(t *testing.T) {
			w := synth.NewWitnessAssignment(synth.Sizes{})
			forkParts(t, w, top(w), sz, 30)
			same(t, w)
		})
	}
}

// forkParts synthesizes parts seed, seed+1, … into w through ForkN with
// sizes, one goroutine a part, and joins them.
func forkParts(t *testing.T, w *synth.ProvingAssignment, shared []synth.Variable, sizes []synth.Sizes, seed uint64) {
	t.Helper()
	children := w.ForkN(sizes)
	var wg sync.WaitGroup
	for k, c := range children {
		wg.Go(func() { part(c, shared, seed+uint64(k)) })
	}
	wg.Wait()
	require.NoError(t, w.Join(children...))
}
