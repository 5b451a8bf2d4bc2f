package cuda_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"unsafe"

	bls12381 "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/gpuc2/gpuc2/internal/nativetest"
	"github.com/gpuc2/gpuc2/msm"
	"github.com/gpuc2/gpuc2/msm/cuda"
	"github.com/gpuc2/gpuc2/native"
)

func requireGPU(t testing.TB) {
	t.Helper()
	if !native.Available() {
		t.Skipf("CUDA backend not available: %v", native.Load())
	}
}

func rMinusOne() fr.Element {
	var e fr.Element
	e.SetOne()
	e.Neg(&e)
	return e
}

type g1Case struct {
	name    string
	bases   []bls12381.G1Affine
	scalars []fr.Element
	density *msm.Density
}

// mostlyBits returns n scalars that are 0 or 1 except about one in 40.
func mostlyBits(n int) []fr.Element {
	sc := nativetest.Scalars(n)
	for i := range sc {
		switch {
		case i%40 == 7:
		case sc[i][0]&1 == 0:
			sc[i].SetZero()
		default:
			sc[i].SetOne()
		}
	}
	return sc
}

func repeated[P any](p P, n int) []P {
	out := make([]P, n)
	for i := range out {
		out[i] = p
	}
	return out
}

func g1Cases(t *testing.T) []g1Case {
	var cases []g1Case
	sizes := []int{1, 2, 3, 15, 17, 255, 257, 4095, 4097, 65535, 65537}
	if !testing.Short() {
		sizes = append(sizes, 1<<18-1, 1<<18+1, 1<<20-1, 1<<20, 1<<20+1)
	}
	if nativetest.Big() {
		sizes = append(sizes, 1<<22+1, 1<<24)
	}
	for _, n := range sizes {
		cases = append(cases, g1Case{fmt.Sprintf("random/%d", n), nativetest.G1(n, 1<<14), nativetest.Scalars(n), nil})
	}
	n := 5000
	bases := nativetest.G1(n, n)
	// zero scalars, all and mixed
	zeros := make([]fr.Element, n)
	cases = append(cases, g1Case{"zero-scalars", bases, zeros, nil})
	mixed := nativetest.Scalars(n)
	for i := 0; i < n; i += 3 {
		mixed[i].SetZero()
	}
	cases = append(cases, g1Case{"some-zero-scalars", bases, mixed, nil})
	// r-1 everywhere and mixed in
	rm1 := make([]fr.Element, n)
	for i := range rm1 {
		rm1[i] = rMinusOne()
	}
	cases = append(cases, g1Case{"r-1", bases, rm1, nil})
	withRm1 := nativetest.Scalars(n)
	for i := 0; i < n; i += 7 {
		withRm1[i] = rMinusOne()
	}
	cases = append(cases, g1Case{"some-r-1", bases, withRm1, nil})
	// 0/1 scalars (Filecoin aux assignments), large bucket
	bitsN := 1 << 16
	if !testing.Short() {
		bitsN = 1 << 20
	}
	bitScalars := nativetest.Scalars(bitsN)
	for i := range bitScalars {
		if bitScalars[i][0]&1 == 0 {
			bitScalars[i].SetZero()
		} else {
			bitScalars[i].SetOne()
		}
	}
	cases = append(cases, g1Case{"bits", nativetest.G1(bitsN, 1<<12), bitScalars, nil})
	// The 0/1 split: mostly bits with a few wide scalars, with and without a
	// density mask, at edge sizes; ones on one point and on P and -P.
	for _, m := range []int{1, 2, 3, 63, 64, 65, 1000, 70001} {
		sc := mostlyBits(m)
		cases = append(cases, g1Case{fmt.Sprintf("split/%d", m), nativetest.G1(m, 1<<10), sc, nil})
		words, c := nativetest.Density(m, 2)
		cases = append(cases, g1Case{fmt.Sprintf("split-density/%d", m), nativetest.G1(c, 1<<10), sc, &msm.Density{Words: words, Len: m}})
	}
	ones := make([]fr.Element, n)
	for i := range ones {
		ones[i].SetOne()
	}
	cases = append(cases, g1Case{"ones-on-one-point", repeated(bases[1], n), ones, nil})
	pmOnes := repeated(bases[2], n)
	for i := 1; i < n; i += 2 {
		pmOnes[i].Neg(&pmOnes[i])
	}
	cases = append(cases, g1Case{"ones-on-p-and-minus-p", pmOnes, ones, nil})
	// small scalars 0..3 and 2^k
	small := make([]fr.Element, n)
	for i := range small {
		small[i].SetUint64(uint64(i % 4))
		if i%5 == 0 {
			small[i].SetUint64(1 << (i % 250))
		}
	}
	cases = append(cases, g1Case{"small-scalars", bases, small, nil})
	// infinity points mixed in
	withInf := append([]bls12381.G1Affine(nil), bases...)
	for i := 0; i < n; i += 4 {
		withInf[i] = bls12381.G1Affine{}
	}
	cases = append(cases, g1Case{"infinity-points", withInf, nativetest.Scalars(n), nil})
	allInf := make([]bls12381.G1Affine, 100)
	cases = append(cases, g1Case{"all-infinity", allInf, nativetest.Scalars(100), nil})
	// repeated points: one point, random scalars; one point, equal scalars; P and -P
	rep := make([]bls12381.G1Affine, n)
	for i := range rep {
		rep[i] = bases[0]
	}
	cases = append(cases, g1Case{"repeated-point", rep, nativetest.Scalars(n), nil})
	same := make([]fr.Element, n)
	s := nativetest.Scalars(1)[0]
	for i := range same {
		same[i] = s
	}
	cases = append(cases, g1Case{"repeated-point-same-scalar", rep, same, nil})
	pm := make([]bls12381.G1Affine, n)
	for i := range pm {
		pm[i] = bases[0]
		if i%2 == 1 {
			pm[i].Neg(&pm[i])
		}
	}
	cases = append(cases, g1Case{"p-and-minus-p", pm, same, nil})
	// density masks
	for _, every := range []int{1, 2, 10, 1000} {
		m := 20000 + every
		words, c := nativetest.Density(m, every)
		cases = append(cases, g1Case{fmt.Sprintf("density/1-in-%d", every), nativetest.G1(c, 1<<12), nativetest.Scalars(m),
			&msm.Density{Words: words, Len: m}})
	}
	cases = append(cases, g1Case{"density/empty", nil, nativetest.Scalars(130), &msm.Density{Words: make([]uint64, 3), Len: 130}})
	return cases
}

