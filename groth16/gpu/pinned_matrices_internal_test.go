package gpu

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuc2/gpuc2/groth16"
	"github.com/gpuc2/gpuc2/internal/testcircuit"
	"github.com/gpuc2/gpuc2/synth"
	"github.com/gpuc2/gpuc2/synth/pce"
)

// The streaming path's layout cuts each matrix into chunks that cover its
// rows in order within the limits, and fill writes each chunk so that its
// relative row starts and terms read back as the matrix's own; the whole
// fits PinnedMatricesBytes; a row longer than the term limit is refused.
func TestMatricesLayout(t *testing.T) {
	rec := synth.NewRecorder()
	require.NoError(t, (&testcircuit.Chain{N: 500, Seed: 5, Inputs: 3}).Synthesize(context.Background(), rec))
	synth.AppendInputRows(rec, len(rec.Inputs))
	ms, err := pce.Compile(rec)
	require.NoError(t, err)
	longest := 0
	for _, m := range []*pce.Matrix{ms.A(), ms.B(), ms.C()} {
		rowStart, _, _ := m.CSR()
		for r := range m.Rows() {
			longest = max(longest, int(rowStart[r+1]-rowStart[r]))
		}
	}
	require.Greater(t, longest, 1)
	for _, lim := range []struct{ rows, terms int }{{spmvChunkRows, spmvChunkTerms}, {37, 60}, {1, longest}} {
		t.Run(fmt.Sprintf("rows=%d/terms=%d", lim.rows, lim.terms), func(t *testing.T) {
			hm, size, err := matricesLayout(ms, lim.rows, lim.terms)
			require.NoError(t, err)
			assert.LessOrEqual(t, size, PinnedMatricesBytes(ms.Bytes()))
			words := make([]uint64, (size+7)/8) // aligned as pinned memory is
			buf := unsafe.Slice((*byte)(unsafe.Pointer(&words[0])), size)
			require.NoError(t, hm.fill(context.Background(), buf))
			for i, m := range []*pce.Matrix{ms.A(), ms.B(), ms.C()} {
				rowStart, cols, ids := m.CSR()
				next := 0
				for _, ch := range hm.abc[i] {
					require.Equal(t, next, ch.firstRow, "chunks in order, none skipped")
					require.True(t, ch.rows > 0 && ch.rows <= lim.rows && ch.terms <= lim.terms, "%+v", ch)
					k0 := rowStart[ch.firstRow]
					rel := unsafe.Slice((*uint32)(unsafe.Pointer(&buf[ch.rowStartOff])), ch.rows+1)
					for r, k := range rel {
						require.Equal(t, rowStart[ch.firstRow+r]-k0, k, "matrix %d row %d", i, ch.firstRow+r)
					}
					if ch.terms > 0 {
						require.True(t, slices.Equal(cols[k0:k0+uint32(ch.terms)], unsafe.Slice((*uint32)(unsafe.Pointer(&buf[ch.colsOff])), ch.terms)))
						require.True(t, slices.Equal(ids[k0:k0+uint32(ch.terms)], unsafe.Slice((*uint16)(unsafe.Pointer(&buf[ch.idsOff])), ch.terms)))
					}
					next += ch.rows
				}
				require.Equal(t, m.Rows(), next, "every row of matrix %d", i)
			}
		})
	}
	_, _, err = matricesLayout(ms, spmvChunkRows, longest-1)
	assert.ErrorIs(t, err, groth16.ErrInvalidInput, "a row longer than a chunk")
}

// Streamed proofs evaluate a, b, c on the device only when holding the
// witness costs the device none of its overlap.
func TestStreamedMatricesFit(t *testing.T) {
	for _, tc := range []struct {
		budget, plain, withABC int64
		fit                    bool
	}{
		{16, 10, 13, true},  // one proof at a time either way
		{24, 11, 13, false}, // two plain, one holding the witness
		{48, 11, 13, true},  // two or more either way
		{12, 10, 13, false}, // does not fit at all
	} {
		p := Plan{MemoryLimit: tc.budget, streamed: streamedPlan{after: tc.plain}, streamedABC: streamedPlan{after: tc.withABC}}
		assert.Equal(t, tc.fit, p.streamedMatricesFit(), "%+v", tc)
	}
}

// ProofsFit counts whole proofs in a budget, up to most.
func TestProofsFit(t *testing.T) {
	for _, tc := range []struct {
		budget, proof int64
		most, want    int
	}{
		{16, 10, 2, 1},
		{24, 10, 2, 2},
		{48, 10, 2, 2}, // capped
		{48, 10, 8, 4}, // by the budget
		{8, 10, 2, 0},  // not even one
		{16, 0, 3, 3},  // a proof of no bytes: as many as asked
	} {
		assert.Equal(t, tc.want, ProofsFit(tc.budget, tc.proof, tc.most), "%+v", tc)
	}
}

// A device runs a streamed proof's aux MSMs beside its h MSM only when it
// holds one streamed proof at a time either way: the first layout, in
// order of preference, that fits. Only such a device makes the layouts.
func TestChooseBeside(t *testing.T) {
	layouts := []besideLayout{{bytes: 19}, {bytes: 15, g2After: true}, {bytes: 14}}
	for _, tc := range []struct {
		budget, after int64
		want          int // index into layouts, -1: none
	}{
		{24, 11, -1}, // two proofs after: none beside
		{16, 11, 1},  // one either way: the first that fits
		{14, 11, 2},
		{13, 11, -1}, // none fits
		{10, 11, -1}, // not even one after
	} {
		made := false
		l, ok := chooseBeside(tc.budget, tc.after, func() []besideLayout { made = true; return layouts })
		assert.Equal(t, ProofsFit(tc.budget, tc.after, streamedOverlap) == 1, made, "layouts made: %+v", tc)
		if tc.want < 0 {
			assert.False(t, ok, "%+v", tc)
			continue
		}
		if assert.True(t, ok, "%+v", tc) {
			assert.Equal(t, layouts[tc.want], l, "%+v", tc)
		}
	}
}

// A 32 GiB partition's beside layouts: h's chunks largest first, each
// reserving at least the H phase and the h MSM's phase with its aux MSMs
// after, and no more with smaller aux chunks.
func TestBesideLayouts32GiB(t *testing.T) {
	c := groth16.SectionCounts{H: 134_217_727, L: 130_169_893, A: 129_753_620, B: 33_112_282} // FILECOIN-C2-FACTS §5
	m, nAux, nIn := c.H+1, c.L, 1
	plain, withABC := streamingProofBytes(anyDevice, c, m, nAux, nIn)
	for _, abc := range []bool{false, true} {
		after := plain
		if abc {
			after = withABC
		}
		ls := besideLayouts(anyDevice, c, m, nAux, nIn, abc)
		require.Len(t, ls, 18)
		assert.Equal(t, defaultChunks.g1, ls[0].h.g1)
		assert.False(t, ls[0].g2After)
		for i, l := range ls {
			assert.GreaterOrEqual(t, l.bytes, int64(2*m)*frSize, "layout %d holds H's two vectors", i)
			if i%3 > 0 {
				assert.LessOrEqual(t, l.bytes, ls[i-1].bytes, "layout %d: smaller aux chunks", i)
			}
		}
		t.Logf("withABC %v: after %.2f GiB", abc, float64(after)/(1<<30))
		for _, l := range ls {
			t.Logf("  h %4d MiB, aux %3d MiB, g2 after %-5v: %.2f GiB", l.h.g1>>20, l.aux.g1>>20, l.g2After, float64(l.bytes)/(1<<30))
		}
	}
}
