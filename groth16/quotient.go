package groth16

import (
	"context"
	"math/big"
	"math/bits"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr/fft"

	"github.com/gpuc2/gpuc2/internal/par"
	"github.com/gpuc2/gpuc2/synth"
)

// The CPU quotient must notice a cancelled context within a fraction of a
// second (issue 15), but gnark-crypto's FFT of a whole domain cannot be
// interrupted and takes seconds at 2^22 on two cores. So each transform is
// split: blocks of fftBlock points go to gnark-crypto whole (a few
// milliseconds each on one core), and the radix-2 levels above them are done
// here, fftChunk butterflies at a time, with ctx checked between steps. The
// arithmetic is exact, so the result is the same as one gnark-crypto call.
const (
	fftBlock = 1 << 14
	fftChunk = 1 << 14
)

// quotient computes the coefficients of h = (a·b − c)/Z over the domain of
// size m as bellperson does: interpolate a, b, c, evaluate them on the coset
// g·⟨ω⟩ with g = 7, combine, divide by Z(g) = g^m − 1 (constant on the coset)
// and interpolate back. a, b, c are consumed (padded in place when capacity allows).
func quotient(ctx context.Context, a, b, c []fr.Element, m int) ([]fr.Element, error) {
	return quotientBlocks(ctx, a, b, c, m, fftBlock)
}