func TestCUDAG1(t *testing.T) {
	requireGPU(t)
	ctx := context.Background()
	for _, c := range g1Cases(t) {
		t.Run(c.name, func(t *testing.T) {
			want, err := msm.CPU{}.G1(ctx, c.bases, c.scalars, c.density)
			if err != nil {
				t.Fatalf("cpu: %v", err)
			}
			got, err := cuda.Engine{}.G1(ctx, c.bases, c.scalars, c.density)
			if err != nil {
				t.Fatalf("cuda: %v", err)
			}
			var a, b bls12381.G1Affine
			a.FromJacobian(&got)
			b.FromJacobian(&want)
			if !a.Equal(&b) {
				t.Fatalf("GPU and CPU differ")
			}
		})
	}
}

func TestCUDAG2(t *testing.T) {
	requireGPU(t)
	ctx := context.Background()
	sizes := []int{1, 2, 3, 255, 257, 4097}
	if !testing.Short() {
		sizes = append(sizes, 1<<16-1, 1<<16+1, 1<<18)
	}
	if nativetest.Big() {
		sizes = append(sizes, 1<<20+1)
	}
	type g2Case struct {
		name    string
		bases   []bls12381.G2Affine
		scalars []fr.Element
		density *msm.Density
	}
	var cases []g2Case
	for _, n := range sizes {
		cases = append(cases, g2Case{fmt.Sprintf("random/%d", n), nativetest.G2(n, 1<<12), nativetest.Scalars(n), nil})
	}
	n := 3000
	bases := nativetest.G2(n, n)
	sc := nativetest.Scalars(n)
	for i := 0; i < n; i += 5 {
		sc[i].SetZero()
		if i%10 == 0 {
			sc[i] = rMinusOne()
		}
		bases[(i+1)%n] = bls12381.G2Affine{}
	}
	cases = append(cases, g2Case{"zero-r-1-infinity", bases, sc, nil})
	rep := make([]bls12381.G2Affine, n)
	for i := range rep {
		rep[i] = bases[2]
	}
	cases = append(cases, g2Case{"repeated-point", rep, nativetest.Scalars(n), nil})
	words, c := nativetest.Density(10000, 3)
	cases = append(cases, g2Case{"density", nativetest.G2(c, 1<<10), nativetest.Scalars(10000), &msm.Density{Words: words, Len: 10000}})
	cases = append(cases, g2Case{"split-density", nativetest.G2(c, 1<<10), mostlyBits(10000), &msm.Density{Words: words, Len: 10000}})
	cases = append(cases, g2Case{"split", nativetest.G2(5000, 1<<10), mostlyBits(5000), nil})
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			want, err := msm.CPU{}.G2(ctx, c.bases, c.scalars, c.density)
			if err != nil {
				t.Fatalf("cpu: %v", err)
			}
			got, err := cuda.Engine{}.G2(ctx, c.bases, c.scalars, c.density)
			if err != nil {
				t.Fatalf("cuda: %v", err)
			}
			var a, b bls12381.G2Affine
			a.FromJacobian(&got)
			b.FromJacobian(&want)
			if !a.Equal(&b) {
				t.Fatalf("GPU and CPU differ")
			}
		})
	}
}

