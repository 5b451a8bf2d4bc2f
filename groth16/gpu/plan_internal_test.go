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

// Under 16 GiB a streamed 32 GiB PoRep proof that evaluates a, b, c on
// the device runs its aux MSMs beside its h MSM, one proof at a time, and
// reserves its witness ahead of the rest: the device's peak counts a
// waiting worker's witness beside a proof that has given back its h MSM's
// memory, and one worker's plan counts none.
func TestPlanStreamedUploadAhead32GiB(t *testing.T) {
	c := groth16.SectionCounts{H: 134_217_727, L: 130_169_893, A: 129_753_620, B: 33_112_282} // FILECOIN-C2-FACTS §5
	s := Shape{Counts: c, Inputs: 329}
	two, err := NewPlan(16<<30, s, PlanOptions{Workers: 2, MatricesBytes: 5 << 30})
	require.NoError(t, err)
	require.Equal(t, ModeStreaming, two.Mode)
	require.True(t, two.MatricesOnDevice)
	require.Equal(t, 1, two.ProofsAtOnce)
	l := two.streamedABC.beside
	require.NotNil(t, l, "the aux MSMs beside the h MSM")
	witness := assignmentBytes(c.L, s.Inputs)
	assert.Equal(t, witness, two.UploadAheadBytes)
	assert.Less(t, l.afterH, l.bytes)
	ahead := l.afterH + witness // a proof past its h MSM and the next one's witness
	if ahead <= two.MemoryLimit {
		assert.Equal(t, max(two.ProofBytes, ahead), two.PeakBytes)
	} else {
		assert.Equal(t, two.ProofBytes, two.PeakBytes, "the next witness waits for the proof's end")
	}
	assert.LessOrEqual(t, two.PeakBytes, two.MemoryLimit)
	n, peak := two.Beside(0)
	assert.Equal(t, 1, n)
	assert.Equal(t, two.PeakBytes, peak)

	one, err := NewPlan(16<<30, s, PlanOptions{Workers: 1, MatricesBytes: 5 << 30})
	require.NoError(t, err)
	assert.Equal(t, one.ProofBytes, one.PeakBytes, "no other worker's witness")
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
		// A streamed proof takes a layout of less overlap where its own
		// does not fit (TestPlanStreamedInRoom): none fits below its least.
		least := p.LeastProofBytes()
		n, peak = p.Beside(room - least + 1)
		assert.Zero(t, n, "limit %d: no proof fits", limit)
		assert.Equal(t, p.MemoryLimit-least+1, peak, "what is held")
	}
}

// A proof's bus bytes in each mode, by hand for a small shape: the
// witness (aux and inputs, 32 B each); a, b, c over the rows unless the
// device evaluates them; streaming, every key point (G1 96 B, G2 192 B)
// and the matrices.
func TestPlanProofBusBytes(t *testing.T) {
	s := Shape{Counts: groth16.SectionCounts{H: 1023, L: 1000, A: 900, B: 300}, Inputs: 5, Rows: 1000}
	const (
		witness  = (1000 + 5) * 32                  // 32,160
		abc      = 3 * 1000 * 32                    // 96,000
		key      = (1023+1000+900+300)*96 + 300*192 // 367,008
		matrices = 50_000                           // pce's Bytes, made up
		abcPad   = 3 * 1024 * 32                    // Rows unknown: the domain's 1024
	)
	for _, tc := range []struct {
		name     string
		shape    Shape
		opts     PlanOptions
		mode     DeviceMode
		onDevice bool
		want     int64
	}{
		{"resident", s, PlanOptions{}, ModeResident, false, witness + abc},
		{"resident, rows unknown", Shape{Counts: s.Counts, Inputs: 5}, PlanOptions{}, ModeResident, false, witness + abcPad},
		{"resident, matrices on the device", s, PlanOptions{MatricesBytes: matrices}, ModeResident, true, witness},
		{"streaming", s, PlanOptions{NoResident: true}, ModeStreaming, false, witness + abc + key},
		{"streaming, matrices streamed", s, PlanOptions{NoResident: true, MatricesBytes: matrices}, ModeStreaming, true, witness + key + matrices},
	} {
		p, err := NewPlan(0, tc.shape, tc.opts)
		require.NoError(t, err, tc.name)
		require.Equal(t, tc.mode, p.Mode, tc.name)
		require.Equal(t, tc.onDevice, p.MatricesOnDevice, tc.name)
		assert.Equal(t, tc.want, p.ProofBusBytes, tc.name)
	}
}

