package msm_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	bls12381 "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/gpuc2/gpuc2/msm"
)

// benchInputs returns n distinct points (a fixed-base batch, cheap to make)
// and n uniformly random scalars.
func benchInputs(b *testing.B, n int) ([]bls12381.G1Affine, []bls12381.G2Affine, []fr.Element) {
	rng := rand.New(rand.NewPCG(uint64(n), 1))
	s := make([]fr.Element, n)
	for i := range s {
		s[i].SetUint64(rng.Uint64())
		s[i].Square(&s[i]).Square(&s[i])
	}
	_, _, g1, g2 := bls12381.Generators()
	p1, err := msm.FixedBaseG1(context.Background(), &g1, s)
	if err != nil {
		b.Fatal(err)
	}
	p2, err := msm.FixedBaseG2(context.Background(), &g2, s)
	if err != nil {
		b.Fatal(err)
	}
	s2 := make([]fr.Element, n)
	for i := range s2 {
		s2[i].SetRandom()
	}
	return p1, p2, s2
}

func BenchmarkCPU(b *testing.B) {
	ctx := context.Background()
	for _, logN := range []int{16, 18, 20} {
		n := 1 << logN
		var p1 []bls12381.G1Affine
		var p2 []bls12381.G2Affine
		var s []fr.Element
		b.Run(fmt.Sprintf("G1/2^%d", logN), func(b *testing.B) {
			if p1 == nil {
				p1, p2, s = benchInputs(b, n)
			}
			b.ResetTimer()
			for range b.N {
				if _, err := (msm.CPU{}).G1(ctx, p1, s, nil); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "points/s")
		})
		b.Run(fmt.Sprintf("G2/2^%d", logN), func(b *testing.B) {
			if p2 == nil {
				p1, p2, s = benchInputs(b, n)
			}
			b.ResetTimer()
			for range b.N {
				if _, err := (msm.CPU{}).G2(ctx, p2, s, nil); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "points/s")
		})
	}
}

func BenchmarkFixedBase(b *testing.B) {
	ctx := context.Background()
	_, _, g1, g2 := bls12381.Generators()
	n := 1 << 16
	s := make([]fr.Element, n)
	for i := range s {
		s[i].SetRandom()
	}
	b.Run("G1/2^16", func(b *testing.B) {
		for range b.N {
			if _, err := msm.FixedBaseG1(ctx, &g1, s); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "points/s")
	})
	b.Run("G2/2^16", func(b *testing.B) {
		for range b.N {
			if _, err := msm.FixedBaseG2(ctx, &g2, s); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "points/s")
	})
}
