package update_test

import (
	"context"
	"fmt"
	"os"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gpuc2/gpuc2/synth"
	"github.com/gpuc2/gpuc2/synth/update"
)

// BenchmarkSynthesizeWitness synthesizes one partition of a synthetic
// update into a witness-only system (what a GPU prover fills), challenges
// in parallel on GOMAXPROCS goroutines, reporting constraints/s; 32 GiB
// (81 M constraints, 2.6 GB of witness) with GPUC2_UPDATE_32GIB=1:
//
//	go test ./synth/update -run XXX -bench SynthesizeWitness -benchtime 3x
//	GPUC2_UPDATE_32GIB=1 ./update.test -test.run XX -test.bench 'SynthesizeWitness/32GiB' -test.benchtime 2x
func BenchmarkSynthesizeWitness(b *testing.B) {
	sizes := []uint64{2 << 10, 8 << 20}
	if os.Getenv("GPUC2_UPDATE_32GIB") == "1" {
		sizes = append(sizes, 32<<30)
	}
	for _, size := range sizes {
		b.Run(sizeName(size), func(b *testing.B) {
			p := params(b, size)
			s, err := update.NewSynthetic(p, 1)
			require.NoError(b, err)
			hint, err := p.CircuitSizes()
			require.NoError(b, err)
			w, err := s.Witness(0)
			require.NoError(b, err)
			c := &update.Circuit{Params: p, Witness: w}
			rows := 0
			b.ResetTimer()
			for range b.N {
				pa := synth.NewWitnessAssignment(hint)
				if err := c.Synthesize(context.Background(), pa); err != nil {
					b.Fatal(err)
				}
				rows = pa.NumRows()
			}
			b.ReportMetric(float64(rows)*float64(b.N)/b.Elapsed().Seconds(), "constraints/s")
		})
	}
}

// BenchmarkCheck checks a 32 GiB synthetic update's vanilla proofs (16
// partitions of 86 challenges), as a prover does before synthesis.
func BenchmarkCheck(b *testing.B) {
	p := params(b, 32<<30)
	s, err := update.NewSynthetic(p, 1)
	require.NoError(b, err)
	b.ResetTimer()
	for range b.N {
		if err := update.Check(context.Background(), p, s.Proofs, s.H, s.CommROld, s.CommDNew, s.CommRNew); err != nil {
			b.Fatal(err)
		}
	}
}

func sizeName(size uint64) string {
	switch {
	case size >= 1<<30:
		return fmt.Sprintf("%dGiB", size>>30)
	case size >= 1<<20:
		return fmt.Sprintf("%dMiB", size>>20)
	}
	return fmt.Sprintf("%dKiB", size>>10)
}
