package groth16

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

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
	assert.ErrorIs(t, err, ErrInvalidInput, "a row longer than a chunk")
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
		assert.Equal(t, tc.fit, streamedMatricesFit(tc.budget, tc.plain, tc.withABC), "%+v", tc)
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
