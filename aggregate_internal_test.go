package gpuc2

import (
	"context"
	"crypto/sha256"
	"log/slog"
	"os"
	"path/filepath"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/filecoin-project/go-state-types/abi"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuc2/gpuc2/groth16"
	"github.com/gpuc2/gpuc2/groth16/aggregate"
	"github.com/gpuc2/gpuc2/synth/porep"
)

// filecoin-proofs' get_aggregate_target_len: the next power of two, 2 for 1.
func TestAggregateTargetLen(t *testing.T) {
	for n, want := range map[int]int{1: 2, 2: 2, 3: 4, 4: 4, 5: 8, 13: 16, 126: 128, 8190: 8192} {
		assert.Equal(t, want, aggregateTargetLen(n), "%d", n)
	}
	ps := make([]groth16.Proof, 3)
	for i := range ps {
		ps[i].A.X.SetUint64(uint64(i + 1))
	}
	padded := padProofs(ps, 4)
	require.Len(t, padded, 4)
	assert.Equal(t, ps, padded[:3])
	assert.Equal(t, ps[2], padded[3], "the last proof repeated")
}

// pad_inputs_to_target's arithmetic, as verify_aggregate_seal_commit_proofs
// calls it: sets per proof target(len)/nproofs, the last ones repeated.
func TestPadInputs(t *testing.T) {
	sets := func(n int) [][]fr.Element {
		out := make([][]fr.Element, n)
		for i := range out {
			out[i] = []fr.Element{fr.NewElement(uint64(i))}
		}
		return out
	}
	for _, tc := range []struct {
		inputs, nproofs int
		want            []uint64 // the sets' values; nil: refused
	}{
		{3, 4, []uint64{0, 1, 2, 2}},
		{4, 4, []uint64{0, 1, 2, 3}},
		{1, 2, []uint64{0, 0}},
		{13, 16, []uint64{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 12, 12, 12}},
		{3, 8, nil}, // 4/8 = 0 sets per proof
		{5, 4, nil}, // 2 per proof: 5, 7, 9 never meets 8
		{9, 8, nil}, // more than there are proofs
	} {
		got, err := padInputs(sets(tc.inputs), tc.nproofs)
		if tc.want == nil {
			assert.ErrorIs(t, err, ErrBadInput, "%d inputs, %d proofs", tc.inputs, tc.nproofs)
			continue
		}
		require.NoError(t, err)
		var vals []uint64
		for _, s := range got {
			vals = append(vals, s[0].Uint64())
		}
		assert.Equal(t, tc.want, vals, "%d inputs, %d proofs", tc.inputs, tc.nproofs)
	}
	_, err := padInputs(nil, 2)
	assert.ErrorIs(t, err, ErrBadInput)
}

// The transcript's include: SHA-256 of seed ‖ comm_r per sector, of the
// comm_rs alone for NI-PoRep.
func TestTranscriptInclude(t *testing.T) {
	commRs := [][32]byte{{1}, {2}}
	seeds := [][32]byte{{3}, {4}}
	interactive, err := porep.ParamsFor(abi.RegisteredSealProof_StackedDrg2KiBV1_1)
	require.NoError(t, err)
	ni, err := porep.ParamsFor(abi.RegisteredSealProof_StackedDrg2KiBV1_2_Feat_NiPoRep)
	require.NoError(t, err)
	var b []byte
	for i := range commRs {
		b = append(append(b, seeds[i][:]...), commRs[i][:]...)
	}
	want := sha256.Sum256(b)
	assert.Equal(t, want[:], transcriptInclude(interactive, commRs, seeds))
	want = sha256.Sum256(append(commRs[0][:], commRs[1][:]...))
	assert.Equal(t, want[:], transcriptInclude(ni, commRs, seeds))
}

func TestAggregateVersion(t *testing.T) {
	v, err := aggregateVersion(abi.RegisteredAggregationProof_SnarkPackV1)
	require.NoError(t, err)
	assert.Equal(t, aggregate.V1, v)
	v, err = aggregateVersion(abi.RegisteredAggregationProof_SnarkPackV2)
	require.NoError(t, err)
	assert.Equal(t, aggregate.V2, v)
	_, err = aggregateVersion(7)
	assert.ErrorIs(t, err, ErrBadInput)
	assert.ErrorContains(t, err, "AggregateProof 7: not SnarkPackV1 (0) or SnarkPackV2 (1)")
}

// Where the SRS comes from: Filecoin's file first, then the TEST-ONLY one
// (made once, named so it is never taken for Filecoin's), else
// ErrParamsMissing naming the file; a count above what the source serves
// is bad input, before the file is read.
func TestSRSSource(t *testing.T) {
	ctx := context.Background()
	params, test := t.TempDir(), t.TempDir()
	c := newSRSCache(Config{ParamsDir: params, Logger: slog.New(slog.DiscardHandler)})
	_, err := c.locate()
	assert.ErrorIs(t, err, ErrParamsMissing)
	assert.ErrorContains(t, err, SRSFileName)

	c = newSRSCache(Config{ParamsDir: params, TestParamsDir: test, Logger: slog.New(slog.DiscardHandler)})
	src, err := c.locate()
	require.NoError(t, err)
	assert.True(t, src.testOnly)
	assert.Equal(t, testSRSPath(test), src.path)
	assert.NotEqual(t, SRSFileName, filepath.Base(src.path))
	assert.Contains(t, filepath.Base(src.path), "TEST-ONLY")
	st, err := os.Stat(src.path)
	require.NoError(t, err)
	entries, err := os.ReadDir(filepath.Dir(src.path))
	require.NoError(t, err)
	assert.Len(t, entries, 1, "no temporary file left")
	pr, vr, err := c.get(ctx, src, 4)
	require.NoError(t, err)
	assert.Equal(t, 4, pr.N)
	assert.Equal(t, 4, vr.N)
	pr2, _, err := c.get(ctx, src, 4)
	require.NoError(t, err)
	assert.Same(t, pr, pr2, "kept")
	// Made once: a second cache finds the file as it is.
	again, err := newSRSCache(Config{ParamsDir: params, TestParamsDir: test, Logger: slog.New(slog.DiscardHandler)}).locate()
	require.NoError(t, err)
	assert.Equal(t, src, again)
	st2, err := os.Stat(src.path)
	require.NoError(t, err)
	assert.Equal(t, st.ModTime(), st2.ModTime())

	// The cache keeps srsCacheCounts counts, the last used.
	for n := 2; n <= 1<<(srsCacheCounts+1); n *= 2 {
		_, _, err := c.get(ctx, src, n)
		require.NoError(t, err)
	}
	assert.Len(t, c.entries, srsCacheCounts)
	assert.NotContains(t, c.entries, srsKey{src.path, 2})

	// Filecoin's file wins over the TEST-ONLY one; its digest is checked.
	require.NoError(t, os.WriteFile(filepath.Join(params, SRSFileName), []byte("not an SRS"), 0o644))
	p := &Prover{srs: c}
	realSrc, err := c.locate()
	require.NoError(t, err)
	assert.False(t, realSrc.testOnly)
	_, _, err = p.specializedSRS(ctx, 2)
	assert.ErrorIs(t, err, ErrParamsCorrupt)
	assert.ErrorContains(t, err, SRSFileName)
	assert.NotContains(t, c.entries, srsKey{realSrc.path, 2}, "a failed read is not kept")
	_, _, err = p.specializedSRS(ctx, 2*srsMaxProofs)
	assert.ErrorIs(t, err, ErrBadInput)
	assert.ErrorContains(t, err, "32768 proofs (padded), more than the 16384")
}
