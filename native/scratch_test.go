package native_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/gpuc2/gpuc2/internal/nativetest"
	"github.com/gpuc2/gpuc2/native"
)

// measurePeak returns the bytes f took from device 0's pool at its peak,
// beyond what was allocated before it.
func measurePeak(t *testing.T, f func() error) int64 {
	t.Helper()
	used, _, err := native.PoolInfo(0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := native.PoolPeak(0); err != nil { // resets the mark
		t.Fatal(err)
	}
	if err := f(); err != nil {
		t.Fatal(err)
	}
	peak, err := native.PoolPeak(0)
	if err != nil {
		t.Fatal(err)
	}
	return int64(peak) - int64(used)
}

// MSMScratchBytes covers what an MSM over device buffers really takes from
// the pool, for random scalars and for mostly-bit scalars (the 0/1 split's
// case), with a density bitmap, Montgomery scalars, forced windows and no
// split; it stays within MSMScratchBound; and for random scalars from 2^20
// points up it is not more than twice the real peak. MSMG1 over host slices
// takes at most the same plus its copies.
func TestMSMScratchCoversPeak(t *testing.T) {
	requireGPU(t)
	s, err := native.NewStream(0)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	logs := []int{0, 4, 10, 13, 16}
	if !testing.Short() {
		logs = append(logs, 18, 20)
	}
	if nativetest.Big() {
		logs = append(logs, 22, 24)
	}
	top := 1 << logs[len(logs)-1]
	random := nativetest.Scalars(top)
	bits := nativetest.Scalars(top)
	for i := range bits {
		if i%100 != 0 {
			bits[i].SetUint64(uint64(i & 1))
		}
	}
	g1 := upload(t, s, nativetest.G1(top, min(top, 1<<16)))
	defer g1.Free()
	g2 := upload(t, s, nativetest.G2(top, min(top, 1<<12)))
	defer g2.Free()
	// scalars[name][canonical]: Montgomery and canonical copies on the device
	scalars := map[string]map[bool]*native.Buffer{}
	for name, v := range map[string][]fr.Element{"random": random, "bits": bits} {
		mont, canon := upload(t, s, v), upload(t, s, v)
		defer mont.Free()
		defer canon.Free()
		if err := s.FrFromMont(canon, 0, len(v)); err != nil {
			t.Fatal(err)
		}
		scalars[name] = map[bool]*native.Buffer{false: mont, true: canon}
	}
	if err := s.Sync(); err != nil {
		t.Fatal(err)
	}
	type option struct {
		name string
		opts []native.MSMOption
	}
	options := []option{{"default", nil}, {"no-split", []native.MSMOption{native.WithoutSplit()}},
		{"window-8", []native.MSMOption{native.WithWindow(8)}}, {"window-20", []native.MSMOption{native.WithWindow(native.MSMWindowMax)}}}
	for _, k := range logs {
		n := 1 << k
		density, nb := nativetest.Density(n, 2)
		for _, g := range []native.Group{native.G1, native.G2} {
			if g == native.G2 && k > 20 {
				continue
			}
			bases := g1
			if g == native.G2 {
				bases = g2
			}
			for _, sc := range []struct {
				name    string
				density bool
			}{{"random", false}, {"bits", false}, {"bits-density", true}} {
				for _, canonical := range []bool{true, false} {
					for _, o := range options {
						if !canonical && o.name != "default" {
							continue
						}
						name := fmt.Sprintf("G%d/2^%d/%s/canonical=%v/%s", g, k, sc.name, canonical, o.name)
						t.Run(name, func(t *testing.T) {
							m := native.DeviceMSM{Bases: bases, NBases: n, NScalars: n, Canonical: canonical}
							m.Scalars = scalars[strings.TrimSuffix(sc.name, "-density")][canonical]
							if sc.density {
								m.Density, m.NBases = density, nb
							}
							want, err := native.MSMScratchBytes(0, g, m, o.opts...)
							if err != nil {
								t.Fatal(err)
							}
							got := measurePeak(t, func() error {
								var err error
								if g == native.G1 {
									_, err = s.MSMG1(m, o.opts...)
								} else {
									_, err = s.MSMG2(m, o.opts...)
								}
								return err
							})
							bound := native.MSMScratchBound(g, m)
							t.Logf("peak %d MiB, MSMScratchBytes %d MiB, bound %d MiB", got>>20, want>>20, bound>>20)
							if got > want {
								t.Errorf("took %d bytes at the peak, MSMScratchBytes says %d", got, want)
							}
							if want > bound {
								t.Errorf("MSMScratchBytes %d above MSMScratchBound %d", want, bound)
							}
							if k >= 20 && sc.name == "random" && want > 2*got {
								t.Errorf("MSMScratchBytes %d is more than twice the real peak %d", want, got)
							}
						})
					}
				}
			}
		}
	}
	// The host-pointer entries need the canonical scratch plus their copies
	// of bases and scalars (each rounded to the pool's 2 MiB granule).
	n := 1 << logs[len(logs)-1]
	pts := nativetest.G1(n, min(n, 1<<16))
	want, err := native.MSMScratchBytes(0, native.G1, native.DeviceMSM{NBases: n, NScalars: n, Canonical: true})
	if err != nil {
		t.Fatal(err)
	}
	granules := func(b int) int64 { return (int64(b) + 2<<20 - 1) / (2 << 20) * (2 << 20) }
	want += granules(len(native.AsBytes(pts))) + granules(len(native.AsBytes(random[:n])))
	got := measurePeak(t, func() error { _, err := native.MSMG1(0, pts, random[:n], nil); return err })
	if got > want {
		t.Errorf("MSMG1 over 2^%d host points took %d bytes, want at most %d", logs[len(logs)-1], got, want)
	}
}

// The scratch queries refuse a group that is neither G1 nor G2, and say
// which query did.
func TestMSMScratchUnknownGroup(t *testing.T) {
	requireGPU(t)
	const other = native.Group(3)
	queries := map[string]func() error{
		"msm_scratch_bytes": func() error {
			_, err := native.MSMScratchBytes(0, other, native.DeviceMSM{NBases: 100, NScalars: 100})
			return err
		},
		"msm_stream_scratch_bytes": func() error {
			_, err := native.MSMStreamScratchBytes(0, other, native.StreamedMSM{NBases: 100, NScalars: 100, ChunkPoints: 64})
			return err
		},
	}
	for name, q := range queries {
		err := q()
		if !errors.Is(err, native.ErrInvalidArgument) || !strings.Contains(err.Error(), name+": unknown group") {
			t.Errorf("%s: group 3 gave %v, want ErrInvalidArgument naming it", name, err)
		}
	}
}
