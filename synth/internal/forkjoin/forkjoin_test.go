package forkjoin_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuc2/gpuc2/internal/par"
	"github.com/gpuc2/gpuc2/synth"
	"github.com/gpuc2/gpuc2/synth/internal/forkjoin"
	"github.com/gpuc2/gpuc2/synth/internal/testcs"
)

// part i reads the top level's variable and adds a chain of rows of the
// same shape for every i (values differ).
func part(cs synth.ConstraintSystem, shared synth.Variable, i int) {
	cur := shared
	for k := range 50 {
		var v fr.Element
		v.SetUint64(uint64(i*1000 + k))
		x := cs.Alloc(v)
		prod := cs.Value(cur)
		prod.Mul(&prod, &v)
		y := cs.Alloc(prod)
		cs.Enforce(synth.LC(cur), synth.LC(x), synth.LC(y))
		cur = y
	}
}

func top(cs synth.ConstraintSystem) synth.Variable {
	return cs.Alloc(fr.NewElement(7))
}

var size = synth.Sizes{Aux: 100, Rows: 50}

// Whatever the limit, Run gives the assignment of running the parts one
// after another, and reports progress once per part, in order of counts.
func TestRunEqualsSequential(t *testing.T) {
	const n = 9
	seq := synth.NewProvingAssignment(synth.Sizes{})
	shared := top(seq)
	for i := range n {
		part(seq, shared, i)
	}
	for _, limit := range []int{0, 1, 3} {
		p := synth.NewProvingAssignment(synth.Sizes{})
		shared := top(p)
		var counts []int
		err := forkjoin.Run(context.Background(), p, n, size, limit, func(done, total int) {
			assert.Equal(t, n, total)
			counts = append(counts, done)
		}, func(_ context.Context, i int, cs *synth.ProvingAssignment) error {
			part(cs, shared, i)
			return nil
		})
		require.NoError(t, err)
		assert.NoError(t, testcs.SameAssignment(seq, p), "limit %d", limit)
		assert.Equal(t, []int{1, 2, 3, 4, 5, 6, 7, 8, 9}, counts)
	}
}

// A part's error, or its panic, fails Run; the parts not yet started do
// not run; a cancelled context runs none.
func TestRunErrors(t *testing.T) {
	boom := errors.New("boom")
	var ran atomic.Int32
	err := forkjoin.Run(context.Background(), synth.NewProvingAssignment(synth.Sizes{}), 50, size, 1, nil,
		func(_ context.Context, i int, cs *synth.ProvingAssignment) error {
			ran.Add(1)
			if i == 0 {
				return boom
			}
			return nil
		})
	assert.ErrorIs(t, err, boom)
	assert.Less(t, ran.Load(), int32(50), "cancelled after the error")

	err = forkjoin.Run(context.Background(), synth.NewProvingAssignment(synth.Sizes{}), 3, size, 0, nil,
		func(_ context.Context, i int, cs *synth.ProvingAssignment) error {
			if i == 1 {
				panic("part 1")
			}
			return nil
		})
	var pe *par.PanicError
	require.ErrorAs(t, err, &pe)
	assert.Equal(t, "part 1", pe.Value)

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	ran.Store(0)
	err = forkjoin.Run(ctx, synth.NewProvingAssignment(synth.Sizes{}), 3, size, 0, nil,
		func(context.Context, int, *synth.ProvingAssignment) error { ran.Add(1); return nil })
	assert.ErrorIs(t, err, context.Canceled)
	assert.Zero(t, ran.Load())
}
