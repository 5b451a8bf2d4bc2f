package native_test

import (
	"errors"
	"math/big"
	"slices"
	"sync"
	"testing"

	bls12381 "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/gpuc2/gpuc2/internal/nativetest"
	"github.com/gpuc2/gpuc2/native"
)

func TestStreamAPINotAvailable(t *testing.T) {
	if native.Available() {
		t.Skip("CUDA backend available")
	}
	if _, err := native.NewStream(0); !errors.Is(err, native.ErrNotAvailable) {
		t.Fatalf("NewStream: %v", err)
	}
	if _, err := native.Alloc(0, nil, 8); !errors.Is(err, native.ErrNotAvailable) {
		t.Fatalf("Alloc: %v", err)
	}
	if _, err := native.AllocPinned(8); !errors.Is(err, native.ErrNotAvailable) {
		t.Fatalf("AllocPinned: %v", err)
	}
	if n := native.PinnedHostBytes(); n != 0 {
		t.Fatalf("PinnedHostBytes after a failed AllocPinned: %d", n)
	}
}

// PinnedHostBytes counts what AllocPinned gave and Free took back, once.
func TestPinnedHostBytes(t *testing.T) {
	requireGPU(t)
	before := native.PinnedHostBytes()
	pin, err := native.AllocPinned(3 << 20)
	if err != nil {
		t.Fatal(err)
	}
	if got := native.PinnedHostBytes() - before; got != 3<<20 {
		t.Errorf("after AllocPinned: +%d bytes, want %d", got, 3<<20)
	}
	for range 2 { // a second Free is a no-op
		if err := pin.Free(); err != nil {
			t.Fatal(err)
		}
		if got := native.PinnedHostBytes(); got != before {
			t.Errorf("after Free: %d bytes, want %d", got, before)
		}
	}
}

// upload copies a Go slice into a new pool buffer on s.
func upload[T native.HostData](t *testing.T, s *native.Stream, v []T) *native.Buffer {
	t.Helper()
	src := native.AsBytes(v)
	b, err := native.Alloc(s.Device(), s, int64(len(src)))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.CopyToDevice(b, 0, src); err != nil {
		t.Fatal(err)
	}
	return b
}

func TestStreamCopiesAndBounds(t *testing.T) {
	requireGPU(t)
	s, err := native.NewStream(0)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	pin, err := native.AllocPinned(1 << 20)
	if err != nil {
		t.Fatal(err)
	}
	defer pin.Free()
	in := nativetest.Scalars(1000)
	copy(pin.Fr(1000), in)
	b, err := native.Alloc(0, s, 32*1000)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.CopyToDeviceAsync(b, 0, pin, 0, 32*1000); err != nil {
		t.Fatal(err)
	}
	if err := s.Zero(b, 32*10, 32*5); err != nil {
		t.Fatal(err)
	}
	out := make([]fr.Element, 1000)
	if err := s.CopyToHost(native.AsBytes(out), b, 0); err != nil {
		t.Fatal(err)
	}
	want := slices.Clone(in)
	clear(want[10:15])
	if !slices.Equal(out, want) {
		t.Fatal("copy round trip differs")
	}
	// A pageable copy is done when CopyToDevice returns: the source may be
	// overwritten at once.
	src := slices.Clone(in[:100])
	if err := s.CopyToDevice(b, 0, native.AsBytes(src)); err != nil {
		t.Fatal(err)
	}
	clear(src)
	back := make([]fr.Element, 100)
	if err := s.CopyToHost(native.AsBytes(back), b, 0); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(back, in[:100]) {
		t.Fatal("CopyToDevice returned before its source was read")
	}
	// out of range and freed buffers are refused before the native call
	if err := s.CopyToDevice(b, 32*999, native.AsBytes(in[:2])); !errors.Is(err, native.ErrInvalidArgument) {
		t.Fatalf("overrun: %v", err)
	}
	if err := s.CopyToDeviceAsync(b, 0, pin, 1<<20-31, 32); !errors.Is(err, native.ErrInvalidArgument) {
		t.Fatalf("pinned overrun: %v", err)
	}
	if err := b.Free(); err != nil {
		t.Fatal(err)
	}
	if err := b.Free(); err != nil {
		t.Fatal("second Free:", err)
	}
	if err := s.Zero(b, 0, 32); !errors.Is(err, native.ErrInvalidArgument) {
		t.Fatalf("freed buffer: %v", err)
	}
	free, total, err := native.MemInfo(0)
	if err != nil || free == 0 || free > total {
		t.Fatalf("MemInfo: %d of %d, %v", free, total, err)
	}
}