func TestCUDALengthMismatch(t *testing.T) {
	// Argument checks happen before the native call, so this runs everywhere.
	ctx := context.Background()
	bases := make([]bls12381.G1Affine, 3)
	if _, err := (cuda.Engine{}).G1(ctx, bases, make([]fr.Element, 2), nil); err == nil {
		t.Fatal("want length mismatch error")
	}
	d := &msm.Density{Words: []uint64{0b101}, Len: 3}
	if _, err := (cuda.Engine{}).G1(ctx, bases, make([]fr.Element, 3), d); err == nil {
		t.Fatal("want density count error")
	}
}

func TestCUDANotAvailable(t *testing.T) {
	if native.Available() {
		t.Skip("CUDA backend available")
	}
	bases := make([]bls12381.G1Affine, 1)
	if _, err := (cuda.Engine{}).G1(context.Background(), bases, make([]fr.Element, 1), nil); !errors.Is(err, native.ErrNotAvailable) {
		t.Fatalf("got %v, want ErrNotAvailable", err)
	}
	_, _, g1, g2 := bls12381.Generators()
	if _, err := (cuda.Engine{}).FixedBaseG1(context.Background(), &g1, make([]fr.Element, 1)); !errors.Is(err, native.ErrNotAvailable) {
		t.Fatalf("fixed-base G1: got %v, want ErrNotAvailable", err)
	}
	if _, err := (cuda.Engine{}).FixedBaseG2(context.Background(), &g2, make([]fr.Element, 1)); !errors.Is(err, native.ErrNotAvailable) {
		t.Fatalf("fixed-base G2: got %v, want ErrNotAvailable", err)
	}
}

// A cancelled fixed-base batch stops before any native call, so this runs
// everywhere.
func TestCUDAFixedBaseCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, _, g1, g2 := bls12381.Generators()
	if _, err := (cuda.Engine{}).FixedBaseG1(ctx, &g1, nativetest.Scalars(3)); !errors.Is(err, context.Canceled) {
		t.Fatalf("G1: got %v, want context.Canceled", err)
	}
	if _, err := (cuda.Engine{}).FixedBaseG2(ctx, &g2, nativetest.Scalars(3)); !errors.Is(err, context.Canceled) {
		t.Fatalf("G2: got %v, want context.Canceled", err)
	}
}

// The GPU's fixed-base batches equal msm.CPU's, the edge scalars (0, 1,
// r−1) among random ones.
func TestCUDAFixedBaseEqualsCPU(t *testing.T) {
	requireGPU(t)
	ctx := context.Background()
	_, _, g1, g2 := bls12381.Generators()
	for _, n := range []int{1, 2, 1000, 4097} {
		t.Run(fmt.Sprintf("%d", n), func(t *testing.T) {
			s := nativetest.Scalars(n)
			s[0].SetZero()
			if n > 2 {
				s[1].SetOne()
				s[2] = rMinusOne()
			}
			want1, err := msm.CPU{}.FixedBaseG1(ctx, &g1, s)
			if err != nil {
				t.Fatal(err)
			}
			got1, err := cuda.Engine{}.FixedBaseG1(ctx, &g1, s)
			if err != nil {
				t.Fatal(err)
			}
			want2, err := msm.CPU{}.FixedBaseG2(ctx, &g2, s)
			if err != nil {
				t.Fatal(err)
			}
			got2, err := cuda.Engine{}.FixedBaseG2(ctx, &g2, s)
			if err != nil {
				t.Fatal(err)
			}
			for i := range s {
				if !got1[i].Equal(&want1[i]) || !got2[i].Equal(&want2[i]) {
					t.Fatalf("scalar %d: GPU and CPU differ", i)
				}
			}
		})
	}
}

