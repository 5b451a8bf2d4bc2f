package synth

import (
	"slices"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

// Bulk access for gadgets that replay a recorded structure into the
// witness-only system instead of enforcing it row by row (the SHA-256
// compression does: see its template). The caller is responsible for
// writing exactly what Alloc and Enforce would have produced.

// NextAux returns the variable the next Alloc returns.
func (p *ProvingAssignment) NextAux() Variable {
	return Aux(p.assignment.auxBase + len(p.Aux))
}

// Extend allocates nAux aux variables (from NextAux on) and nRows rows at
// once and returns their values to fill: aux values and the rows' a, b, c
// evaluations (nil in a witness-only system, which only counts the rows).
// The new variables' density bits are clear.
func (p *ProvingAssignment) Extend(nAux, nRows int) (aux, a, b, c []fr.Element) {
	if len(p.Aux)+nAux > MaxVariables {
		panic(ErrTooManyVariables)
	}
	if p.witnessOnly {
		p.rows += nRows
		aux, p.Aux = grow(&p.Aux, nAux)
		return aux, nil, nil, nil
	}
	p.AAux.extend(nAux)
	p.BAux.extend(nAux)
	aux, p.Aux = grow(&p.Aux, nAux)
	a, p.A = grow(&p.A, nRows)
	b, p.B = grow(&p.B, nRows)
	c, p.C = grow(&p.C, nRows)
	return aux, a, b, c
}

// grow lengthens *s by n and returns the new tail and the new slice.
func grow(s *[]fr.Element, n int) (tail, all []fr.Element) {
	l := len(*s)
	all = slices.Grow(*s, n)[:l+n]
	return all[l:], all
}

// extend adds n clear bits.
func (d *Density) extend(n int) {
	words := (d.Len + n + 63) / 64
	for len(d.Words) < words {
		d.Words = append(d.Words, 0)
	}
	d.Len += n
}

// MarkA sets v's bit in the A density, as a non-zero coefficient of v in
// an A combination does (inputs are not tracked in A). A witness-only
// system tracks no density: the Mark and Or calls do nothing there.
func (p *ProvingAssignment) MarkA(v Variable) {
	if v.IsAux() && !p.witnessOnly {
		p.setBit(&p.AAux, &p.parentAAux, v.Index(), p.densities.auxBase)
	}
}

// MarkB sets v's bit in the B density of its space.
func (p *ProvingAssignment) MarkB(v Variable) {
	if p.witnessOnly {
		return
	}
	if v.IsAux() {
		p.setBit(&p.BAux, &p.parentBAux, v.Index(), p.densities.auxBase)
	} else {
		p.setBit(&p.BInput, &p.parentBInput, v.Index(), p.densities.inputBase)
	}
}

// OrAuxDensity ORs the bitmaps a and b (bit i: word i/64, bit i%64) into the
// A and B densities of the aux variables from first on, which must be p's own
// (from Extend).
func (p *ProvingAssignment) OrAuxDensity(first Variable, a, b []uint64) {
	if p.witnessOnly {
		return
	}
	off := first.Index() - p.densities.auxBase
	orShifted(p.AAux.Words, a, off)
	orShifted(p.BAux.Words, b, off)
}

// orShifted ORs src, shifted up by off bits, into dst. Bits past dst's end
// must be clear in src.
func orShifted(dst, src []uint64, off int) {
	w, s := off>>6, uint(off)&63
	if s == 0 {
		for i, x := range src {
			dst[w+i] |= x
		}
		return
	}
	for i, x := range src {
		if x == 0 {
			continue
		}
		dst[w+i] |= x << s
		if hi := x >> (64 - s); hi != 0 {
			dst[w+i+1] |= hi
		}
	}
}
