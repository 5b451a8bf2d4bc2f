package msm

import (
	"context"
	"errors"
	"fmt"
	"math/bits"
	"runtime"

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

// Engine computes multi-scalar multiplications Σ sᵢ·Pᵢ. Scalars are gnark-crypto
// fr.Elements (Montgomery form). Implementations: CPU (always available) and
// CUDA (cuda.go) once the native library is loaded.
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

// cpuChunk bounds one gnark-crypto call so that cancellation is noticed
// within seconds; larger inputs are summed chunk by chunk.
const cpuChunk = 1 << 21

// G1 implements Engine.
func (e CPU) G1(ctx context.Context, bases []bls12381.G1Affine, scalars []fr.Element, density *Density) (bls12381.G1Jac, error) {
	var res bls12381.G1Jac
	sel, err := selectScalars(len(bases), scalars, density)
	if err != nil {
		return res, err
	}
	for lo := 0; lo < len(sel); lo += cpuChunk {
		if err := ctx.Err(); err != nil {
			return res, err
		}
		hi := min(lo+cpuChunk, len(sel))
		var part bls12381.G1Jac
		if _, err := part.MultiExp(bases[lo:hi], sel[lo:hi], e.config()); err != nil {
			return res, fmt.Errorf("msm: G1: %w", err)
		}
		res.AddAssign(&part)
	}
	return res, ctx.Err()
}

// G2 implements Engine.
func (e CPU) G2(ctx context.Context, bases []bls12381.G2Affine, scalars []fr.Element, density *Density) (bls12381.G2Jac, error) {
	var res bls12381.G2Jac
	sel, err := selectScalars(len(bases), scalars, density)
	if err != nil {
		return res, err
	}
	for lo := 0; lo < len(sel); lo += cpuChunk {
		if err := ctx.Err(); err != nil {
			return res, err
		}
		hi := min(lo+cpuChunk, len(sel))
		var part bls12381.G2Jac
		if _, err := part.MultiExp(bases[lo:hi], sel[lo:hi], e.config()); err != nil {
			return res, fmt.Errorf("msm: G2: %w", err)
		}
		res.AddAssign(&part)
	}
	return res, ctx.Err()
}

// selectScalars returns the scalars paired with the bases, gathering the ones
// the density selects.
func selectScalars(nBases int, scalars []fr.Element, d *Density) ([]fr.Element, error) {
	words, err := checkDensity(nBases, scalars, d)
	if err != nil || d == nil {
		return scalars, err
	}
	sel := make([]fr.Element, 0, nBases)
	for w, word := range words {
		for word != 0 {
			i := w*64 + bits.TrailingZeros64(word)
			word &= word - 1
			sel = append(sel, scalars[i])
		}
	}
	return sel, nil
}

// checkDensity checks that bases, scalars and the density mask pair up and
// returns the mask's words (nil without a mask).
func checkDensity(nBases int, scalars []fr.Element, d *Density) ([]uint64, error) {
	if d == nil {
		if nBases != len(scalars) {
			return nil, fmt.Errorf("%w: %d bases, %d scalars", ErrLengthMismatch, nBases, len(scalars))
		}
		return nil, nil
	}
	words := (d.Len + 63) / 64
	if d.Len != len(scalars) || len(d.Words) < words {
		return nil, fmt.Errorf("%w: density covers %d scalars (%d words), got %d scalars", ErrLengthMismatch, d.Len, len(d.Words), len(scalars))
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