// TestDeviceMSMEqualsHost checks the device-buffer MSMs and H against the
// host-pointer entries (themselves tested against gnark-crypto), with the
// scalars in Montgomery and in canonical form and with a density mask.
func TestDeviceMSMEqualsHost(t *testing.T) {
	requireGPU(t)
	s, err := native.NewStream(0)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	const n = 5000
	scalars := nativetest.Scalars(n)
	for i := 0; i < n; i += 3 {
		scalars[i].SetOne() // bits, as in Filecoin witnesses
	}
	density, nb := nativetest.Density(n, 3)
	g1 := nativetest.G1(n, 257)
	g2 := nativetest.G2(n, 33)

	dScalars := upload(t, s, scalars)
	defer dScalars.Free()
	dG1 := upload(t, s, g1)
	defer dG1.Free()
	dG2 := upload(t, s, g2)
	defer dG2.Free()

	want1, err := native.MSMG1(0, g1, scalars, nil)
	if err != nil {
		t.Fatal(err)
	}
	want1d, err := native.MSMG1(0, g1[:nb], scalars, density)
	if err != nil {
		t.Fatal(err)
	}
	want2d, err := native.MSMG2(0, g2[:nb], scalars, density)
	if err != nil {
		t.Fatal(err)
	}
	check := func(name string, canonical bool) {
		got1, err := s.MSMG1(native.DeviceMSM{Bases: dG1, NBases: n, Scalars: dScalars, NScalars: n, Canonical: canonical})
		if err != nil {
			t.Fatal(name, err)
		}
		if !got1.Equal(&want1) {
			t.Fatal(name, ": G1 differs")
		}
		got1d, err := s.MSMG1(native.DeviceMSM{Bases: dG1, NBases: nb, Scalars: dScalars, NScalars: n, Density: density, Canonical: canonical})
		if err != nil {
			t.Fatal(name, err)
		}
		if !got1d.Equal(&want1d) {
			t.Fatal(name, ": G1 with density differs")
		}
		got2d, err := s.MSMG2(native.DeviceMSM{Bases: dG2, NBases: nb, Scalars: dScalars, NScalars: n, Density: density, Canonical: canonical})
		if err != nil {
			t.Fatal(name, err)
		}
		if !got2d.Equal(&want2d) {
			t.Fatal(name, ": G2 with density differs")
		}
	}
	check("montgomery", false)
	// the Montgomery path must not have modified the scalars
	back := make([]fr.Element, n)
	if err := s.CopyToHost(native.AsBytes(back), dScalars, 0); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(back, scalars) {
		t.Fatal("MSM modified its Montgomery scalars")
	}
	if err := s.FrFromMont(dScalars, 0, n); err != nil {
		t.Fatal(err)
	}
	check("canonical", true)

	// offsets select sub-ranges of both buffers
	off := 1000
	wantTail, err := native.MSMG1(0, g1[off:], scalars[off:], nil)
	if err != nil {
		t.Fatal(err)
	}
	gotTail, err := s.MSMG1(native.DeviceMSM{Bases: dG1, BasesOff: int64(off) * 96, NBases: n - off,
		Scalars: dScalars, ScalarsOff: int64(off) * 32, NScalars: n - off, Canonical: true})
	if err != nil || !gotTail.Equal(&wantTail) {
		t.Fatalf("offset MSM: %v", err)
	}
	if _, err := s.MSMG1(native.DeviceMSM{Bases: dG1, NBases: n + 1, Scalars: dScalars, NScalars: n + 1}); !errors.Is(err, native.ErrInvalidArgument) {
		t.Fatalf("overrun: %v", err)
	}
}

func TestDeviceHEqualsHost(t *testing.T) {
	requireGPU(t)
	s, err := native.NewStream(0)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	const logM = 12
	m := 1 << logM
	n := m - 7
	in := [3][]fr.Element{nativetest.Scalars(n), nativetest.Scalars(n), nativetest.Scalars(n)}
	want := make([]fr.Element, m)
	if err := native.H(0, in[0], in[1], in[2], want); err != nil {
		t.Fatal(err)
	}
	var bufs [3]*native.Buffer
	for i := range bufs {
		padded := make([]fr.Element, m)
		copy(padded, in[i])
		bufs[i] = upload(t, s, padded)
		defer bufs[i].Free()
	}
	if err := s.HDevice(bufs[0], bufs[1], bufs[2], logM); err != nil {
		t.Fatal(err)
	}
	got := make([]fr.Element, m)
	if err := s.CopyToHost(native.AsBytes(got), bufs[0], 0); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, want) {
		t.Fatal("device H differs from host H")
	}
}

