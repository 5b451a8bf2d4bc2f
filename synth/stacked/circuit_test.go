package stacked_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuc2/gpuc2/synth"
	"github.com/gpuc2/gpuc2/synth/internal/testcs"
	"github.com/gpuc2/gpuc2/synth/merkle"
	"github.com/gpuc2/gpuc2/synth/pce"
	"github.com/gpuc2/gpuc2/synth/stacked"
	"github.com/gpuc2/gpuc2/synth/stacked/stackedtest"
)

func check(t *testing.T, p stacked.Params, w *stacked.Partition) *synth.Checker {
	t.Helper()
	ch := synth.NewChecker()
	require.NoError(t, (&stacked.Circuit{Params: p, Witness: w}).Synthesize(context.Background(), ch))
	return ch
}

// The circuits of storage-proofs-porep tests/stacked_circuit.rs: 2 layers,
// 1 challenge, nodes = 8 × base-tree count, Poseidon column hash of arity 2.
func TestRustStackedTestCircuits(t *testing.T) {
	tests := []struct {
		shape merkle.Shape
		rows  int
	}{
		{merkle.Shape{Base: 8}, 1_199_620},
		{merkle.Shape{Base: 2}, 1_206_212},
		{merkle.Shape{Base: 8, Sub: 4}, 1_296_576},
		{merkle.Shape{Base: 8, Sub: 4, Top: 2}, 1_346_982},
	}
	for i, tc := range tests {
		t.Run(fmt.Sprintf("%d-%d-%d", tc.shape.Base, tc.shape.Sub, tc.shape.Top), func(t *testing.T) {
			if i > 0 && testing.Short() {
				t.Skip("1.2 M rows each")
			}
			p := stacked.TestCircuitParams(tc.shape)
			w, err := stackedtest.Partition(p, uint64(i+1))
			require.NoError(t, err)
			ch := check(t, p, w)
			assert.NoError(t, ch.Err())
			st := ch.Stats()
			assert.Equal(t, 22, st.Inputs)
			assert.Equal(t, tc.rows, st.Constraints)
			assert.Equal(t, synth.Sizes{Inputs: st.Inputs, Aux: st.Aux, Rows: st.Constraints}, p.Sizes())
		})
	}
}

// Whole partitions against CIRCUIT-SPEC-POREP.md §9.1 (circuit rows, no
// input rows).
func TestPartitionStats(t *testing.T) {
	tests := []struct {
		name string
		p    stacked.Params
		want synth.Stats
	}{
		{"2KiB", stacked.Params2KiB, synth.Stats{Constraints: 2_687_921, Inputs: 40, Aux: 2_685_673,
			NNZA: 6_420_965, NNZB: 2_689_006, NNZC: 5_824_682, AAuxDensity: 2_674_908, BAuxDensity: 685_521, BInputDensity: 1}},
		{"8MiB", stacked.Params8MiB, synth.Stats{Constraints: 3_844_929, Inputs: 40, Aux: 3_842_449,
			NNZA: 9_388_413, NNZB: 3_847_886, NNZC: 8_234_882, AAuxDensity: 3_814_996, BAuxDensity: 1_011_289, BInputDensity: 1}},
		{"512MiB", stacked.Params512MiB, synth.Stats{Constraints: 4_423_433, Inputs: 40, Aux: 4_420_837,
			NNZA: 10_872_137, NNZB: 4_427_326, NNZC: 9_439_982, AAuxDensity: 4_385_040, BAuxDensity: 1_174_173, BInputDensity: 1}},
	}
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if i > 0 && testing.Short() {
				t.Skip("4 M rows")
			}
			w, err := stackedtest.Partition(tc.p, 7)
			require.NoError(t, err)
			ch := check(t, tc.p, w)
			require.NoError(t, ch.Err())
			assert.Equal(t, tc.want, ch.Stats())
			assert.Equal(t, synth.Sizes{Inputs: tc.want.Inputs, Aux: tc.want.Aux, Rows: tc.want.Constraints}, tc.p.Sizes())
			// The inputs the circuit allocated are the partition's public inputs.
			assert.Equal(t, append([]fr.Element{fr.One()}, w.PublicInputs()...), ch.Inputs)
		})
	}
}

