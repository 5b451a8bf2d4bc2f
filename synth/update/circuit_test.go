package update_test

import (
	"context"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuc2/gpuc2/synth"
	"github.com/gpuc2/gpuc2/synth/update"
)

func params(t testing.TB, size uint64) update.Params {
	t.Helper()
	p, err := update.ParamsForSectorSize(size)
	require.NoError(t, err)
	return p
}

// synthesize runs c into a checker and returns it.
func synthesize(t testing.TB, c *update.Circuit) *synth.Checker {
	t.Helper()
	ch := synth.NewChecker()
	require.NoError(t, c.Synthesize(context.Background(), ch))
	return ch
}

// A synthetic update's partitions satisfy the circuit, with
// tests/circuit.rs' constraint count, and the circuit's inputs are the
// natively computed public inputs.
func TestCircuitSatisfied2KiB(t *testing.T) {
	p := params(t, 2<<10)
	s, err := update.NewSynthetic(p, 1)
	require.NoError(t, err)
	require.NoError(t, update.Check(context.Background(), p, s.Proofs, s.H, s.CommROld, s.CommDNew, s.CommRNew))
	for k := range p.Partitions {
		w, err := s.Witness(k)
		require.NoError(t, err)
		ch := synthesize(t, &update.Circuit{Params: p, Witness: w})
		require.NoError(t, ch.Err())
		assert.Equal(t, 1705039, ch.Stats().Constraints)
		want, err := s.PublicInputs(k)
		require.NoError(t, err)
		assert.Equal(t, append([]fr.Element{fr.One()}, want...), ch.Inputs)
	}
}

// Every size of tests/circuit.rs: each partition of a synthetic update
// satisfies the circuit with the constraint count the Rust test asserts,
// and the blank circuit has the same count.
func TestCircuitCounts(t *testing.T) {
	for _, tc := range []struct {
		size        uint64
		constraints int
	}{
		{1 << 10, 1248389},
		{2 << 10, 1705039},
		{4 << 10, 2165109},
		{8 << 10, 2620359},
		{16 << 10, 6300021},
		{32 << 10, 6760091},
	} {
		if testing.Short() && tc.size > 8<<10 {
			continue
		}
		p := params(t, tc.size)
		blank := synthesize(t, &update.Circuit{Params: p}).Stats()
		assert.Equal(t, tc.constraints, blank.Constraints, "blank, %d bytes", tc.size)
		assert.Equal(t, 5, blank.Inputs, "ONE and 4 public inputs")
		sizes, err := p.CircuitSizes()
		require.NoError(t, err)
		assert.Equal(t, synth.Sizes{Inputs: blank.Inputs, Aux: blank.Aux, Rows: blank.Constraints}, sizes, "Sizes, %d bytes", tc.size)
		if testing.Short() && tc.size != 2<<10 {
			continue // satisfaction at the other sizes in the full run
		}
		s, err := update.NewSynthetic(p, tc.size)
		require.NoError(t, err)
		for k := range p.Partitions {
			w, err := s.Witness(k)
			require.NoError(t, err)
			ch := synthesize(t, &update.Circuit{Params: p, Witness: w})
			assert.NoError(t, ch.Err(), "%d bytes, partition %d", tc.size, k)
			assert.Equal(t, blank, ch.Stats(), "%d bytes, partition %d: shape differs from the blank circuit's", tc.size, k)
		}
	}
}

// Into the prover's systems (full, and witness-only with its fast bit
// rows), sequentially and with the challenges in parallel, the circuit
// gives the checker's assignment and row count, and the parallel runs give
// the sequential one's a, b, c and densities.
func TestCircuitIntoProvingAssignment(t *testing.T) {
	s := synthetic(t, 2<<10, 7)
	w, err := s.Witness(0)
	require.NoError(t, err)
	ch := synthesize(t, &update.Circuit{Params: s.Params, Witness: w})
	require.NoError(t, ch.Err())
	st := ch.Stats()
	for _, witnessOnly := range []bool{false, true} {
		var seq *synth.ProvingAssignment
		for _, workers := range []int{1, 0, 3} {
			pa := synth.NewProvingAssignment(synth.Sizes{})
			if witnessOnly {
				pa = synth.NewWitnessAssignment(synth.Sizes{})
			}
			c := &update.Circuit{Params: s.Params, Witness: w, Workers: workers}
			require.NoError(t, c.Synthesize(context.Background(), pa))
			assert.Equal(t, st.Constraints, pa.NumRows(), "witness-only %v, workers %d", witnessOnly, workers)
			assert.Equal(t, ch.Inputs, pa.Inputs)
			assert.True(t, equalElements(ch.Aux, pa.Aux), "witness-only %v, workers %d", witnessOnly, workers)
			if seq == nil {
				seq = pa
				continue
			}
			assert.True(t, equalElements(seq.A, pa.A) && equalElements(seq.B, pa.B) && equalElements(seq.C, pa.C), "workers %d: a, b, c", workers)
			assert.Equal(t, seq.AAux, pa.AAux, "workers %d", workers)
			assert.Equal(t, seq.BAux, pa.BAux, "workers %d", workers)
			assert.Equal(t, seq.BInput, pa.BInput, "workers %d", workers)
		}
	}
}

func equalElements(a, b []fr.Element) bool {
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

// Synthesis stops when its context is cancelled.
func TestCircuitCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err := (&update.Circuit{Params: params(t, 2<<10)}).Synthesize(ctx, synth.NewChecker())
	assert.ErrorIs(t, err, context.Canceled)
}

// A witness of the wrong shape is an error, not a panic.
func TestCircuitBadWitness(t *testing.T) {
	s := synthetic(t, 2<<10, 8)
	for name, edit := range map[string]func(w *update.Partition){
		"apex leaves":  func(w *update.Partition) { w.ApexLeaves = w.ApexLeaves[:3] },
		"challenges":   func(w *update.Partition) { w.Challenges = w.Challenges[1:] },
		"tree D path":  func(w *update.Partition) { w.Challenges[1].PathDNew = nil },
		"tree R level": func(w *update.Partition) { w.Challenges[2].PathRNew[0] = w.Challenges[2].PathRNew[0][:2] },
		"h":            func(w *update.Partition) { w.H = 5 },
		"k":            func(w *update.Partition) { w.K = 1 },
	} {
		w, err := s.Witness(0)
		require.NoError(t, err)
		edit(w)
		err = (&update.Circuit{Params: s.Params, Witness: w}).Synthesize(context.Background(), synth.NewChecker())
		assert.ErrorIs(t, err, update.ErrWitness, name)
	}
}
