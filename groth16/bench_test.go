package groth16_test

import (
	"context"
	"testing"
	"time"

	"github.com/gpuc2/gpuc2/groth16"
	"github.com/gpuc2/gpuc2/internal/testcircuit"
	"github.com/gpuc2/gpuc2/synth"
)

// BenchmarkProveCPU proves a 2^20-row Chain circuit (set up once) and
// reports each phase. It also checks every proof, so the benchmark doubles
// as the ≥ 2^20-constraint round trip.
func BenchmarkProveCPU(b *testing.B) {
	c := &testcircuit.Chain{N: 1<<20 - 64, Seed: 1, Inputs: 8}
	start := time.Now()
	pk := setup(b, c, 42)
	b.Logf("setup: %v, counts %+v", time.Since(start), pk.Counts())
	pvk := groth16.PrepareVerifyingKey(pk.VerifyingKey())
	ctx := context.Background()
	var sum groth16.Timings
	b.ResetTimer()
	for range b.N {
		var t groth16.Timings
		p, err := groth16.Prove(ctx, &groth16.CPUProver{}, pk, c, groth16.WithTimings(&t))
		if err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		if ok, err := pvk.Verify(p, c.PublicInputs()); err != nil || !ok {
			b.Fatalf("proof does not verify: %v", err)
		}
		b.StartTimer()
		sum.Add(t)
	}
	n := float64(b.N)
	for name, d := range map[string]time.Duration{
		"synth": sum.Synthesis, "H": sum.H, "msm_h": sum.MSMH, "msm_l": sum.MSML,
		"msm_a": sum.MSMA, "msm_b_g1": sum.MSMBG1, "msm_b_g2": sum.MSMBG2,
	} {
		b.ReportMetric(d.Seconds()/n, name+"_s")
	}
	w := synth.NewChecker()
	_ = c.Synthesize(ctx, w)
	b.ReportMetric(float64(w.Stats().Constraints), "constraints")
}