// A 32 GiB PoRep partition (the table of circuit kinds' counts): resident
// with the matrices on the device only its 4.2 GB witness crosses the bus;
// streaming, the 47.4 GB key too (h 12.9, l 12.5, a 12.5, b_g1 3.2, b_g2
// 6.4 GB), and the matrices (about 5.9 GB) or a, b, c (12.5 GB).
func TestPlanProofBusBytes32GiB(t *testing.T) {
	c := groth16.SectionCounts{H: 134_217_727, L: 130_169_893, A: 129_753_620, B: 33_112_282} // FILECOIN-C2-FACTS §5
	s := Shape{Counts: c, Inputs: 329, Rows: 130_278_869}
	const gb = 1e9
	matrices := int64(5.9 * gb)
	between := func(name string, b int64, lo, hi float64) {
		t.Helper()
		assert.GreaterOrEqual(t, float64(b)/gb, lo, name)
		assert.LessOrEqual(t, float64(b)/gb, hi, name)
	}
	between("the key", groth16.KeyBytes(c), 47.3, 47.5)
	resident, err := NewPlan(0, s, PlanOptions{Workers: 2, MatricesBytes: matrices})
	require.NoError(t, err)
	require.Equal(t, ModeResident, resident.Mode)
	require.True(t, resident.MatricesOnDevice)
	between("resident, the witness", resident.ProofBusBytes, 4.16, 4.17)

	streamed, err := NewPlan(0, s, PlanOptions{Workers: 2, NoResident: true, MatricesBytes: matrices})
	require.NoError(t, err)
	require.True(t, streamed.MatricesOnDevice)
	between("streaming, the matrices streamed", streamed.ProofBusBytes, 57.4, 57.5)
	assert.Equal(t, groth16.KeyBytes(c)+resident.ProofBusBytes+matrices, streamed.ProofBusBytes)

	plain, err := NewPlan(0, s, PlanOptions{Workers: 2, NoResident: true})
	require.NoError(t, err)
	between("streaming, a, b, c uploaded", plain.ProofBusBytes, 64.0, 64.1)
}

// A streamed 32 GiB PoRep proof's layout fills a 16 GiB limit; beside a
// small key held for good (a WinningPoSt's, 238 MB on the H100 that
// failed every PoRep proof so) it takes a layout for the room left
// instead of never fitting, and the plan's Beside says so.
func TestPlanStreamedInRoom(t *testing.T) {
	c := groth16.SectionCounts{H: 134_217_727, L: 130_169_893, A: 129_753_620, B: 33_112_282} // FILECOIN-C2-FACTS §5
	s := Shape{Counts: c, Inputs: 329}
	for _, limit := range []int64{16 << 30, 18 << 30, 24 << 30} {
		for _, matrices := range []int64{0, 5_900_000_000} {
			p, err := NewPlan(limit, s, PlanOptions{Workers: 2, MatricesBytes: matrices})
			require.NoError(t, err)
			require.Equal(t, ModeStreaming, p.Mode)
			least := p.LeastProofBytes()
			assert.LessOrEqual(t, least, p.ProofBytes)
			helds := []int64{0, 238 << 20, p.MemoryLimit - least}
			if p.ProofBytes > least { // a layout of its aux MSMs beside the h MSM
				helds = append(helds, p.MemoryLimit-p.ProofBytes+1)
			}
			for _, held := range helds {
				room := p.MemoryLimit - held
				sp := p.streamedIn(p.MatricesOnDevice, room)
				assert.Equal(t, least, sp.after, "limit %d, held %d: the layout changes, not the need", limit, held)
				if held <= p.MemoryLimit-p.ProofBytes {
					assert.Equal(t, p.ProofBytes, sp.bytes(), "limit %d, held %d: the plan's own layout fits", limit, held)
				}
				assert.LessOrEqual(t, sp.bytes(), room, "limit %d, held %d", limit, held)
				n, peak := p.Beside(held)
				assert.Positive(t, n, "limit %d, held %d: a proof fits", limit, held)
				assert.LessOrEqual(t, peak, p.MemoryLimit, "limit %d, held %d", limit, held)
			}
			n, _ := p.Beside(p.MemoryLimit - least + 1)
			assert.Zero(t, n, "limit %d: less room than the least layout", limit)
		}
	}
}
