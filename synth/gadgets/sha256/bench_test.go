package sha256_test

import (
	"math/rand/v2"
	"testing"

	"github.com/gpuc2/gpuc2/synth"
	"github.com/gpuc2/gpuc2/synth/gadgets/boolean"
	"github.com/gpuc2/gpuc2/synth/gadgets/sha256"
)

// BenchmarkCompressionWitness runs the witness-only path the prover takes:
// many compressions (each on 512 freshly allocated message bits) into one
// ProvingAssignment. constraints/s counts every row, bit rows included.
// After the first compression, whose shape is recorded, every compression is
// replayed from the record (template.go).
func BenchmarkCompressionWitness(b *testing.B) {
	const perSystem = 8
	r := rand.New(rand.NewPCG(1, 1))
	msg := randBytes(r, 64)
	var msgBits [512]bool
	for i := range msgBits {
		msgBits[i] = msg[i/8]>>uint(7-i%8)&1 == 1
	}
	sizes := synth.Sizes{Inputs: 1, Aux: perSystem * 26326, Rows: perSystem * 26352}
	cs := synth.NewProvingAssignment(sizes)
	g := sha256.New(cs)
	block := make([]boolean.Boolean, 512)
	rows := 0
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if i%perSystem == 0 && i > 0 {
			rows += cs.NumRows()
			b.StopTimer()
			cs = synth.NewProvingAssignment(sizes)
			g = sha256.New(cs)
			b.StartTimer()
		}
		for k := range block {
			block[k] = g.B.AllocBit(msgBits[k])
		}
		if _, err := g.BlockNoPadding(block); err != nil {
			b.Fatal(err)
		}
	}
	rows += cs.NumRows()
	b.ReportMetric(float64(rows)/b.Elapsed().Seconds(), "constraints/s")
}
