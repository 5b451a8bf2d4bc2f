package msm

import (
	"slices"

	bls12381 "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fp"
)

// Batched affine addition. The chord rule
//
//	λ = (y2 − y1)/(x2 − x1), x3 = λ² − x1 − x2, y3 = λ·(x1 − x3) − y1
//
// needs one inversion per addition; Montgomery's trick inverts a whole batch
// of x2 − x1 with one inversion and three multiplications per element, so an
// addition costs about six multiplications against eleven for a Jacobian
// mixed addition. The chord rule fails for x1 = x2 (a doubling, or P + (−P))
// and for the point at infinity (the zero affine point, as in gnark-crypto):
// add does those at once with gnark-crypto's complete affine Add.

// affineAdderG1 queues acc += p in G1 until flush.
type affineAdderG1 struct {
	accs   []*bls12381.G1Affine
	points []bls12381.G1Affine // the points to add, negated if asked
	dx     []fp.Element        // x2 − x1 of each queued addition, then its inverse
	prefix []fp.Element        // batch inversion scratch
	sink   uint64              // keeps warming loads (see warmG1) alive
}

// add queues *acc += *p (−*p if neg), or does it now if the chord rule does
// not apply. *acc may not change before flush, nor be queued twice.
func (b *affineAdderG1) add(acc, p *bls12381.G1Affine, neg bool) {
	if neg {
		var q bls12381.G1Affine
		p = q.Neg(p)
	}
	switch {
	case p.IsInfinity():
	case acc.IsInfinity():
		*acc = *p
	case acc.X.Equal(&p.X):
		acc.Add(acc, p) // rare: doubling or infinity
	default:
		var dx fp.Element
		dx.Sub(&p.X, &acc.X)
		b.accs = append(b.accs, acc)
		b.points = append(b.points, *p)
		b.dx = append(b.dx, dx)
	}
}

// flush does the queued additions.
func (b *affineAdderG1) flush() {
	b.prefix = slices.Grow(b.prefix[:0], len(b.dx))[:len(b.dx)]
	invertAllFp(b.dx, b.prefix)
	var lambda, x3, t fp.Element
	for k, acc := range b.accs {
		p := &b.points[k]
		lambda.Sub(&p.Y, &acc.Y)
		lambda.Mul(&lambda, &b.dx[k])
		x3.Square(&lambda)
		x3.Sub(&x3, &acc.X)
		x3.Sub(&x3, &p.X)
		t.Sub(&acc.X, &x3)
		t.Mul(&t, &lambda)
		acc.Y.Sub(&t, &acc.Y)
		acc.X = x3
	}
	clear(b.accs) // drop the pointers for the collector
	b.accs, b.points, b.dx = b.accs[:0], b.points[:0], b.dx[:0]
}

// invertAllFp replaces each (non-zero) v[i] by its inverse with one
// inversion, in place: fp.BatchInvert would allocate a result per batch.
func invertAllFp(v, prefix []fp.Element) {
	var acc fp.Element
	acc.SetOne()
	for i := range v {
		prefix[i] = acc
		acc.Mul(&acc, &v[i])
	}
	acc.Inverse(&acc)
	for i := len(v) - 1; i >= 0; i-- {
		vi := v[i]
		v[i].Mul(&acc, &prefix[i])
		acc.Mul(&acc, &vi)
	}
}

// affineAdderG2 is affineAdderG1 in G2.
type affineAdderG2 struct {
	accs   []*bls12381.G2Affine
	points []bls12381.G2Affine
	dx     []bls12381.E2
	prefix []bls12381.E2
	sink   uint64
}

func (b *affineAdderG2) add(acc, p *bls12381.G2Affine, neg bool) {
	if neg {
		var q bls12381.G2Affine
		p = q.Neg(p)
	}
	switch {
	case p.IsInfinity():
	case acc.IsInfinity():
		*acc = *p
	case acc.X.Equal(&p.X):
		acc.Add(acc, p)
	default:
		var dx bls12381.E2
		dx.Sub(&p.X, &acc.X)
		b.accs = append(b.accs, acc)
		b.points = append(b.points, *p)
		b.dx = append(b.dx, dx)
	}
}

func (b *affineAdderG2) flush() {
	b.prefix = slices.Grow(b.prefix[:0], len(b.dx))[:len(b.dx)]
	invertAllE2(b.dx, b.prefix)
	var lambda, x3, t bls12381.E2
	for k, acc := range b.accs {
		p := &b.points[k]
		lambda.Sub(&p.Y, &acc.Y)
		lambda.Mul(&lambda, &b.dx[k])
		x3.Square(&lambda)
		x3.Sub(&x3, &acc.X)
		x3.Sub(&x3, &p.X)
		t.Sub(&acc.X, &x3)
		t.Mul(&t, &lambda)
		acc.Y.Sub(&t, &acc.Y)
		acc.X = x3
	}
	clear(b.accs)
	b.accs, b.points, b.dx = b.accs[:0], b.points[:0], b.dx[:0]
}

// invertAllE2 is invertAllFp in E2 (gnark-crypto does not export one).
func invertAllE2(v, prefix []bls12381.E2) {
	var acc bls12381.E2
	acc.SetOne()
	for i := range v {
		prefix[i] = acc
		acc.Mul(&acc, &v[i])
	}
	acc.Inverse(&acc)
	for i := len(v) - 1; i >= 0; i-- {
		vi := v[i]
		v[i].Mul(&acc, &prefix[i])
		acc.Mul(&acc, &vi)
	}
}