// TestStreamsConcurrent runs MSMs on several streams from several goroutines
// at once; each must get its own right answer.
func TestStreamsConcurrent(t *testing.T) {
	requireGPU(t)
	const workers, n = 4, 1 << 14
	scalars := nativetest.Scalars(n)
	bases := nativetest.G1(n, 1024)
	want, err := native.MSMG1(0, bases, scalars, nil)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make([]error, workers)
	got := make([]bls12381.G1Jac, workers)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s, err := native.NewStream(0)
			if err != nil {
				errs[w] = err
				return
			}
			defer s.Close()
			for range 3 {
				b, err := native.Alloc(0, s, int64(n)*96)
				if err != nil {
					errs[w] = err
					return
				}
				sc, err := native.Alloc(0, s, int64(n)*32)
				if err != nil {
					errs[w] = err
					return
				}
				if errs[w] = s.CopyToDevice(b, 0, native.AsBytes(bases)); errs[w] != nil {
					return
				}
				if errs[w] = s.CopyToDevice(sc, 0, native.AsBytes(scalars)); errs[w] != nil {
					return
				}
				got[w], errs[w] = s.MSMG1(native.DeviceMSM{Bases: b, NBases: n, Scalars: sc, NScalars: n})
				b.Free()
				sc.Free()
				if errs[w] != nil {
					return
				}
			}
		}()
	}
	wg.Wait()
	for w := range workers {
		if errs[w] != nil {
			t.Fatal(errs[w])
		}
		if !got[w].Equal(&want) {
			t.Fatalf("worker %d: wrong MSM", w)
		}
	}
}

// FixedBase equals gnark-crypto's scalar multiplication, with the edge
// scalars 0, 1 and r−1, and across the 2^24-scalar chunk boundary in big mode.
func TestFixedBase(t *testing.T) {
	requireGPU(t)
	n := 3000
	if nativetest.Big() {
		n = 1<<24 + 77
	}
	scalars := nativetest.Scalars(n)
	scalars[0].SetZero()
	scalars[1].SetOne()
	scalars[2].SetOne()
	scalars[2].Neg(&scalars[2]) // r − 1
	_, _, g1, g2 := bls12381.Generators()
	var p1 bls12381.G1Affine
	p1.ScalarMultiplication(&g1, big.NewInt(12345)) // a base other than the generator
	out1 := make([]bls12381.G1Affine, n)
	if err := native.FixedBaseG1(0, &p1, scalars, out1); err != nil {
		t.Fatal(err)
	}
	out2 := make([]bls12381.G2Affine, min(n, 2000))
	if err := native.FixedBaseG2(0, &g2, scalars[:len(out2)], out2); err != nil {
		t.Fatal(err)
	}
	check := []int{0, 1, 2, 3, 4, 5, 999, len(out2) - 1, n - 1}
	if nativetest.Big() {
		check = append(check, 1<<24-1, 1<<24, 1<<24+1)
	}
	for i := 0; i < n; i += max(1, n/500) {
		check = append(check, i)
	}
	for _, i := range check {
		var k big.Int
		scalars[i].BigInt(&k)
		var want1 bls12381.G1Affine
		want1.ScalarMultiplication(&p1, &k)
		if !out1[i].Equal(&want1) {
			t.Fatalf("G1 scalar %d differs", i)
		}
		if i < len(out2) {
			var want2 bls12381.G2Affine
			want2.ScalarMultiplication(&g2, &k)
			if !out2[i].Equal(&want2) {
				t.Fatalf("G2 scalar %d differs", i)
			}
		}
	}
	if !out1[0].IsInfinity() || !out1[1].Equal(&p1) {
		t.Fatal("0·P or 1·P wrong")
	}
	if err := native.FixedBaseG1(0, &p1, scalars, out1[:1]); !errors.Is(err, native.ErrInvalidArgument) {
		t.Fatalf("length mismatch: %v", err)
	}
}
