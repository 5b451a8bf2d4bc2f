package msm

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"runtime"
	"time"

	"github.com/consensys/gnark-crypto/ecc"
	bls12381 "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

// ErrLengthMismatch reports bases and scalars (or a density mask) that do not pair up.
var ErrLengthMismatch = errors.New("msm: length mismatch")

// Density selects which scalars take part in a multi-scalar multiplication.
// Bit i (word i/64, bit i%64) set means scalar i is paired with the next base;
// the bases slice then holds exactly one point per set bit, in index order.
// This is how bellperson's .params file stores the a, b_g1 and b_g2 queries.
// A nil Density means every scalar is used, one base each.
type Density struct {
	Words []uint64
	Len   int // number of scalars the mask covers
}

// Count returns the number of set bits.
func (d *Density) Count() int {
	n := 0
	for _, w := range d.Words {
		n += bits.OnesCount64(w)
	}
	return n
}

// Test reports whether bit i is set.
func (d *Density) Test(i int) bool { return d.Words[i>>6]>>(uint(i)&63)&1 == 1 }

// Check checks that d pairs nScalars scalars with nBases bases, one base
// per selected scalar, and returns its words; a nil d selects every scalar
// and returns nil words. A misfit wraps ErrLengthMismatch. Engines call it
// before they compute.
func (d *Density) Check(nBases, nScalars int) ([]uint64, error) {
	if d == nil {
		if nBases != nScalars {
			return nil, fmt.Errorf("%w: %d bases, %d scalars", ErrLengthMismatch, nBases, nScalars)
		}
		return nil, nil
	}
	words := (d.Len + 63) / 64
	if d.Len != nScalars || len(d.Words) < words {
		return nil, fmt.Errorf("%w: density covers %d scalars (%d words), got %d scalars", ErrLengthMismatch, d.Len, len(d.Words), nScalars)
	}
	if len(d.Words) > words || (d.Len%64 != 0 && d.Words[d.Len/64]>>(uint(d.Len)%64) != 0) {
		return nil, fmt.Errorf("%w: density has bits set beyond its %d scalars", ErrLengthMismatch, d.Len)
	}
	c := 0
	for _, w := range d.Words {
		c += bits.OnesCount64(w)
	}
	if c != nBases {
		return nil, fmt.Errorf("%w: density selects %d scalars, %d bases", ErrLengthMismatch, c, nBases)
	}
	return d.Words[:words], nil
}

// Engine computes multi-scalar multiplications Σ sᵢ·Pᵢ over host slices.
// Scalars are gnark-crypto fr.Elements (Montgomery form). Implementations:
// CPU (always available) and msm/cuda's Engine (once the native library is
// loaded), which also runs MSMs over device buffers.
type Engine interface {
	// G1 returns Σ scalars[i]·bases[j(i)] over the scalars selected by density
	// (nil: all, len(bases) == len(scalars)).
	G1(ctx context.Context, bases []bls12381.G1Affine, scalars []fr.Element, density *Density) (bls12381.G1Jac, error)
	// G2 is G1 over G2.
	G2(ctx context.Context, bases []bls12381.G2Affine, scalars []fr.Element, density *Density) (bls12381.G2Jac, error)
}

// CPU is the gnark-crypto multi-exponentiation, with density filtering done
// by gathering the selected scalars first.
type CPU struct {
	// Workers bounds the goroutines one call uses; 0 means GOMAXPROCS.
	Workers int
}

var _ Engine = CPU{}

func (e CPU) config() ecc.MultiExpConfig {
	n := e.Workers
	if n <= 0 {
		n = runtime.GOMAXPROCS(0)
	}
	return ecc.MultiExpConfig{NbTasks: n}
}

// A gnark-crypto MultiExp call cannot be interrupted, so G1 and G2 make calls
// over consecutive runs of scalars, each sized to take about cpuSlice, and
// check ctx between them: cancellation is noticed within about cpuSlice on any
// machine, while fast machines still get large (efficient) calls.
const (
	cpuSlice = 100 * time.Millisecond
	// cpuMaxChunk caps a call's points (gnark-crypto's digit buffers grow with it).
	cpuMaxChunk = 1 << 21
	// cpuFirstBudget sizes the first call, before any speed is measured:
	// 1024 full-width scalars, milliseconds even on one slow core.
	cpuFirstBudget = 1024 * weightWide
)

