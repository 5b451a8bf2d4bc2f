package circuits_test

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuc2/gpuc2/internal/circuits"
	"github.com/gpuc2/gpuc2/synth"
	"github.com/gpuc2/gpuc2/synth/pce"
)

// Each kind's matrices profile fits the circuits it is measured on, the
// 2 KiB and 8 MiB ones of every kind: a recording sized by it grows none of
// its term slices and is at most 5 % too large, and EstimatedBytes is
// within 2 % of the compiled matrices' Bytes. (A profile of another kind
// fails: PoRep's counts 2.44 terms a row in A, PoSt's circuits hold 6.88.)
func TestMatricesProfiles(t *testing.T) {
	if testing.Short() {
		t.Skip("millions of rows recorded")
	}
	for _, c := range circuits.Circuits() {
		if !strings.HasSuffix(c.ID, "-2k") && !strings.HasSuffix(c.ID, "-8m") {
			continue
		}
		t.Run(c.ID, func(t *testing.T) {
			prof := c.Kind().Matrices
			sz, _, err := c.Type.CircuitSizes()
			require.NoError(t, err)
			blank, err := c.Type.BlankCircuit()
			require.NoError(t, err)
			room := prof.RecordingTerms(sz)
			rec := synth.NewRecorderSized(sz, room)
			require.NoError(t, blank.Synthesize(context.Background(), rec))
			synth.AppendInputRows(rec, len(rec.Inputs))
			for i, m := range []*synth.Matrix{&rec.A, &rec.B, &rec.C} {
				assert.Equal(t, room[i], cap(m.Cols), "matrix %c grew: %d terms", "ABC"[i], m.NNZ())
				assert.Less(t, float64(room[i]), 1.05*float64(m.NNZ()), "matrix %c: room for %d, %d terms", "ABC"[i], room[i], m.NNZ())
			}
			ms, err := pce.Compile(rec)
			require.NoError(t, err)
			est := prof.EstimatedBytes(ms.Rows())
			assert.LessOrEqual(t, math.Abs(float64(est-ms.Bytes())), 0.02*float64(ms.Bytes()),
				"EstimatedBytes %d, recorded %d", est, ms.Bytes())
		})
	}
}
