package poseidon_test

import (
	"fmt"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/gpuc2/gpuc2/synth"
	"github.com/gpuc2/gpuc2/synth/gadgets/boolean"
	"github.com/gpuc2/gpuc2/synth/gadgets/num"
	"github.com/gpuc2/gpuc2/synth/gadgets/poseidon"
	native "github.com/gpuc2/gpuc2/synth/hash/poseidon"
	"github.com/gpuc2/gpuc2/synth/internal/testcs"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func randInputs(t testing.TB, n int) []fr.Element {
	in := make([]fr.Element, n)
	for i := range in {
		_, err := in[i].SetRandom()
		require.NoError(t, err)
	}
	return in
}

func build(cs synth.ConstraintSystem, in []fr.Element) (num.Num, error) {
	b := boolean.NewBuilder(cs)
	pre := make([]num.Num, len(in))
	for i := range in {
		pre[i] = num.Alloc(b, in[i])
	}
	return poseidon.New(b).Hash(pre)
}

// Pinned counts (neptune circuit.rs, storage-proofs-porep hash.rs) and the
// P2/P4/P8/P11 fingerprints of CIRCUIT-SPEC-POREP.md §3.7 and §9.3.
func TestShapes(t *testing.T) {
	tests := []struct {
		arity, rows, aux int
		nnzA, nnzB, nnzC int
		aAux             int
		digest           string
	}{
		{2, 311, 313, 2119, 313, 386, 234, "542a664989edd65296051e47b9f0cbf3add6fad002f50b7aadc669cff0797d66"},
		{4, 377, 381, 2573, 381, 467, -1, "f987cb0bcb3643b8a0bbdc869569ecc1f822d03cbd1e5fbc9bd9097407a7c157"},
		{8, 505, 513, 3598, 513, 624, -1, "859e707c9fcdd9e7baa4a0015520f5fd39c05e0d0821cc37176c5aee6dce2b94"},
		{11, 598, 609, 4462, 609, 738, 456, "7d8b464cc9389d977b928ba3917b9d470be00b10b48ba537a397529489c9efc3"},
	}
	for _, tc := range tests {
		t.Run(fmt.Sprintf("arity %d", tc.arity), func(t *testing.T) {
			in := randInputs(t, tc.arity)
			ch := synth.NewChecker()
			h, err := build(ch, in)
			require.NoError(t, err)
			require.NoError(t, ch.Err())
			want, err := native.Hash(in)
			require.NoError(t, err)
			assert.Equal(t, want, h.Value)
			assert.Equal(t, want, ch.Value(h.Var))

			st := ch.Stats()
			assert.Equal(t, tc.rows, st.Constraints)
			assert.Equal(t, tc.aux, st.Aux)
			assert.Equal(t, tc.nnzA, st.NNZA)
			assert.Equal(t, tc.nnzB, st.NNZB)
			assert.Equal(t, tc.nnzC, st.NNZC)
			if tc.aAux >= 0 {
				assert.Equal(t, tc.aAux, st.AAuxDensity)
				assert.Equal(t, tc.aAux, st.BAuxDensity)
			}

			rec := synth.NewRecorder()
			_, err = build(rec, in)
			require.NoError(t, err)
			assert.Equal(t, tc.digest, testcs.Digest(rec))

			for n := tc.arity; n < tc.aux; n += 7 {
				bad := synth.NewChecker()
				_, err := build(&testcs.Corrupt{ConstraintSystem: bad, N: n}, in)
				require.NoError(t, err)
				assert.Error(t, bad.Err(), "aux %d corrupted", n)
			}
		})
	}
}

func TestKnownAnswers(t *testing.T) {
	for _, arity := range []int{2, 4, 8, 11} {
		in := make([]fr.Element, arity)
		for i := range in {
			in[i].SetUint64(uint64(i))
		}
		ch := synth.NewChecker()
		h, err := build(ch, in)
		require.NoError(t, err)
		want, _ := native.Hash(in)
		assert.Equal(t, want, ch.Value(h.Var))
		require.NoError(t, ch.Err())
	}
}

func TestBadArity(t *testing.T) {
	_, err := build(synth.NewChecker(), randInputs(t, 3))
	assert.ErrorIs(t, err, native.ErrArity)
}

// BenchmarkHashWitness hashes into one ProvingAssignment (fresh every 256
// hashes) with one Gadget, as a circuit does.
func BenchmarkHashWitness(b *testing.B) {
	for _, arity := range []int{2, 8, 11} {
		b.Run(fmt.Sprintf("arity=%d", arity), func(b *testing.B) {
			in := randInputs(b, arity)
			const per = 256
			sizes := synth.Sizes{Aux: per * 620, Rows: per * 600}
			var cs *synth.ProvingAssignment
			var g *poseidon.Gadget
			pre := make([]num.Num, arity)
			rows := 0
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if i%per == 0 {
					b.StopTimer()
					if cs != nil {
						rows += cs.NumRows()
					}
					cs = synth.NewProvingAssignment(sizes)
					bb := boolean.NewBuilder(cs)
					g = poseidon.New(bb)
					for k := range pre {
						pre[k] = num.Alloc(bb, in[k])
					}
					b.StartTimer()
				}
				if _, err := g.Hash(pre); err != nil {
					b.Fatal(err)
				}
			}
			rows += cs.NumRows()
			b.ReportMetric(float64(rows)/b.Elapsed().Seconds(), "constraints/s")
		})
	}
}