// Scalar weights for sizing calls, in proportion to what gnark-crypto spends
// on them (it skips zero digits; measured on the dev machine, G1 and G2
// alike: 0 ≈ 1, 1 ≈ 4, a 64-bit value ≈ 15, a full-width one ≈ 70). Scalars
// of a witness are mostly bits with runs of hashes, so a count of points
// alone would let a call sized on bits run ten times too long on hashes.
const (
	weightZero = 1
	weightOne  = 4
	weightWide = 64 // anything else: small non-bit values are overestimated, which is safe
)

func weight(s *fr.Element) int {
	switch {
	case s.IsZero():
		return weightZero
	case s.IsOne():
		return weightOne
	}
	return weightWide
}

// sliced calls msm on consecutive ranges [lo, hi) of the scalars selected by
// words (nil: all of them; Density.Check has checked that nBases are), each
// expected to take about cpuSlice, with the range's scalars in s, and checks
// ctx before each call. A call's size follows the speed measured on the
// previous one (weight per second), growing at most fourfold per call, since
// one fast call on cheap scalars says little about the next. Selected scalars
// are gathered call by call into one reused buffer: gathering them all first
// meant an allocation of up to the whole witness, which cannot be interrupted
// either.
func sliced(ctx context.Context, nBases int, scalars []fr.Element, words []uint64, msm func(lo, hi int, s []fr.Element) error) error {
	budget := float64(cpuFirstBudget)
	// A context that can never be cancelled needs no slices: calls as large
	// as cpuMaxChunk allows, which are faster (BENCHMARKS.md, the CPU MSM
	// table).
	uncancellable := ctx.Done() == nil
	if uncancellable {
		budget = math.Inf(1)
	}
	var buf []fr.Element
	word, rest := -1, uint64(0) // the mask word being read and its bits not yet taken
	for lo := 0; lo < nBases; {
		if err := ctx.Err(); err != nil {
			return err
		}
		hi, w := lo, 0
		var s []fr.Element
		if words == nil {
			for hi < nBases && hi-lo < cpuMaxChunk && float64(w) < budget {
				w += weight(&scalars[hi])
				hi++
			}
			s = scalars[lo:hi]
		} else {
			buf = buf[:0]
			for hi < nBases && hi-lo < cpuMaxChunk && float64(w) < budget {
				for rest == 0 {
					word++
					rest = words[word]
				}
				x := &scalars[word*64+bits.TrailingZeros64(rest)]
				rest &= rest - 1
				buf = append(buf, *x)
				w += weight(x)
				hi++
			}
			s = buf
		}
		start := time.Now()
		if err := msm(lo, hi, s); err != nil {
			return err
		}
		if !uncancellable {
			rate := float64(w) / max(time.Since(start).Seconds(), 1e-6)
			budget = min(rate*cpuSlice.Seconds(), 4*max(float64(w), budget))
		}
		lo = hi
	}
	return ctx.Err()
}

// G1 implements Engine.
func (e CPU) G1(ctx context.Context, bases []bls12381.G1Affine, scalars []fr.Element, density *Density) (bls12381.G1Jac, error) {
	var res bls12381.G1Jac
	words, err := density.Check(len(bases), len(scalars))
	if err != nil {
		return res, err
	}
	err = sliced(ctx, len(bases), scalars, words, func(lo, hi int, s []fr.Element) error {
		var part bls12381.G1Jac
		if _, err := part.MultiExp(bases[lo:hi], s, e.config()); err != nil {
			return fmt.Errorf("msm: G1: %w", err)
		}
		res.AddAssign(&part)
		return nil
	})
	return res, err
}

// G2 implements Engine.
func (e CPU) G2(ctx context.Context, bases []bls12381.G2Affine, scalars []fr.Element, density *Density) (bls12381.G2Jac, error) {
	var res bls12381.G2Jac
	words, err := density.Check(len(bases), len(scalars))
	if err != nil {
		return res, err
	}
	err = sliced(ctx, len(bases), scalars, words, func(lo, hi int, s []fr.Element) error {
		var part bls12381.G2Jac
		if _, err := part.MultiExp(bases[lo:hi], s, e.config()); err != nil {
			return fmt.Errorf("msm: G2: %w", err)
		}
		res.AddAssign(&part)
		return nil
	})
	return res, err
}