// The sizes of CIRCUIT-SPEC-POREP.md §5.4, from the cost model alone.
func TestSizes(t *testing.T) {
	tests := []struct {
		name      string
		p         stacked.Params
		challenge synth.Sizes
		partition synth.Sizes
	}{
		{"2KiB", stacked.Params2KiB, synth.Sizes{Inputs: 18, Aux: 1_342_551, Rows: 1_343_675}, synth.Sizes{Inputs: 40, Aux: 2_685_673, Rows: 2_687_921}},
		{"8MiB", stacked.Params8MiB, synth.Sizes{Inputs: 18, Aux: 1_920_939, Rows: 1_922_179}, synth.Sizes{Inputs: 40, Aux: 3_842_449, Rows: 3_844_929}},
		{"512MiB", stacked.Params512MiB, synth.Sizes{Inputs: 18, Aux: 2_210_133, Rows: 2_211_431}, synth.Sizes{Inputs: 40, Aux: 4_420_837, Rows: 4_423_433}},
		{"32GiB", stacked.Params32GiB, synth.Sizes{Inputs: 18, Aux: 7_231_629, Rows: 7_237_665}, synth.Sizes{Inputs: 328, Aux: 130_169_893, Rows: 130_278_541}},
		{"64GiB", stacked.Params64GiB, synth.Sizes{Inputs: 18, Aux: 7_282_004, Rows: 7_288_071}, synth.Sizes{Inputs: 328, Aux: 131_076_643, Rows: 131_185_849}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			require.NoError(t, tc.p.Validate())
			assert.Equal(t, tc.challenge, tc.p.ChallengeSizes())
			assert.Equal(t, tc.partition, tc.p.Sizes())
		})
	}
}

// pos is the counts (ONE included in inputs) before a step of synthesis.
type pos struct{ inputs, aux, rows int }

// positions synthesizes p's circuit over a synthetic witness into a checker
// and returns the counts before each step named in want, and at the end.
func positions(t *testing.T, p stacked.Params, seed uint64, want map[string]pos) (map[string]pos, pos) {
	t.Helper()
	w, err := stackedtest.Partition(p, seed)
	require.NoError(t, err)
	ch := synth.NewChecker()
	got := map[string]pos{}
	c := &stacked.Circuit{Params: p, Witness: w}
	c.SetOnStep(func(step string) {
		if _, ok := want[step]; ok {
			st := ch.Stats()
			got[step] = pos{st.Inputs, st.Aux, st.Constraints}
		}
	})
	require.NoError(t, c.Synthesize(context.Background(), ch))
	require.NoError(t, ch.Err())
	st := ch.Stats()
	return got, pos{st.Inputs, st.Aux, st.Constraints}
}

// Counts before each step of a 2 KiB partition (CIRCUIT-SPEC-POREP.md §9.2).
func TestPositions2KiB(t *testing.T) {
	want := map[string]pos{
		"replica_id":                   {1, 0, 0},
		"replica_id bits":              {2, 1, 1},
		"comm_d":                       {2, 256, 257},
		"comm_r":                       {3, 257, 258},
		"comm_r_last, comm_c":          {4, 258, 259},
		"comm_r hash":                  {4, 260, 259},
		"comm_r equality":              {4, 571, 570},
		"ch0 data_leaf":                {4, 571, 571},
		"ch0 tree-D inclusion":         {4, 572, 571},
		"ch0 DRG parent 0 column":      {5, 272_582, 272_865},
		"ch0 DRG parent 1 column":      {6, 273_969, 274_238},
		"ch0 expander parent 0 column": {11, 280_904, 281_103},
		"ch0 expander parent 7 column": {18, 290_613, 290_714},
		"ch0 challenge bits":           {19, 292_000, 292_087},
		"ch0 challenge input":          {19, 292_064, 292_151},
		"ch0 layer 1 parent bits":      {20, 292_064, 292_152},
		"ch0 layer 1 create_label":     {20, 293_594, 293_688},
		"ch0 layer 2 parent bits":      {20, 815_343, 815_957},
		"ch0 layer 2 create_label":     {20, 818_913, 819_541},
		"ch0 encode":                   {20, 1_340_662, 1_341_810},
		"ch0 tree-R inclusion":         {20, 1_340_663, 1_341_811},
		"ch0 column hash":              {21, 1_341_737, 1_342_873},
		"ch0 tree-C inclusion":         {21, 1_342_048, 1_343_184},
		"ch1 data_leaf":                {22, 1_343_122, 1_344_246},
	}
	got, end := positions(t, stacked.Params2KiB, 3, want)
	assert.Equal(t, want, got)
	assert.Equal(t, pos{40, 2_685_673, 2_687_921}, end)
}

