package native_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/consensys/gnark-crypto/ecc"
	bls12381 "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/gpuc2/gpuc2/internal/nativetest"
	"github.com/gpuc2/gpuc2/native"
)

// A forced window outside the library's range is refused before any native
// call, with or without the library.
func TestMSMOptionsChecked(t *testing.T) {
	s := &native.Stream{}
	m := native.DeviceMSM{NBases: 1, NScalars: 1}
	for _, c := range []int{-1, 1, native.MSMWindowMin - 1, native.MSMWindowMax + 1, 32} {
		opt := native.WithWindow(c)
		calls := map[string]func() error{
			"MSMG1": func() error {
				_, err := native.MSMG1(0, make([]bls12381.G1Affine, 1), make([]fr.Element, 1), nil, opt)
				return err
			},
			"MSMG2": func() error {
				_, err := native.MSMG2(0, make([]bls12381.G2Affine, 1), make([]fr.Element, 1), nil, opt)
				return err
			},
			"Stream.MSMG1":    func() error { _, err := s.MSMG1(m, opt); return err },
			"Stream.MSMG2":    func() error { _, err := s.MSMG2(m, opt); return err },
			"MSMScratchBytes": func() error { _, err := native.MSMScratchBytes(0, native.G1, m, opt); return err },
		}
		for name, f := range calls {
			if err := f(); !errors.Is(err, native.ErrInvalidArgument) {
				t.Errorf("%s with window %d: %v, want ErrInvalidArgument", name, c, err)
			}
		}
	}
	if native.Available() {
		return
	}
	for _, opts := range [][]native.MSMOption{nil, {native.WithWindow(0)}, {native.WithWindow(native.MSMWindowMin)},
		{native.WithWindow(native.MSMWindowMax), native.WithTrace(), native.WithoutSplit(), native.WithBatchedSplit()}} {
		if _, err := native.MSMScratchBytes(0, native.G1, m, opts...); !errors.Is(err, native.ErrNotAvailable) {
			t.Errorf("valid options %d: %v, want ErrNotAvailable", len(opts), err)
		}
	}
}

// MSMScratchBound grows with the MSM, is larger in G2, and counts the
// converted copy of Montgomery scalars.
func TestMSMScratchBound(t *testing.T) {
	canonical := func(n int) native.DeviceMSM { return native.DeviceMSM{NBases: n, NScalars: n, Canonical: true} }
	if b := native.MSMScratchBound(native.G1, native.DeviceMSM{NScalars: 10}); b != 0 {
		t.Errorf("no bases: %d bytes", b)
	}
	prev := int64(0)
	for k := 0; k <= 30; k++ {
		n := 1 << k
		g1 := native.MSMScratchBound(native.G1, canonical(n))
		if g1 <= prev {
			t.Errorf("n = 2^%d: %d bytes, not above 2^%d's %d", k, g1, k-1, prev)
		}
		prev = g1
		if g2 := native.MSMScratchBound(native.G2, canonical(n)); g2 <= g1 {
			t.Errorf("n = 2^%d: G2 %d bytes, not above G1 %d", k, g2, g1)
		}
		mont := canonical(n)
		mont.Canonical = false
		if d := native.MSMScratchBound(native.G1, mont) - g1; d != 32*int64(n) {
			t.Errorf("n = 2^%d: Montgomery scalars add %d bytes, want %d", k, d, 32*n)
		}
		// With a density bitmap the scalars, not the bases, size the digits.
		dense := native.DeviceMSM{NBases: n / 2, NScalars: n, Canonical: true}
		if b := native.MSMScratchBound(native.G1, dense); b != g1 && n > 1 {
			t.Errorf("n = 2^%d, half the bases: %d bytes, want %d", k, b, g1)
		}
	}
	// The largest table alone (13 windows of 2^19 XYZZ points) is a floor.
	if b, table := native.MSMScratchBound(native.G2, canonical(1)), int64(13<<19)*384; b < table {
		t.Errorf("one point: %d bytes, below the largest G2 bucket table %d", b, table)
	}
}

// MSMs with forced windows, without the 0/1 split and with the trace equal
// gnark-crypto's, on random scalars and on mostly-bit scalars (the split's
// case), with and without a density bitmap.
func TestMSMOptions(t *testing.T) {
	requireGPU(t)
	const n = 3000
	bits := nativetest.Scalars(n)
	for i := range bits {
		switch {
		case i%40 == 7: // a wide scalar in 40
		case bits[i][0]&1 == 0:
			bits[i].SetZero()
		default:
			bits[i].SetOne()
		}
	}
	g1 := nativetest.G1(n, 257)
	g2 := nativetest.G2(n, 33)
	density, nb := nativetest.Density(n, 3)
	options := map[string][]native.MSMOption{
		"default":       nil,
		"no-split":      {native.WithoutSplit()},
		"trace":         {native.WithTrace()},
		"batched-split": {native.WithBatchedSplit()}, // streamed MSMs only: the others ignore it
	}
	for _, c := range []int{native.MSMWindowMin, 7, 13, 16, native.MSMWindowMax} {
		options[fmt.Sprintf("window-%d", c)] = []native.MSMOption{native.WithWindow(c)}
		options[fmt.Sprintf("window-%d-no-split", c)] = []native.MSMOption{native.WithWindow(c), native.WithoutSplit()}
	}
	for scalarsName, scalars := range map[string][]fr.Element{"random": nativetest.Scalars(n), "bits": bits} {
		var want1, want1d bls12381.G1Jac
		var want2 bls12381.G2Jac
		if _, err := want1.MultiExp(g1, scalars, ecc.MultiExpConfig{}); err != nil {
			t.Fatal(err)
		}
		var used []fr.Element
		for i := range n {
			if density[i/64]>>(i%64)&1 == 1 {
				used = append(used, scalars[i])
			}
		}
		if _, err := want1d.MultiExp(g1[:nb], used, ecc.MultiExpConfig{}); err != nil {
			t.Fatal(err)
		}
		if _, err := want2.MultiExp(g2[:1000], scalars[:1000], ecc.MultiExpConfig{}); err != nil {
			t.Fatal(err)
		}
		for name, opts := range options {
			t.Run(scalarsName+"/"+name, func(t *testing.T) {
				got1, err := native.MSMG1(0, g1, scalars, nil, opts...)
				if err != nil {
					t.Fatal(err)
				}
				if !got1.Equal(&want1) {
					t.Error("G1 differs from gnark-crypto")
				}
				got1d, err := native.MSMG1(0, g1[:nb], scalars, density, opts...)
				if err != nil {
					t.Fatal(err)
				}
				if !got1d.Equal(&want1d) {
					t.Error("G1 with density differs from gnark-crypto")
				}
				got2, err := native.MSMG2(0, g2[:1000], scalars[:1000], nil, opts...)
				if err != nil {
					t.Fatal(err)
				}
				if !got2.Equal(&want2) {
					t.Error("G2 differs from gnark-crypto")
				}
			})
		}
	}
}
