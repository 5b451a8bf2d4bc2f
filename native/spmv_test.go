package native_test

import (
	"errors"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/gpuc2/gpuc2/internal/nativetest"
	"github.com/gpuc2/gpuc2/native"
)

// SpMV over a small matrix whose rows take every branch of the kernel
// (coefficients ±1 and general, values zero, one and general, inputs and
// aux, an empty row, a long row) equals the sum computed here; terms outside the witness
// or the coefficient table and offsets past the terms are skipped, not
// read; a slice of rows lands at its offset; a buffer too small for the
// sizes, or an offset past the output, is refused before the launch.
func TestSpMV(t *testing.T) {
	requireGPU(t)
	s := newStream(t, native.NewStream)
	var one, minusOne fr.Element
	one.SetOne()
	minusOne.Neg(&one)
	coeffs := append([]fr.Element{one, minusOne}, nativetest.Scalars(3)...)
	w := append([]fr.Element{{}, one}, nativetest.Scalars(40)...)
	type term struct {
		col uint32
		id  uint16
	}
	rows := [][]term{
		{{2, 0}},                  // +v
		{{3, 1}, {4, 0}},          // -v + v
		{{5, 2}, {0, 3}, {1, 4}},  // general·v, a zero value, a one value
		{},                        // empty
		{{1, 0}, {1, 1}, {6, 4}},  // 1 - 1 + c·v
		{{7, 2}, {99, 0}, {8, 7}}, // a column and an id out of range: skipped
	}
	long := make([]term, 0, 60)
	for i := range 60 {
		long = append(long, term{uint32(i % len(w)), uint16(i % len(coeffs))})
	}
	rows = append(rows, long)
	var rowStart, cols []uint32
	var ids []uint16
	want := make([]fr.Element, len(rows))
	for r, terms := range rows {
		rowStart = append(rowStart, uint32(len(cols)))
		for _, x := range terms {
			cols = append(cols, x.col)
			ids = append(ids, x.id)
			if int(x.col) < len(w) && int(x.id) < len(coeffs) {
				var p fr.Element
				p.Mul(&coeffs[x.id], &w[x.col])
				want[r].Add(&want[r], &p)
			}
		}
	}
	rowStart = append(rowStart, uint32(len(cols)))
	m := native.CSR{RowStart: upload(t, s, rowStart), Cols: upload(t, s, cols), IDs: upload(t, s, ids),
		Coeffs: upload(t, s, coeffs), Rows: len(rows), Terms: len(cols), NCoeffs: len(coeffs)}
	const nIn = 5 // columns below are inputs, the rest aux
	wb := native.Witness{Inputs: upload(t, s, w[:nIn]), Aux: upload(t, s, w[nIn:]), NInputs: nIn, NAux: len(w) - nIn}
	out, err := native.Alloc(0, s, int64(len(rows))*32)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.SpMV(m, wb, out, 0); err != nil {
		t.Fatal(err)
	}
	got := make([]fr.Element, len(rows))
	if err := s.CopyToHost(native.AsBytes(got), out, 0); err != nil {
		t.Fatal(err)
	}
	for r := range rows {
		if got[r] != want[r] {
			t.Errorf("row %d: got %s, want %s", r, got[r].String(), want[r].String())
		}
	}

	// Offsets past the terms: the last row stops at the end of cols.
	short := m
	short.Terms = len(cols) - 10
	if err := s.SpMV(short, wb, out, 0); err != nil {
		t.Fatal(err)
	}
	if err := s.CopyToHost(native.AsBytes(got), out, 0); err != nil {
		t.Fatal(err)
	}
	var partial fr.Element
	for _, x := range long[:len(long)-10] {
		var p fr.Element
		p.Mul(&coeffs[x.id], &w[x.col])
		partial.Add(&partial, &p)
	}
	if last := len(rows) - 1; got[last] != partial {
		t.Errorf("the last row cut at the terms' end: got %s, want %s", got[last].String(), partial.String())
	}

	// A slice of rows (its row starts relative to its first term) lands at
	// its place in out.
	const first, last = 4, 6
	base := rowStart[first]
	var sliceStart []uint32
	for _, k := range rowStart[first : last+1] {
		sliceStart = append(sliceStart, k-base)
	}
	slice := native.CSR{RowStart: upload(t, s, sliceStart), Cols: upload(t, s, cols[base:rowStart[last]]),
		IDs: upload(t, s, ids[base:rowStart[last]]), Coeffs: m.Coeffs, Rows: last - first,
		Terms: int(rowStart[last] - base), NCoeffs: len(coeffs)}
	if err := s.Zero(out, 0, out.Size()); err != nil {
		t.Fatal(err)
	}
	if err := s.SpMV(slice, wb, out, first*32); err != nil {
		t.Fatal(err)
	}
	if err := s.CopyToHost(native.AsBytes(got), out, 0); err != nil {
		t.Fatal(err)
	}
	for r := range rows {
		var expect fr.Element // zero outside the slice
		if r >= first && r < last {
			expect = want[r]
		}
		if got[r] != expect {
			t.Errorf("a slice of rows [%d, %d): row %d: got %s, want %s", first, last, r, got[r].String(), expect.String())
		}
	}

	tooMany := m
	tooMany.Rows = len(rows) + 1
	if err := s.SpMV(tooMany, wb, out, 0); !errors.Is(err, native.ErrInvalidArgument) {
		t.Errorf("rows beyond the buffers: %v", err)
	}
	if err := s.SpMV(slice, wb, out, int64(len(rows)-1)*32); !errors.Is(err, native.ErrInvalidArgument) {
		t.Errorf("an offset past the output: %v", err)
	}
}