// quotientBlocks is quotient with transforms split into blocks of the given
// size (a power of two; tests make it small).
func quotientBlocks(ctx context.Context, a, b, c []fr.Element, m, block int) ([]fr.Element, error) {
	// Padding clears in steps too: the tail is up to half the domain, and
	// its pages may not have been touched yet.
	pad := func(v *[]fr.Element) error {
		if cap(*v) < m {
			*v = append(*v, make([]fr.Element, m-len(*v))...)
			return nil
		}
		tail := (*v)[len(*v):m]
		*v = (*v)[:m]
		return par.Chunks(ctx, len(tail), fftChunk, func(lo, hi int) error {
			clear(tail[lo:hi])
			return nil
		})
	}
	for _, v := range []*[]fr.Element{&a, &b, &c} {
		if err := pad(v); err != nil {
			return nil, err
		}
	}
	t, err := newNTT(ctx, m, block)
	if err != nil {
		return nil, err
	}
	g := fft.GeneratorFullMultiplicativeGroup()
	var gInv fr.Element
	gInv.Inverse(&g)
	// Values on ⟨ω⟩ → coefficients → values on g·⟨ω⟩. The values end up in
	// bit-reversed order, which suits the pointwise step and the inverse
	// transform below and spares a permutation at the end.
	for _, v := range [][]fr.Element{a, b, c} {
		if err := bitReverse(ctx, v); err != nil {
			return nil, err
		}
		if err := t.inverse(ctx, v); err != nil {
			return nil, err
		}
		if err := scalePowers(ctx, v, g, t.scale); err != nil {
			return nil, err
		}
		if err := t.forward(ctx, v); err != nil {
			return nil, err
		}
	}
	err = par.Chunks(ctx, m, fftChunk, func(lo, hi int) error {
		for i := lo; i < hi; i++ {
			a[i].Mul(&a[i], &b[i]).Sub(&a[i], &c[i])
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if err := t.inverse(ctx, a); err != nil {
		return nil, err
	}
	// 1/Z(g) with Z(X) = X^m − 1, folded into the coset shift back.
	var k fr.Element
	k.Exp(g, big.NewInt(int64(m)))
	k.Sub(&k, &synth.CoeffOne).Inverse(&k)
	k.Mul(&k, &t.scale)
	if err := scalePowers(ctx, a, gInv, k); err != nil {
		return nil, err
	}
	return a, nil
}

// ntt transforms vectors of n points (a power of two) in the domain ⟨ω⟩.
type ntt struct {
	n     int
	block *fft.Domain // gnark-crypto's domain of min(n, block size) points
	// ω^j and ω^-j for j < n/2: the twiddles of the levels above the blocks
	// (nil when n fits one block). Level of span s uses every n/2s-th.
	w, wInv twiddles
	// scale completes inverse's 1/n: the blocks' inverse divides by their size only.
	scale fr.Element
}

func newNTT(ctx context.Context, n, block int) (*ntt, error) {
	bs := min(n, block)
	t := &ntt{n: n, block: fft.NewDomain(uint64(bs))}
	t.scale.SetUint64(uint64(n / bs)).Inverse(&t.scale)
	if n == bs {
		return t, nil
	}
	w, err := fr.Generator(uint64(n))
	if err != nil {
		return nil, err
	}
	var wInv fr.Element
	wInv.Inverse(&w)
	pieces := (n/2 + fftChunk - 1) / fftChunk
	t.w, t.wInv = make(twiddles, pieces), make(twiddles, pieces)
	err = par.Chunks(ctx, n/2, fftChunk, func(lo, hi int) error {
		k := lo / fftChunk
		t.w[k], t.wInv[k] = make([]fr.Element, hi-lo), make([]fr.Element, hi-lo)
		powers(t.w[k], w, lo)
		powers(t.wInv[k], wInv, lo)
		return nil
	})
	return t, err
}

// twiddles holds a table in pieces of fftChunk elements, each allocated in a
// step of its own: one allocation of the whole table (64 MiB at 2^22) took
// up to a few hundred milliseconds on a loaded machine, uninterruptibly.
type twiddles [][]fr.Element

func (tw twiddles) at(i int) *fr.Element { return &tw[i/fftChunk][i%fftChunk] }

// powers sets dst[i] = x^(first+i).
func powers(dst []fr.Element, x fr.Element, first int) {
	var at fr.Element
	at.Exp(x, big.NewInt(int64(first)))
	for i := range dst {
		dst[i] = at
		at.Mul(&at, &x)
	}
}

// forward evaluates the polynomial with coefficients v (natural order) on
// ⟨ω⟩, leaving the values in bit-reversed order (decimation in frequency:
// the levels of span n/2 … block, then the blocks).
func (t *ntt) forward(ctx context.Context, v []fr.Element) error {
	bs := int(t.block.Cardinality)
	for s := t.n / 2; s >= bs; s /= 2 {
		if err := level(ctx, v, s, t.w, false); err != nil {
			return err
		}
	}
	return t.blocks(ctx, v, func(b []fr.Element) { t.block.FFT(b, fft.DIF, fft.WithNbTasks(1)) })
}

// inverse interpolates values on ⟨ω⟩ given in bit-reversed order into
// coefficients in natural order, times n/block: the caller multiplies by
// t.scale (decimation in time: the blocks, then the levels of span block … n/2).
func (t *ntt) inverse(ctx context.Context, v []fr.Element) error {
	if err := t.blocks(ctx, v, func(b []fr.Element) { t.block.FFTInverse(b, fft.DIT, fft.WithNbTasks(1)) }); err != nil {
		return err
	}
	for s := int(t.block.Cardinality); s < t.n; s *= 2 {
		if err := level(ctx, v, s, t.wInv, true); err != nil {
			return err
		}
	}
	return nil
}

// blocks runs f on each block of v, one block per step.
func (t *ntt) blocks(ctx context.Context, v []fr.Element, f func([]fr.Element)) error {
	bs := int(t.block.Cardinality)
	return par.Chunks(ctx, len(v)/bs, 1, func(lo, hi int) error {
		for k := lo; k < hi; k++ {
			f(v[k*bs : (k+1)*bs])
		}
		return nil
	})
}

// level runs the n/2 radix-2 butterflies of span s over v: pairs (x, y) =
// (v[p+j], v[p+s+j]) in each group p of 2s points, with twiddle ω_2s^j = ω^(j·n/2s)
// taken from tw. Decimation in time: y·w, then x ± y·w; in frequency:
// x + y, then (x − y)·w.
func level(ctx context.Context, v []fr.Element, s int, tw twiddles, dit bool) error {
	stride := len(v) / (2 * s)
	// A step never straddles two groups: both sizes are powers of two.
	return par.Chunks(ctx, len(v)/2, min(fftChunk, s), func(lo, hi int) error {
		p, j0 := lo/s*2*s, lo%s
		x := v[p+j0 : p+j0+hi-lo]
		y := v[p+s+j0 : p+s+j0+hi-lo]
		for i := range x {
			w := tw.at((j0 + i) * stride)
			if dit {
				y[i].Mul(&y[i], w)
				fr.Butterfly(&x[i], &y[i])
			} else {
				fr.Butterfly(&x[i], &y[i])
				y[i].Mul(&y[i], w)
			}
		}
		return nil
	})
}

// bitReverse permutes v (of power-of-two length) into bit-reversed order.
func bitReverse(ctx context.Context, v []fr.Element) error {
	shift := 64 - bits.TrailingZeros(uint(len(v)))
	return par.Chunks(ctx, len(v), fftChunk, func(lo, hi int) error {
		for i := lo; i < hi; i++ {
			// Each pair is swapped once, by its smaller index.
			if j := int(bits.Reverse64(uint64(i)) >> shift); i < j {
				v[i], v[j] = v[j], v[i]
			}
		}
		return nil
	})
}

// scalePowers sets v[i] = v[i]·k·x^i.
func scalePowers(ctx context.Context, v []fr.Element, x, k fr.Element) error {
	return par.Chunks(ctx, len(v), fftChunk, func(lo, hi int) error {
		var at fr.Element
		at.Exp(x, big.NewInt(int64(lo))).Mul(&at, &k)
		for i := lo; i < hi; i++ {
			v[i].Mul(&v[i], &at)
			at.Mul(&at, &x)
		}
		return nil
	})
}