// Challenge 0 of a 32 GiB partition (§9.2): positions and the per-challenge
// size, in a one-challenge circuit of the 32 GiB shape.
func TestPositions32GiBChallenge(t *testing.T) {
	if testing.Short() {
		t.Skip("7.2 M rows")
	}
	want := map[string]pos{
		"ch0 tree-D inclusion":    {4, 572, 571},
		"ch0 DRG parent 0 column": {5, 1_360_622, 1_362_033},
		"ch0 DRG parent 1 column": {6, 1_360_622 + 11 + 598 + 5_370, 1_362_033 + 598 + 5_302},
		"ch0 challenge bits":      {19, 1_444_328, 1_444_633},
		"ch0 layer 1 parent bits": {20, 1_444_392, 1_444_698},
		"ch0 layer 2 parent bits": {20, 1_967_671, 1_968_503},
		"ch0 encode":              {20, 7_220_861, 7_227_033},
		"ch0 tree-R inclusion":    {20, 7_220_862, 7_227_034},
		"ch0 column hash":         {21, 7_226_232, 7_232_336},
		"ch0 tree-C inclusion":    {21, 7_226_830, 7_232_934},
	}
	p := stacked.Params32GiB
	p.Challenges = 1
	got, end := positions(t, p, 5, want)
	assert.Equal(t, want, got)
	// Challenge 1 would start at inputs 22, aux 7,232,200, row 7,238,236.
	assert.Equal(t, pos{22, 7_232_200, 7_238_236}, end)
}

// Digests of CIRCUIT-SPEC-POREP.md §9.3 and CIRCUIT-SPEC-BELLPERSON.md §7.2.
func TestDigests(t *testing.T) {
	t.Run("TOP", func(t *testing.T) {
		w, err := stackedtest.Partition(stacked.Params2KiB, 1)
		require.NoError(t, err)
		rec := synth.NewRecorder()
		require.NoError(t, stacked.SynthesizeTop(rec, stacked.Params2KiB, w))
		assert.Equal(t, "255ebce7544ce5068e6bff2db9a134c8d6592b560b425c1ad8e0ec130d054a0d", testcs.Digest(rec))
	})
	t.Run("H7", func(t *testing.T) {
		if testing.Short() {
			t.Skip("526 k rows recorded")
		}
		var rid fr.Element
		rid.SetUint64(12345)
		var parents [14]fr.Element
		for k := range parents {
			parents[k].SetUint64(uint64(1000 + k))
		}
		ch := synth.NewChecker()
		got, err := stacked.SynthesizeH7(ch, rid, 22, parents)
		require.NoError(t, err)
		require.NoError(t, ch.Err())
		want, err := stacked.Label(&rid, 2, 22, parents[:])
		require.NoError(t, err)
		assert.Equal(t, want, got, "circuit label equals the native label")
		st := ch.Stats()
		assert.Equal(t, synth.Stats{Constraints: 526_175, Inputs: 3, Aux: 525_653, NNZA: 1_220_397, NNZB: 526_192,
			NNZC: 1_153_103, AAuxDensity: 525_637, BAuxDensity: 130_089, BInputDensity: 1}, st)
		rec := synth.NewRecorder()
		_, err = stacked.SynthesizeH7(rec, rid, 22, parents)
		require.NoError(t, err)
		assert.Equal(t, "76e1d5a5cf86458dafe17f808e950a8db422cafaf5e81cb99d10d07a182e0862", testcs.Digest(rec))
	})
	t.Run("2KiB", func(t *testing.T) {
		if testing.Short() {
			t.Skip("2.7 M rows recorded")
		}
		rec := synth.NewRecorder()
		require.NoError(t, (&stacked.Circuit{Params: stacked.Params2KiB}).Synthesize(context.Background(), rec))
		assert.Equal(t, "af16fbd708cbd37b1079f0f7bf0b5a50567901bf72bf6d9291fa081dc6797a2a", testcs.Digest(rec))
	})
}

// The blank circuit has the shape of a real one.
func TestBlankShape(t *testing.T) {
	p := stacked.TestCircuitParams(merkle.Shape{Base: 8})
	blank := synth.NewChecker()
	require.NoError(t, (&stacked.Circuit{Params: p}).Synthesize(context.Background(), blank))
	w, err := stackedtest.Partition(p, 9)
	require.NoError(t, err)
	real := check(t, p, w)
	require.NoError(t, real.Err())
	assert.Equal(t, real.Stats(), blank.Stats())
	assert.Error(t, blank.Err(), "zeros do not satisfy the circuit")
}

