package native_test

import (
	"errors"
	"fmt"
	"slices"
	"testing"

	bls12381 "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/gpuc2/gpuc2/internal/nativetest"
	"github.com/gpuc2/gpuc2/native"
)

// newStream makes a stream of device 0 with mk, closed at the test's end.
func newStream(t testing.TB, mk func(int) (*native.Stream, error)) *native.Stream {
	t.Helper()
	st, err := mk(0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// pin copies v into new pinned host memory, after off bytes of padding.
func pin[T native.HostData](t *testing.T, v []T, off int64) *native.Pinned {
	t.Helper()
	b := native.AsBytes(v)
	p, err := native.AllocPinned(off + int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Free() })
	copy(p.Bytes()[off:], b)
	return p
}

// A streamed MSM (bases in pinned host memory, several chunks) equals the
// MSM over device buffers, for random and mostly-bit scalars (the 0/1
// split's case), with and without a density bitmap, Montgomery or
// canonical scalars, in G1 and G2, for chunks of one, several and many
// points per density word; its pool use stays within
// MSMStreamScratchBytes, itself within MSMStreamScratchBound. As in the
// streaming prover's aux phase, the streamed MSMs run on a high-priority
// stream over buffers another stream allocated and filled.
func TestStreamedMSMEqualsDevice(t *testing.T) {
	requireGPU(t)
	s, cs, hs := newStream(t, native.NewStream), newStream(t, native.NewStream), newStream(t, native.NewHighPriorityStream)
	n := 5000
	if !testing.Short() {
		n = 1 << 16
	}
	random := nativetest.Scalars(n)
	bits := nativetest.Scalars(n)
	for i := range bits {
		if i%50 != 0 {
			bits[i].SetUint64(uint64(i & 1))
		}
	}
	// random scalars then mostly bits: chunks of both kinds in one call
	mixed := append(slices.Clone(random[:n/2]), bits[n/2:]...)
	// mostly bits with a fifth random up front: the split runs, and in the
	// smallest chunks the first chunks' others fill the gathering buffer
	// (a chunk's bases) before a quarter of all others have gathered
	fifth := append(slices.Clone(random[:n/5]), bits[n/5:]...)
	density, nb := nativetest.Density(n, 3)
	g1, g2 := nativetest.G1(n, 257), nativetest.G2(n, 33)
	const off = 4096 // bases start past the beginning of the pinned block
	h1, h2 := pin(t, g1, off), pin(t, g2, off)
	d1, d2 := upload(t, s, g1), upload(t, s, g2)
	defer d1.Free()
	defer d2.Free()
	for _, sc := range []struct {
		name string
		v    []fr.Element
	}{{"random", random}, {"bits", bits}, {"random then bits", mixed}, {"random fifth then bits", fifth}} {
		mont, canon := upload(t, s, sc.v), upload(t, s, sc.v)
		defer mont.Free()
		defer canon.Free()
		if err := s.FrFromMont(canon, 0, n); err != nil {
			t.Fatal(err)
		}
		if err := s.Sync(); err != nil { // hs reads what s wrote
			t.Fatal(err)
		}
		for _, canonical := range []bool{false, true} {
			scalars := mont
			if canonical {
				scalars = canon
			}
			for _, dens := range []bool{false, true} {
				for _, chunk := range []int{native.MSMStreamChunkMin, 1000, n} {
					name := fmt.Sprintf("%s/canonical=%v/density=%v/chunk=%d", sc.name, canonical, dens, chunk)
					t.Run(name, func(t *testing.T) {
						dm := native.DeviceMSM{Bases: d1, NBases: n, Scalars: scalars, NScalars: n, Canonical: canonical}
						sm := native.StreamedMSM{Bases: h1, BasesOff: off, NBases: n, Scalars: scalars, NScalars: n,
							Canonical: canonical, ChunkPoints: chunk}
						if dens {
							dm.Density, dm.NBases, sm.Density, sm.NBases = density, nb, density, nb
						}
						want1, err := s.MSMG1(dm)
						if err != nil {
							t.Fatal(err)
						}
						var got1 bls12381.G1Jac
						peak := measurePeak(t, func() error { got1, err = hs.MSMG1Streamed(cs, sm); return err })
						if !got1.Equal(&want1) {
							t.Fatal("G1 streamed differs")
						}
						checkStreamScratch(t, native.G1, sm, peak)
						// without the split (as h's MSM runs): the same sum, within its own,
						// smaller scratch figure
						peak = measurePeak(t, func() error { got1, err = hs.MSMG1Streamed(cs, sm, native.WithoutSplit()); return err })
						if !got1.Equal(&want1) {
							t.Fatal("G1 streamed without the split differs")
						}
						checkStreamScratch(t, native.G1, sm, peak, native.WithoutSplit())
						checkScratchNoLarger(t, native.G1, sm, native.WithoutSplit())
						// the split batched across chunks (the aux MSMs beside h's): the same
						// sum, within its own scratch figure
						peak = measurePeak(t, func() error { got1, err = hs.MSMG1Streamed(cs, sm, native.WithBatchedSplit()); return err })
						if !got1.Equal(&want1) {
							t.Fatal("G1 streamed with the batched split differs")
						}
						checkStreamScratch(t, native.G1, sm, peak, native.WithBatchedSplit())

						dm.Bases, sm.Bases = d2, h2
						want2, err := s.MSMG2(dm)
						if err != nil {
							t.Fatal(err)
						}
						var got2 bls12381.G2Jac
						peak = measurePeak(t, func() error { got2, err = hs.MSMG2Streamed(cs, sm); return err })
						if !got2.Equal(&want2) {
							t.Fatal("G2 streamed differs")
						}
						checkStreamScratch(t, native.G2, sm, peak)
						peak = measurePeak(t, func() error { got2, err = hs.MSMG2Streamed(cs, sm, native.WithBatchedSplit()); return err })
						if !got2.Equal(&want2) {
							t.Fatal("G2 streamed with the batched split differs")
						}
						checkStreamScratch(t, native.G2, sm, peak, native.WithBatchedSplit())
					})
				}
			}
		}
	}
	// Bad calls fail with ErrInvalidArgument before any work.
	scalars := upload(t, s, random)
	defer scalars.Free()
	good := native.StreamedMSM{Bases: h1, BasesOff: off, NBases: n, Scalars: scalars, NScalars: n, ChunkPoints: 1 << 10}
	for name, f := range map[string]func() error{
		"same stream": func() error { _, err := s.MSMG1Streamed(s, good); return err },
		"no stream":   func() error { _, err := s.MSMG1Streamed(nil, good); return err },
		"small chunk": func() error {
			m := good
			m.ChunkPoints = native.MSMStreamChunkMin - 1
			_, err := s.MSMG1Streamed(cs, m)
			return err
		},
		"bases overrun": func() error {
			m := good
			m.BasesOff = off + 96
			_, err := s.MSMG1Streamed(cs, m)
			return err
		},
	} {
		if err := f(); !errors.Is(err, native.ErrInvalidArgument) {
			t.Errorf("%s: %v, want ErrInvalidArgument", name, err)
		}
	}
}

// checkStreamScratch checks a streamed MSM's pool peak with opts against
// MSMStreamScratchBytes, and that against MSMStreamScratchBound.
func checkStreamScratch(t *testing.T, g native.Group, m native.StreamedMSM, peak int64, opts ...native.MSMOption) {
	t.Helper()
	want, err := native.MSMStreamScratchBytes(0, g, m, opts...)
	if err != nil {
		t.Fatal(err)
	}
	bound := native.MSMStreamScratchBound(g, m)
	if peak > want {
		t.Errorf("G%d: took %d bytes at the peak, MSMStreamScratchBytes says %d", g, peak, want)
	}
	if want > bound {
		t.Errorf("G%d: MSMStreamScratchBytes %d above MSMStreamScratchBound %d", g, want, bound)
	}
}

// checkScratchNoLarger checks that MSMStreamScratchBytes with opts is no
// more than without.
func checkScratchNoLarger(t *testing.T, g native.Group, m native.StreamedMSM, opts ...native.MSMOption) {
	t.Helper()
	with, err := native.MSMStreamScratchBytes(0, g, m, opts...)
	if err != nil {
		t.Fatal(err)
	}
	without, err := native.MSMStreamScratchBytes(0, g, m)
	if err != nil {
		t.Fatal(err)
	}
	if with > without {
		t.Errorf("G%d: MSMStreamScratchBytes %d with options, above its %d without", g, with, without)
	}
}

// H in three steps with two device vectors equals HDevice with three, and
// takes at most HScratchBytes beside its vectors.
func TestHStepEqualsHDevice(t *testing.T) {
	requireGPU(t)
	s, err := native.NewStream(0)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, logM := range []uint32{1, 5, 12} {
		m := 1 << logM
		n := max(m-7, 1)
		var in [3][]fr.Element
		for i := range in {
			in[i] = make([]fr.Element, m)
			copy(in[i], nativetest.Scalars(n))
		}
		var bufs [3]*native.Buffer
		for i := range bufs {
			bufs[i] = upload(t, s, in[i])
			defer bufs[i].Free()
		}
		if err := s.HDevice(bufs[0], bufs[1], bufs[2], logM); err != nil {
			t.Fatal(err)
		}
		want := make([]fr.Element, m)
		if err := s.CopyToHost(native.AsBytes(want), bufs[0], 0); err != nil {
			t.Fatal(err)
		}
		acc, x := upload(t, s, in[0]), upload(t, s, in[1])
		defer acc.Free()
		defer x.Free()
		scratch, err := native.HScratchBytes(logM)
		if err != nil {
			t.Fatal(err)
		}
		peak := measurePeak(t, func() error {
			if err := s.HStep(acc, nil, logM, native.HStepA); err != nil {
				return err
			}
			if err := s.HStep(acc, x, logM, native.HStepB); err != nil {
				return err
			}
			if err := s.CopyToDevice(x, 0, native.AsBytes(in[2])); err != nil { // waits for the stream
				return err
			}
			if err := s.HStep(acc, x, logM, native.HStepC); err != nil {
				return err
			}
			return s.Sync()
		})
		got := make([]fr.Element, m)
		if err := s.CopyToHost(native.AsBytes(got), acc, 0); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, want) {
			t.Fatalf("2^%d: H by steps differs from HDevice", logM)
		}
		if peak > scratch || scratch > native.HScratchBound(logM) {
			t.Errorf("2^%d: peak %d, HScratchBytes %d, HScratchBound %d", logM, peak, scratch, native.HScratchBound(logM))
		}
	}
	if err := s.HStep(nil, nil, 4, native.HStepA); !errors.Is(err, native.ErrInvalidArgument) {
		t.Errorf("nil acc: %v", err)
	}
}
