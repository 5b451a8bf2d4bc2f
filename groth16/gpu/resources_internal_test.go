package gpu

import (
	"testing"

	"github.com/gpuc2/gpuc2/groth16"
	"github.com/gpuc2/gpuc2/native"
)

// A 32 GiB partition's device memory per proof, from the library's scratch
// query where it is loaded and from native.MSMScratchBound where not: at
// least a, b, c, the scalars and the h MSM's digits (keys and values,
// double-buffered, for at least two windows per scalar: the header sorts up
// to 2^28 digits at once); and tight enough that the key and three workers
// fit an H200's ledger budget, as they do (BENCHMARKS.md: 1, 2 and 3
// resident workers on one H200).
func TestProofDeviceBytes32GiB(t *testing.T) {
	c := groth16.SectionCounts{H: 134_217_727, L: 130_169_893, A: 129_753_620, B: 33_112_282} // FILECOIN-C2-FACTS §5
	m, nAux := c.H+1, c.L
	got := proofDeviceBytes(anyDevice, c, m, nAux)
	floor := 3*int64(m)*frSize + int64(nAux)*frSize + 16*2*int64(c.H)
	if got < floor {
		t.Errorf("%d bytes, below a, b, c, the scalars and the h MSM's digits (%d)", got, floor)
	}
	h200 := int64(139) << 30
	budget := h200 - deviceMarginBytes(h200)
	if need := groth16.KeyBytes(c) + 3*got; need > budget {
		t.Errorf("key and 3 workers need %.1f GiB, over an H200's %.1f GiB budget", float64(need)/(1<<30), float64(budget)/(1<<30))
	}
	t.Logf("per proof %.2f GiB (library loaded: %v)", float64(got)/(1<<30), native.Available())
}

// Without a library the MSM scratch is native.MSMScratchBound's of the
// largest of the proof's MSMs; with one, the library's answer, which the
// bound covers.
func TestMSMScratchBytesSource(t *testing.T) {
	c := groth16.SectionCounts{H: 1<<20 - 1, L: 1 << 19, A: 1 << 19, B: 1 << 18}
	nAux := c.L
	bound := max(native.MSMScratchBound(native.G1, native.DeviceMSM{NBases: c.H, NScalars: c.H, Canonical: true}),
		native.MSMScratchBound(native.G2, native.DeviceMSM{NBases: c.B, NScalars: nAux, Canonical: true}))
	got := msmScratchBytes(anyDevice, c, nAux)
	if !native.Available() {
		if got != bound {
			t.Errorf("without the library: %d bytes, want the bound %d", got, bound)
		}
		return
	}
	if got > bound || got <= 0 {
		t.Errorf("with the library: %d bytes, want within (0, %d]", got, bound)
	}
}