// Changing any single witness value makes the circuit unsatisfied.
func TestCorruptWitness(t *testing.T) {
	p := stacked.Params2KiB
	one := fr.One()
	bump := func(e *fr.Element) { e.Add(e, &one) }
	tests := []struct {
		name    string
		corrupt func(w *stacked.Partition)
	}{
		{"replica_id", func(w *stacked.Partition) { bump(&w.ReplicaID) }},
		{"comm_d", func(w *stacked.Partition) { bump(&w.CommD) }},
		{"comm_r", func(w *stacked.Partition) { bump(&w.CommR) }},
		{"comm_c", func(w *stacked.Partition) { bump(&w.CommC) }},
		{"comm_r_last", func(w *stacked.Partition) { bump(&w.CommRLast) }},
		{"data leaf", func(w *stacked.Partition) { bump(&w.Challenges[1].DataLeaf) }},
		{"tree-D sibling", func(w *stacked.Partition) { bump(&w.Challenges[0].TreeD[3].Siblings[0]) }},
		{"tree-R sibling", func(w *stacked.Partition) { bump(&w.Challenges[1].TreeR[1].Siblings[6]) }},
		{"tree-C sibling", func(w *stacked.Partition) { bump(&w.Challenges[0].ColumnC.Path[0].Siblings[2]) }},
		{"DRG column row", func(w *stacked.Partition) { bump(&w.Challenges[0].DRG[3].Rows[1]) }},
		{"expander column row", func(w *stacked.Partition) { bump(&w.Challenges[1].Exp[7].Rows[0]) }},
		{"expander path sibling", func(w *stacked.Partition) { bump(&w.Challenges[1].Exp[2].Path[1].Siblings[0]) }},
		{"tree-D index", func(w *stacked.Partition) {
			// The same node through another sibling order: the index bits and
			// the siblings no longer match the root.
			c := &w.Challenges[0]
			c.TreeD[0].Index ^= 1
			c.Node ^= 1
			c.TreeR[0].Index ^= 1
			c.ColumnC.Path[0].Index ^= 1
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w, err := stackedtest.Partition(p, 11)
			require.NoError(t, err)
			tc.corrupt(w)
			ch := check(t, p, w)
			assert.ErrorIs(t, ch.Err(), synth.ErrUnsatisfied)
		})
		if testing.Short() {
			break
		}
	}
}

// Malformed witnesses are errors naming the challenge and the field.
func TestMalformedWitness(t *testing.T) {
	p := stacked.Params2KiB
	tests := []struct {
		name    string
		corrupt func(w *stacked.Partition)
		msg     string
	}{
		{"challenges", func(w *stacked.Partition) { w.Challenges = w.Challenges[:1] }, "1 challenges, want 2"},
		{"node", func(w *stacked.Partition) { w.Challenges[1].Node = 64 }, "challenge 1: node 64 out of range"},
		{"tree-D depth", func(w *stacked.Partition) { w.Challenges[0].TreeD = w.Challenges[0].TreeD[:5] }, "challenge 0: tree-D path: 5 levels, want 6"},
		{"tree-R arity", func(w *stacked.Partition) {
			w.Challenges[1].TreeR[1].Siblings = w.Challenges[1].TreeR[1].Siblings[:3]
		}, "challenge 1: tree-R path: level 1 has 3 siblings, want 7"},
		{"tree-C index", func(w *stacked.Partition) { w.Challenges[0].ColumnC.Path[0].Index = 8 }, "challenge 0: tree-C path: level 0 has index 8"},
		{"column rows", func(w *stacked.Partition) { w.Challenges[1].Exp[4].Rows = nil }, "challenge 1: expander parent 4: column has 0 rows, want 2"},
		{"column path", func(w *stacked.Partition) { w.Challenges[0].DRG[2].Path = nil }, "challenge 0: DRG parent 2: tree-C path: 0 levels, want 2"},
		{"path opens other node", func(w *stacked.Partition) {
			c := &w.Challenges[0]
			c.TreeR[0].Index = (c.TreeR[0].Index + 1) % 8
		}, "tree-R path opens node"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w, err := stackedtest.Partition(p, 13)
			require.NoError(t, err)
			tc.corrupt(w)
			err = (&stacked.Circuit{Params: p, Witness: w, Workers: 1}).Synthesize(context.Background(), synth.NewChecker())
			require.Error(t, err)
			assert.True(t, errors.Is(err, stacked.ErrWitness), "%v", err)
			assert.Contains(t, err.Error(), tc.msg)
			// The parallel path validates the same way.
			err = (&stacked.Circuit{Params: p, Witness: w}).Synthesize(context.Background(), synth.NewProvingAssignment(synth.Sizes{}))
			assert.ErrorIs(t, err, stacked.ErrWitness)
		})
	}
	_, err := stacked.Params{Layers: 3, Nodes: 64, TreeDDepth: 6, TreeShape: merkle.Shape{Base: 8}, Challenges: 1}.Blank()
	assert.ErrorIs(t, err, stacked.ErrParams)
	_, err = stacked.ParamsForSectorSize(4 << 10)
	assert.ErrorIs(t, err, stacked.ErrParams)
}

func TestCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	p := stacked.Params2KiB
	err := (&stacked.Circuit{Params: p, Workers: 1}).Synthesize(ctx, synth.NewChecker())
	assert.ErrorIs(t, err, context.Canceled)
	err = (&stacked.Circuit{Params: p, Workers: 2}).Synthesize(ctx, synth.NewProvingAssignment(synth.Sizes{}))
	assert.ErrorIs(t, err, context.Canceled)
}

// Params of a tree shape the circuit cannot have are an error naming the
// shape from both synthesis paths, not a panic or a circuit of another
// size; their Sizes and ChallengeSizes are zero, not a plausible shape.
func TestInvalidParams(t *testing.T) {
	tests := []struct {
		name string
		p    stacked.Params
		msg  string
	}{
		{"base arity 3", stacked.Params{Layers: 2, Nodes: 64, TreeDDepth: 6, TreeShape: merkle.Shape{Base: 3}, Challenges: 2}, "arities 3-0-0"},
		{"leaves do not fit", stacked.Params{Layers: 2, Nodes: 64, TreeDDepth: 6, TreeShape: merkle.Shape{Base: 16}, Challenges: 2}, "64 leaves, shape 16-0-0"},
		{"top without sub", stacked.Params{Layers: 2, Nodes: 64, TreeDDepth: 6, TreeShape: merkle.Shape{Base: 8, Top: 2}, Challenges: 2}, "a top arity needs a sub arity"},
		{"3 layers", stacked.Params{Layers: 3, Nodes: 64, TreeDDepth: 6, TreeShape: merkle.Shape{Base: 8}, Challenges: 2}, "3 layers"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for _, workers := range []int{1, 2} {
				c := &stacked.Circuit{Params: tc.p, Workers: workers}
				var err error
				require.NotPanics(t, func() {
					err = c.Synthesize(context.Background(), synth.NewProvingAssignment(tc.p.Sizes()))
				})
				require.Error(t, err, "%d workers", workers)
				assert.ErrorIs(t, err, stacked.ErrParams)
				assert.Contains(t, err.Error(), tc.msg)
			}
			assert.Zero(t, tc.p.ChallengeSizes())
			assert.Zero(t, tc.p.Sizes())
		})
	}
	// The part sizes SynthesizeParallel forks along carry the tree shape's error.
	_, err := tests[0].p.ChallengeParts()
	require.ErrorIs(t, err, stacked.ErrParams)
	assert.Contains(t, err.Error(), tests[0].msg)
}

// MatricesProfile.RecordingBytes counts a sized recording's slices and the matrices
// compiled from it: within 2 % of what a 2 KiB recording holds.
func TestRecordingBytes(t *testing.T) {
	if testing.Short() {
		t.Skip("2.7 M rows recorded")
	}
	sz := stacked.Params2KiB.Sizes()
	rec := synth.NewRecorderSized(sz, stacked.MatricesProfile.RecordingTerms(sz))
	require.NoError(t, (&stacked.Circuit{Params: stacked.Params2KiB}).Synthesize(context.Background(), rec))
	synth.AppendInputRows(rec, len(rec.Inputs))
	ms, err := pce.Compile(rec)
	require.NoError(t, err)
	held := ms.Bytes() + int64(cap(rec.Inputs)+cap(rec.Aux))*32
	for _, m := range []*synth.Matrix{&rec.A, &rec.B, &rec.C} {
		held += int64(cap(m.Cols))*4 + int64(cap(m.CoeffIDs))*4 + int64(cap(m.RowStart))*8
	}
	for _, d := range []synth.Density{rec.AAux, rec.BAux, rec.BInput} {
		held += int64(cap(d.Words)) * 8
	}
	assert.InEpsilon(t, float64(held), float64(stacked.MatricesProfile.RecordingBytes(sz)), 0.02)
}
