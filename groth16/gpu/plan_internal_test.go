package gpu

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuc2/gpuc2/groth16"
)

// A resident 32 GiB PoRep proof that evaluates a, b, c on the device
// reserves its witness ahead of the rest; the device's peak counts a
// waiting worker's witness only where the ledger lets it in beside the
// proofs that fit whole.
func TestPlanUploadAhead32GiB(t *testing.T) {
	c := groth16.SectionCounts{H: 134_217_727, L: 130_169_893, A: 129_753_620, B: 33_112_282} // FILECOIN-C2-FACTS §5
	s := Shape{Counts: c, Inputs: 329}
	matrices := int64(5) << 30
	one, err := NewPlan(0, s, PlanOptions{Workers: 2, MatricesBytes: matrices})
	require.NoError(t, err)
	require.True(t, one.MatricesOnDevice)
	witness := witnessDeviceBytes(c.L)
	assert.Equal(t, witness, one.UploadAheadBytes)
	held, proof := one.HeldBytes, one.ProofBytes

	for _, tc := range []struct {
		name    string
		limit   int64
		workers int
		atOnce  int
		peak    int64
	}{
		// The H100's case: one proof fits, a second one's witness only once the first has given back b and c.
		{"one proof, the witness after b and c", held + proof + witness - 1, 2, 1, held + proof},
		{"one proof and a witness", held + proof + witness, 2, 1, held + proof + witness},
		{"one worker", held + proof + witness, 1, 1, held + proof},
		{"two proofs, two workers", held + 2*proof, 2, 2, held + 2*proof},
		{"two proofs and a third worker's witness", held + 2*proof + witness, 3, 2, held + 2*proof + witness},
	} {
		p, err := NewPlan(tc.limit, s, PlanOptions{Workers: tc.workers, MatricesBytes: matrices})
		require.NoError(t, err, tc.name)
		assert.Equal(t, ModeResident, p.Mode, tc.name)
		assert.Equal(t, tc.atOnce, p.ProofsAtOnce, tc.name)
		assert.Equal(t, tc.peak, p.PeakBytes, tc.name)
		assert.LessOrEqual(t, p.PeakBytes, tc.limit, tc.name)
		n, peak := p.Beside(0)
		assert.Equal(t, p.ProofsAtOnce, n, tc.name)
		assert.Equal(t, p.PeakBytes, peak, tc.name)
	}
	plain, err := NewPlan(held+proof+witness, s, PlanOptions{Workers: 2})
	require.NoError(t, err)
	assert.Zero(t, plain.UploadAheadBytes, "a, b, c uploaded with the witness: nothing reserved ahead")
	assert.Equal(t, plain.HeldBytes+plain.ProofBytes, plain.PeakBytes)
}

// Beside another circuit's resident key a plan's proofs get the room left:
// fewer at once, and none where not even one fits (it would wait for
// memory never given back).
func TestPlanBeside(t *testing.T) {
	c := groth16.SectionCounts{H: 134_217_727, L: 130_169_893, A: 129_753_620, B: 33_112_282} // FILECOIN-C2-FACTS §5
	s := Shape{Counts: c, Inputs: 329}
	for _, limit := range []int64{0, 16 << 30, 24 << 30, 80 << 30} {
		p, err := NewPlan(limit, s, PlanOptions{Workers: 2, MatricesBytes: 5 << 30})
		require.NoError(t, err)
		room := p.MemoryLimit - p.HeldBytes
		if limit == 0 {
			n, peak := p.Beside(1 << 40)
			assert.Equal(t, 2, n)
			assert.Equal(t, p.HeldBytes+1<<40+2*p.ProofBytes, peak)
			continue
		}
		n, peak := p.Beside(room - p.ProofBytes)
		assert.Equal(t, 1, n, "limit %d: one proof in the room left", limit)
		assert.Equal(t, p.MemoryLimit, peak)
		n, peak = p.Beside(room - p.ProofBytes + 1)
		assert.Zero(t, n, "limit %d: no proof fits", limit)
		assert.Equal(t, p.MemoryLimit-p.ProofBytes+1, peak, "what is held")
	}
}