// HashWith a custom tag equals the native hash with it, is satisfied, and
// does not share the Merkle-tree template (the tag is a row constant).
func TestHashWithCustomTag(t *testing.T) {
	c, err := native.CustomConstants(2, 1)
	require.NoError(t, err)
	in := randInputs(t, 2)
	ch := synth.NewChecker()
	b := boolean.NewBuilder(ch)
	pre := []num.Num{num.Alloc(b, in[0]), num.Alloc(b, in[1])}
	g := poseidon.New(b)
	h, err := g.HashWith(c, pre)
	require.NoError(t, err)
	want, _ := c.Hash(in)
	assert.Equal(t, want, h.Value)
	assert.Equal(t, want, ch.Value(h.Var))
	m, err := g.Hash(pre) // Merkle-tree tag, after the custom one
	require.NoError(t, err)
	plain, _ := native.Hash(in)
	assert.Equal(t, plain, m.Value)
	require.NoError(t, ch.Err())
	assert.Equal(t, 2*311, ch.Stats().Constraints)

	_, err = g.HashWith(c, pre[:1])
	assert.ErrorIs(t, err, native.ErrArity)
}

// Into a witness-only system (the values written in place, the rows
// counted), chained hashes of every arity and a custom tag give the
// assignment and row count of a full system, in a forked child too.
func TestWitnessOnlyEqualsFull(t *testing.T) {
	custom, err := native.CustomConstants(2, 1)
	require.NoError(t, err)
	ins := map[int][]fr.Element{}
	for _, arity := range []int{2, 4, 8, 11} {
		ins[arity] = randInputs(t, arity)
	}
	run := func(cs synth.ConstraintSystem) num.Num {
		b := boolean.NewBuilder(cs)
		g := poseidon.New(b)
		var h num.Num
		for i, arity := range []int{2, 4, 8, 11} {
			pre := make([]num.Num, arity)
			for k := range pre {
				pre[k] = num.Alloc(b, ins[arity][k])
			}
			if i > 0 {
				pre[0] = h // the previous hash's output variable
			}
			h, err = g.Hash(pre)
			require.NoError(t, err)
		}
		h, err = g.HashWith(custom, []num.Num{h, h})
		require.NoError(t, err)
		return h
	}
	full := synth.NewProvingAssignment(synth.Sizes{})
	fh := run(full)
	for _, fork := range []bool{false, true} {
		t.Run(fmt.Sprintf("fork %v", fork), func(t *testing.T) {
			w := synth.NewWitnessAssignment(synth.Sizes{})
			cs := w
			if fork {
				w.Alloc(fr.One()) // the child's variables start past the parent's
				cs = w.Fork(synth.Sizes{})
			}
			wh := run(cs)
			assert.Equal(t, fh.Value, wh.Value)
			assert.Equal(t, fh.Value, cs.Value(wh.Var))
			assert.Equal(t, full.Aux, cs.Aux)
			assert.Equal(t, full.NumRows(), cs.NumRows())
		})
	}
}