// toDevice copies v into a new buffer on device 0.
func toDevice[T native.HostData](t *testing.T, st *native.Stream, v []T) *native.Buffer {
	t.Helper()
	src := native.AsBytes(v)
	b, err := native.Alloc(0, nil, int64(len(src)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = b.Free() })
	if err := st.CopyToDevice(b, 0, src); err != nil {
		t.Fatal(err)
	}
	return b
}

// G1Device and G2Device over device buffers equal the CPU engine over the
// same points: an input part (all scalars) plus an aux part at an offset
// into the bases with a density mask, as the CUDA prover's a and b MSMs run
// them, with the scalars first in Montgomery form, then canonical.
func TestCUDADeviceEqualsCPU(t *testing.T) {
	requireGPU(t)
	ctx := context.Background()
	const nIn, nAux = 37, 5000
	words, nSel := nativetest.Density(nAux, 3)
	d := &msm.Density{Words: words, Len: nAux}
	g1, g2 := nativetest.G1(nIn+nSel, 1<<10), nativetest.G2(nIn+nSel, 1<<8)
	in, aux := nativetest.Scalars(nIn), mostlyBits(nAux)

	want1, err := msm.CPU{}.G1(ctx, g1[:nIn], in, nil)
	if err != nil {
		t.Fatal(err)
	}
	rest1, err := msm.CPU{}.G1(ctx, g1[nIn:], aux, d)
	if err != nil {
		t.Fatal(err)
	}
	want1.AddAssign(&rest1)
	want2, err := msm.CPU{}.G2(ctx, g2[:nIn], in, nil)
	if err != nil {
		t.Fatal(err)
	}
	rest2, err := msm.CPU{}.G2(ctx, g2[nIn:], aux, d)
	if err != nil {
		t.Fatal(err)
	}
	want2.AddAssign(&rest2)

	st, err := native.NewStream(0)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	b1, b2 := toDevice(t, st, g1), toDevice(t, st, g2)
	sIn, sAux := toDevice(t, st, in), toDevice(t, st, aux)
	parts := func(bases *native.Buffer, pointBytes int64, canonical bool) []native.DeviceMSM {
		return []native.DeviceMSM{
			{Bases: bases, NBases: nIn, Scalars: sIn, NScalars: nIn, Canonical: canonical},
			{Bases: bases, BasesOff: nIn * pointBytes, NBases: nSel, Scalars: sAux, NScalars: nAux, Density: words, Canonical: canonical},
		}
	}
	g1Size, g2Size := int64(unsafe.Sizeof(g1[0])), int64(unsafe.Sizeof(g2[0]))
	for _, canonical := range []bool{false, true} {
		if canonical {
			if err := st.FrFromMont(sIn, 0, nIn); err != nil {
				t.Fatal(err)
			}
			if err := st.FrFromMont(sAux, 0, nAux); err != nil {
				t.Fatal(err)
			}
		}
		got1, err := cuda.Engine{}.G1Device(ctx, st, parts(b1, g1Size, canonical)...)
		if err != nil {
			t.Fatalf("canonical %v: %v", canonical, err)
		}
		got2, err := cuda.Engine{}.G2Device(ctx, st, parts(b2, g2Size, canonical)...)
		if err != nil {
			t.Fatalf("canonical %v: %v", canonical, err)
		}
		if !got1.Equal(&want1) || !got2.Equal(&want2) {
			t.Fatalf("canonical %v: GPU and CPU differ (G1 %v, G2 %v)", canonical, got1.Equal(&want1), got2.Equal(&want2))
		}
	}
	if got, err := (cuda.Engine{}).G1Device(ctx, st); err != nil || !got.Z.IsZero() {
		t.Fatalf("no parts: %v, %v; want the point at infinity", got, err)
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := (cuda.Engine{}).G1Device(cancelled, st, parts(b1, g1Size, true)...); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled: got %v", err)
	}
}

func TestCUDADeviceNeedsItsStream(t *testing.T) {
	// The stream is checked before any native call, so this runs everywhere.
	if _, err := (cuda.Engine{}).G1Device(context.Background(), nil); !errors.Is(err, native.ErrInvalidArgument) {
		t.Fatalf("G1Device without a stream: got %v, want ErrInvalidArgument", err)
	}
	if _, err := (cuda.Engine{Device: 1}).G2Device(context.Background(), nil); !errors.Is(err, native.ErrInvalidArgument) {
		t.Fatalf("G2Device without a stream: got %v, want ErrInvalidArgument", err)
	}
}
