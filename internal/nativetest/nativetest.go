// Package nativetest holds input generators shared by the GPU tests and
// benchmarks of packages native and msm: random scalars, random points
// (a few distinct ones tiled, since generating millions of distinct points
// on the CPU takes minutes), and size parsing from the environment.
package nativetest

import (
	"crypto/rand"
	"encoding/binary"
	mrand "math/rand/v2"
	"os"
	"runtime"
	"strconv"
	"sync"

	bls12381 "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

// EnvBig enables the large sizes (2^24 and up) in GPU tests.
const EnvBig = "GPUC2_TEST_BIG"

// Big reports whether EnvBig is set to a true value.
func Big() bool {
	v, _ := strconv.ParseBool(os.Getenv(EnvBig))
	return v
}

func seed() [32]byte {
	var s [32]byte
	_, _ = rand.Read(s[:])
	return s
}

// parallel runs f over [0, n) in chunks on all CPUs.
func parallel(n int, f func(lo, hi int, r *mrand.Rand)) {
	workers := runtime.GOMAXPROCS(0)
	chunk := (n + workers - 1) / workers
	var wg sync.WaitGroup
	for lo := 0; lo < n; lo += chunk {
		hi := min(lo+chunk, n)
		wg.Add(1)
		go func(lo, hi int) {
			defer wg.Done()
			s := seed()
			f(lo, hi, mrand.New(mrand.NewChaCha8(s)))
		}(lo, hi)
	}
	wg.Wait()
}

// Scalars returns n uniformly random scalars (Montgomery form, < r).
func Scalars(n int) []fr.Element {
	out := make([]fr.Element, n)
	parallel(n, func(lo, hi int, r *mrand.Rand) {
		var b [32]byte
		for i := lo; i < hi; i++ {
			for j := 0; j < 4; j++ {
				binary.LittleEndian.PutUint64(b[8*j:], r.Uint64())
			}
			out[i].SetBytes(b[:]) // reduces mod r
		}
	})
	return out
}

// G1 returns n random G1 points: min(n, distinct) distinct random multiples
// of the generator, tiled.
func G1(n, distinct int) []bls12381.G1Affine {
	d := min(n, distinct)
	_, _, g1, _ := bls12381.Generators()
	base := bls12381.BatchScalarMultiplicationG1(&g1, Scalars(d))
	out := make([]bls12381.G1Affine, n)
	for i := 0; i < n; i += d {
		copy(out[i:], base)
	}
	return out
}

// G2 is G1 over G2.
func G2(n, distinct int) []bls12381.G2Affine {
	d := min(n, distinct)
	_, _, _, g2 := bls12381.Generators()
	base := bls12381.BatchScalarMultiplicationG2(&g2, Scalars(d))
	out := make([]bls12381.G2Affine, n)
	for i := 0; i < n; i += d {
		copy(out[i:], base)
	}
	return out
}

// Density returns a random mask over n scalars with about one bit in every
// `every` set, and its popcount.
func Density(n, every int) ([]uint64, int) {
	words := make([]uint64, (n+63)/64)
	s := seed()
	r := mrand.New(mrand.NewChaCha8(s))
	c := 0
	for i := 0; i < n; i++ {
		if r.IntN(every) == 0 {
			words[i/64] |= 1 << (uint(i) % 64)
			c++
		}
	}
	return words, c
}
