package synth_test

import (
	"os"
	"testing"

	"github.com/gpuc2/gpuc2/synth"
)

// BenchmarkEnforceBoolean measures the witness-only cost of the row kind that
// dominates SHA-256 circuits: a bit check b·(1 − b) = 0 and an xor row
// (2a)·b = a + b − c, over values that are bits.
func BenchmarkEnforceBoolean(b *testing.B) {
	p := synth.NewProvingAssignment(synth.Sizes{Aux: 3 * b.N, Rows: 2 * b.N})
	if os.Getenv("REUSE") != "" {
		fill(p, b.N)
		p.Reset()
	}
	b.ResetTimer()
	fill(p, b.N)
	b.ReportMetric(2*float64(b.N)/b.Elapsed().Seconds(), "constraints/s")
}

func fill(p *synth.ProvingAssignment, n int) {
	one := synth.CoeffOne
	var zero = synth.CoeffOne
	zero.SetZero()
	lcA := make(synth.LinearCombination, 0, 4)
	lcB := make(synth.LinearCombination, 0, 4)
	lcC := make(synth.LinearCombination, 0, 4)
	for i := range n {
		va := one
		if i&1 == 0 {
			va = zero
		}
		x := p.Alloc(va)
		y := p.Alloc(one)
		z := p.Alloc(va)
		lcA = append(lcA[:0], synth.Term{Coeff: one, Var: x})
		lcB = append(lcB[:0], synth.Term{Coeff: one, Var: synth.One}, synth.Term{Coeff: synth.CoeffMinusOne, Var: x})
		p.Enforce(lcA, lcB, nil)
		lcA = append(lcA[:0], synth.Term{Coeff: synth.CoeffTwo, Var: x})
		lcB = append(lcB[:0], synth.Term{Coeff: one, Var: y})
		lcC = append(lcC[:0], synth.Term{Coeff: one, Var: x}, synth.Term{Coeff: one, Var: y}, synth.Term{Coeff: synth.CoeffMinusOne, Var: z})
		p.Enforce(lcA, lcB, lcC)
	}
}
