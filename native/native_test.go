package native_test

import (
	"errors"
	"fmt"
	"math/big"
	"os"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/consensys/gnark-crypto/ecc"
	bls12381 "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr/fft"

	"github.com/gpuc2/gpuc2/internal/nativetest"
	"github.com/gpuc2/gpuc2/native"
)

func requireGPU(t testing.TB) {
	t.Helper()
	if !native.Available() {
		t.Skipf("CUDA backend not available: %v", native.Load())
	}
}

func TestNotAvailableIsClean(t *testing.T) {
	if native.Available() {
		t.Skip("CUDA backend available")
	}
	if err := native.Load(); !errors.Is(err, native.ErrNotAvailable) {
		t.Fatalf("Load: %v, want ErrNotAvailable", err)
	}
	if _, err := native.Devices(); !errors.Is(err, native.ErrNotAvailable) {
		t.Fatalf("Devices: %v", err)
	}
	if _, err := native.MSMG1(0, nil, nil, nil); !errors.Is(err, native.ErrNotAvailable) {
		t.Fatalf("MSMG1: %v", err)
	}
	if err := native.NTT(0, make([]fr.Element, 4), native.Forward); !errors.Is(err, native.ErrNotAvailable) {
		t.Fatalf("NTT: %v", err)
	}
}

func TestErrorIs(t *testing.T) {
	var err error = &native.Error{Op: "x", Code: native.CodeOutOfMemory, Msg: "m"}
	if !errors.Is(err, native.ErrOutOfMemory) || errors.Is(err, native.ErrNotSupported) {
		t.Fatal("Error.Is mapping")
	}
	if !strings.Contains(err.Error(), "code 2") {
		t.Fatal(err.Error())
	}
}

func TestDevices(t *testing.T) {
	requireGPU(t)
	ds, err := native.Devices()
	if err != nil {
		t.Fatal(err)
	}
	v, _ := native.Version()
	p, _ := native.LibraryPath()
	t.Logf("library %s (%s)", p, v)
	for _, d := range ds {
		t.Logf("device %d: %s, %d MiB, %d SMs, sm_%d%d", d.Index, d.Name, d.TotalMemory>>20, d.SMs, d.ComputeMajor, d.ComputeMinor)
		if d.TotalMemory == 0 || d.SMs == 0 {
			t.Fatal("empty device info")
		}
	}
	if _, err := native.MSMG1(len(ds), nil, nil, nil); !errors.Is(err, native.ErrInvalidArgument) {
		t.Fatalf("bad device: %v", err)
	}
	if err := native.NTT(0, make([]fr.Element, 3), native.Forward); !errors.Is(err, native.ErrInvalidArgument) {
		t.Fatalf("bad ntt length: %v", err)
	}
	// native-side argument error: density popcount mismatch
	bases := nativetest.G1(2, 2)
	_, err = native.MSMG1(0, bases, nativetest.Scalars(3), []uint64{1})
	var ne *native.Error
	if !errors.As(err, &ne) || ne.Code != native.CodeInvalidArgument {
		t.Fatalf("density mismatch: %v", err)
	}
}

// cpuNTT applies gnark-crypto's transform with natural order in and out.
func cpuNTT(a []fr.Element, dir native.Direction) {
	d := fft.NewDomain(uint64(len(a)))
	switch dir {
	case native.Forward:
		d.FFT(a, fft.DIF)
	case native.Inverse:
		d.FFTInverse(a, fft.DIF)
	case native.CosetForward:
		d.FFT(a, fft.DIF, fft.OnCoset())
	case native.CosetInverse:
		d.FFTInverse(a, fft.DIF, fft.OnCoset())
	}
	fft.BitReverse(a)
}

func maxLog(short, normal, big int) int {
	switch {
	case nativetest.Big():
		return big
	case testing.Short():
		return short
	}
	return normal
}

func TestNTT(t *testing.T) {
	requireGPU(t)
	top := maxLog(14, 20, 24)
	// Odd and even stage counts in every pass kind: 2^k takes up to 10
	// stages, then up to 9 at a time, so 2^11..2^16 end with passes of 1..6
	// stages and 2^25 with one of 6. The bit reversal's tiles are 2^(k/2)
	// square up to 32, with k mod 2 middle bits below 2^10: 1..10 hold each
	// tile side with and without them.
	logs := []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 15}
	for k := 14; k <= top; k += 2 {
		logs = append(logs, k)
	}
	if nativetest.Big() {
		logs = append(logs, 25)
	}
	for _, k := range logs {
		for _, dir := range []native.Direction{native.Forward, native.Inverse, native.CosetForward, native.CosetInverse} {
			t.Run(fmt.Sprintf("2^%d/dir%d", k, dir), func(t *testing.T) {
				in := nativetest.Scalars(1 << k)
				want := slices.Clone(in)
				cpuNTT(want, dir)
				got := slices.Clone(in)
				if err := native.NTT(0, got, dir); err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(got, want) {
					t.Fatal("GPU NTT differs from gnark-crypto")
				}
				// round trip
				inv := map[native.Direction]native.Direction{native.Forward: native.Inverse, native.Inverse: native.Forward,
					native.CosetForward: native.CosetInverse, native.CosetInverse: native.CosetForward}[dir]
				if err := native.NTT(0, got, inv); err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(got, in) {
					t.Fatal("round trip differs")
				}
			})
		}
	}
}

// cpuH is bellperson's H computation with gnark-crypto.
func cpuH(a, b, c []fr.Element, m int) []fr.Element {
	pad := func(x []fr.Element) []fr.Element {
		y := make([]fr.Element, m)
		copy(y, x)
		cpuNTT(y, native.Inverse)
		cpuNTT(y, native.CosetForward)
		return y
	}
	A, B, C := pad(a), pad(b), pad(c)
	g := fft.GeneratorFullMultiplicativeGroup()
	var z fr.Element
	z.Exp(g, big.NewInt(int64(m)))
	var one fr.Element
	one.SetOne()
	z.Sub(&z, &one)
	z.Inverse(&z)
	for i := range A {
		A[i].Mul(&A[i], &B[i]).Sub(&A[i], &C[i]).Mul(&A[i], &z)
	}
	cpuNTT(A, native.CosetInverse)
	return A
}

func TestH(t *testing.T) {
	requireGPU(t)
	top := maxLog(12, 20, 22)
	for k := 1; k <= top; k++ {
		if k > 12 && k%2 == 1 {
			continue
		}
		m := 1 << k
		for _, n := range []int{m, m - 1, m/2 + 1} {
			if n <= 0 {
				continue
			}
			t.Run(fmt.Sprintf("m=2^%d/n=%d", k, n), func(t *testing.T) {
				a, b, c := nativetest.Scalars(n), nativetest.Scalars(n), nativetest.Scalars(n)
				want := cpuH(a, b, c, m)
				got := make([]fr.Element, m)
				if err := native.H(0, a, b, c, got); err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(got, want) {
					t.Fatal("GPU H differs from CPU")
				}
			})
		}
	}
}

// benchMSMOptions reads the MSM tuning of TestBenchTable from the
// environment: GPUC2_BENCH_WINDOW=c forces the window, GPUC2_BENCH_TRACE=1
// prints per-phase times to stderr, GPUC2_BENCH_NO_SPLIT=1 skips the 0/1
// split. (The library itself reads no environment.)
func benchMSMOptions(t *testing.T) []native.MSMOption {
	var opts []native.MSMOption
	if v := os.Getenv("GPUC2_BENCH_WINDOW"); v != "" {
		c, err := strconv.Atoi(v)
		if err != nil {
			t.Fatalf("GPUC2_BENCH_WINDOW=%s", v)
		}
		opts = append(opts, native.WithWindow(c))
	}
	for env, opt := range map[string]native.MSMOption{"GPUC2_BENCH_TRACE": native.WithTrace(), "GPUC2_BENCH_NO_SPLIT": native.WithoutSplit()} {
		if on, _ := strconv.ParseBool(os.Getenv(env)); on {
			opts = append(opts, opt)
		}
	}
	return opts
}

// TestBenchTable times the kernels and writes a markdown table to the file
// named by GPUC2_BENCH_OUT. It runs only when that variable is set.
// GPUC2_BENCH_SIZES can shrink it ("small", "quick", "ntt", "ntt-K", "msm",
// "streamed", "g1-K", "g2-K", "bits-K", "bits-g2-K": see the switch);
// benchMSMOptions tunes its MSMs.
func TestBenchTable(t *testing.T) {
	out := os.Getenv("GPUC2_BENCH_OUT")
	if out == "" {
		t.Skip("GPUC2_BENCH_OUT not set")
	}
	requireGPU(t)
	msmOpts := benchMSMOptions(t)
	const runs = 5
	sizes := os.Getenv("GPUC2_BENCH_SIZES")
	var rows []string
	median := func(xs []float64) float64 {
		s := slices.Clone(xs)
		sort.Float64s(s)
		return s[len(s)/2]
	}
	report := func(what string, n int, resident []float32, host []float64) {
		r := make([]float64, len(resident))
		for i, x := range resident {
			r[i] = float64(x)
		}
		hs, rs := "—", "—"
		if len(host) > 0 {
			hs = fmt.Sprintf("%.2f", median(host))
		}
		if len(r) > 0 {
			rs = fmt.Sprintf("%.2f", median(r))
		}
		row := fmt.Sprintf("| %s | 2^%d | %s | %s |", what, bitsLen(n), rs, hs)
		t.Log(row)
		rows = append(rows, row)
		_ = os.WriteFile(out, []byte(table(rows)), 0o644)
	}
	g1Logs := []int{20, 22, 24, 25, 26, 27}
	g2Logs := []int{20, 22, 24, 25}
	nttLogs := []int{20, 22, 24, 26, 27}
	hLog := 27
	switch sizes {
	case "small":
		g1Logs, g2Logs, nttLogs, hLog = []int{16, 18}, []int{16}, []int{16, 20}, 20
	case "quick": // one of each, for side-by-side runs of two libraries
		g1Logs, g2Logs, nttLogs, hLog = []int{24, 26}, []int{22}, []int{27}, 27
	case "ntt": // NTTs in every direction and H, no MSM
		g1Logs, g2Logs = nil, nil
	case "msm": // the MSMs at sppark_msm_bench's sizes, no NTT
		g1Logs, g2Logs, nttLogs, hLog = []int{20, 22, 24, 26}, []int{20, 22, 24}, nil, 0
	case "streamed": // G1 resident and streamed from pinned memory (GPUC2_BENCH_CHUNKS)
		g1Logs, g2Logs, nttLogs, hLog = []int{24, 26}, nil, nil, 0
	}
	// "ntt-K": the NTTs and H at 2^K only (profiles of one size).
	if k, ok := strings.CutPrefix(sizes, "ntt-"); ok {
		n, err := strconv.Atoi(k)
		if err != nil {
			t.Fatalf("GPUC2_BENCH_SIZES=%s", sizes)
		}
		g1Logs, g2Logs, nttLogs, hLog = nil, nil, []int{n}, n
	}
	// "bits-K" / "bits-g2-K": G1 / G2 at 2^K over an assignment's
	// scalars, resident and streamed, with and without the 0/1 split (the
	// aux MSMs' path).
	if k, ok := strings.CutPrefix(sizes, "bits-"); ok {
		k, g2 := strings.CutPrefix(k, "g2-")
		n, err := strconv.Atoi(k)
		if err != nil {
			t.Fatalf("GPUC2_BENCH_SIZES=%s", sizes)
		}
		if g2 {
			benchAssignmentMSM(t, nativetest.G2(1<<n, 1<<14), runs, msmOpts, report)
		} else {
			benchAssignmentMSM(t, nativetest.G1(1<<n, 1<<16), runs, msmOpts, report)
		}
		return
	}
	pinnedRows := sizes == "" || sizes == "streamed"
	// "g1-K" / "g2-K": one MSM size, device times only (window-size
	// experiments with GPUC2_BENCH_WINDOW, profiles).
	windowRun := strings.HasPrefix(sizes, "g1-") || strings.HasPrefix(sizes, "g2-")
	if windowRun {
		k, err := strconv.Atoi(sizes[3:])
		if err != nil {
			t.Fatalf("GPUC2_BENCH_SIZES=%s", sizes)
		}
		g1Logs, g2Logs, nttLogs, hLog = []int{k}, nil, nil, 0
		if sizes[:3] == "g2-" {
			g1Logs, g2Logs = nil, []int{k}
		}
	}
	maxLog := 0
	for _, k := range append(slices.Clone(g1Logs), g2Logs...) {
		maxLog = max(maxLog, k)
	}
	scal := nativetest.Scalars(1 << maxLog)
	if len(g1Logs) > 0 {
		pts := nativetest.G1(1<<g1Logs[len(g1Logs)-1], 1<<16)
		for _, k := range g1Logs {
			n := 1 << k
			ms, err := native.BenchMSMG1(0, pts[:n], scal[:n], runs+1, msmOpts...)
			if err != nil {
				t.Fatal(err)
			}
			var host []float64
			for i := 0; i < runs+1 && !windowRun; i++ {
				t0 := time.Now()
				if _, err := native.MSMG1(0, pts[:n], scal[:n], nil, msmOpts...); err != nil {
					t.Fatal(err)
				}
				if i > 0 {
					host = append(host, float64(time.Since(t0).Microseconds())/1000)
				}
			}
			report("G1 MSM", n, ms[1:], host)
			if pinnedRows && (k == 24 || k == 26) {
				report("G1 MSM, upload from pinned memory included", n, nil, pinnedMSM(t, pts[:n], scal[:n], runs))
				for _, mib := range benchChunks(t) {
					report(fmt.Sprintf("G1 MSM, bases streamed from pinned memory in %d MiB chunks", mib), n, nil,
						streamedMSM(t, pts[:n], scal[:n], runs, mib<<20/96, msmOpts))
				}
			}
			if sizes == "" && k == 24 {
				var cpu []float64
				for range 3 {
					var r bls12381.G1Jac
					t0 := time.Now()
					if _, err := r.MultiExp(pts[:n], scal[:n], ecc.MultiExpConfig{}); err != nil {
						t.Fatal(err)
					}
					cpu = append(cpu, float64(time.Since(t0).Microseconds())/1000)
				}
				report(fmt.Sprintf("G1 MSM on the CPU (gnark-crypto, %d cores)", runtime.NumCPU()), n, nil, cpu)
			}
		}
	}
	if len(g2Logs) > 0 {
		pts := nativetest.G2(1<<g2Logs[len(g2Logs)-1], 1<<14)
		for _, k := range g2Logs {
			n := 1 << k
			ms, err := native.BenchMSMG2(0, pts[:n], scal[:n], runs+1, msmOpts...)
			if err != nil {
				t.Fatal(err)
			}
			var host []float64
			for i := 0; i < 3 && !windowRun; i++ {
				t0 := time.Now()
				if _, err := native.MSMG2(0, pts[:n], scal[:n], nil, msmOpts...); err != nil {
					t.Fatal(err)
				}
				if i > 0 {
					host = append(host, float64(time.Since(t0).Microseconds())/1000)
				}
			}
			report("G2 MSM", n, ms[1:], host)
		}
	}
	if hLog == 0 {
		return
	}
	big := nativetest.Scalars(1 << max(nttLogs[len(nttLogs)-1], hLog))
	for _, k := range nttLogs {
		n := 1 << k
		ms, err := native.BenchNTT(0, big[:n], runs+1)
		if err != nil {
			t.Fatal(err)
		}
		report("NTT forward", n, ms[1:], nil)
		if sizes != "ntt" && !strings.HasPrefix(sizes, "ntt-") {
			continue
		}
		names := map[native.Direction]string{native.Inverse: "inverse", native.CosetForward: "coset forward",
			native.CosetInverse: "coset inverse"}
		for _, dir := range []native.Direction{native.Inverse, native.CosetForward, native.CosetInverse} {
			ms, err := native.BenchNTTDir(0, big[:n], dir, runs+1)
			if errors.Is(err, native.ErrNotSupported) {
				t.Logf("NTT direction %d: %v", dir, err)
				continue
			}
			if err != nil {
				t.Fatal(err)
			}
			report("NTT "+names[dir], n, ms[1:], nil)
		}
	}
	{
		m := 1 << hLog
		b2 := nativetest.Scalars(m)
		c2 := nativetest.Scalars(m)
		ms, err := native.BenchH(0, big[:m], b2, c2, runs+1)
		if err != nil {
			t.Fatal(err)
		}
		report("H pipeline (7 NTTs)", m, ms[1:], nil)
	}
	// keep the G1 generator referenced for vet on unused imports
	_ = bls12381.G1Affine{}
}

// benchAssignmentMSM reports MSMs over pts (G1 or G2) with scalars shaped
// like a PoRep assignment's (15 of 16 are 0 or 1, the rest random):
// resident (device ms) and streamed from pinned memory in benchChunks'
// chunks of points (wall ms), each with the 0/1 split and without.
func benchAssignmentMSM[P bls12381.G1Affine | bls12381.G2Affine](t *testing.T, pts []P, runs int, opts []native.MSMOption,
	report func(string, int, []float32, []float64)) {
	n := len(pts)
	scal := nativetest.Scalars(n)
	for i := range scal {
		if i%16 != 0 {
			scal[i].SetUint64(uint64(scal[i][0] & 1))
		}
	}
	var group string
	var bench func(o []native.MSMOption) ([]float32, error)
	switch p := any(pts).(type) {
	case []bls12381.G1Affine:
		group, bench = "G1", func(o []native.MSMOption) ([]float32, error) { return native.BenchMSMG1(0, p, scal, runs+1, o...) }
	case []bls12381.G2Affine:
		group, bench = "G2", func(o []native.MSMOption) ([]float32, error) { return native.BenchMSMG2(0, p, scal, runs+1, o...) }
	}
	point := len(native.AsBytes(pts[:1]))
	for _, split := range []bool{true, false} {
		o, how := slices.Clone(opts), "with the 0/1 split"
		if !split {
			o, how = append(o, native.WithoutSplit()), "without the split"
		}
		ms, err := bench(o)
		if err != nil {
			t.Fatal(err)
		}
		report(group+" MSM, assignment scalars, "+how, n, ms[1:], nil)
		for _, mib := range benchChunks(t) {
			report(fmt.Sprintf("%s MSM, assignment scalars, streamed in %d MiB chunks, %s", group, mib, how), n, nil,
				streamedMSM(t, pts, scal, runs, mib<<20/point, o))
		}
	}
}

// benchChunks are the chunk sizes (MiB) of the streamed MSM rows:
// GPUC2_BENCH_CHUNKS, comma-separated, default 1024 (the prover's).
func benchChunks(t *testing.T) []int {
	v := os.Getenv("GPUC2_BENCH_CHUNKS")
	if v == "" {
		return []int{1024}
	}
	var out []int
	for _, f := range strings.Split(v, ",") {
		mib, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || mib <= 0 {
			t.Fatalf("GPUC2_BENCH_CHUNKS=%s", v)
		}
		out = append(out, mib)
	}
	return out
}

// streamedMSM times, in ms, MSMs whose bases (G1 or G2) stream from pinned
// host memory in chunks of chunk points (MSMG1Streamed, MSMG2Streamed) with
// the scalars on the device, as the streaming prover runs them: the wall
// time of each call.
func streamedMSM[P bls12381.G1Affine | bls12381.G2Affine](t *testing.T, pts []P, scal []fr.Element, runs, chunk int, opts []native.MSMOption) []float64 {
	bases := pin(t, pts, 0)
	s, cs := newStream(t, native.NewStream), newStream(t, native.NewStream)
	sc, err := native.Alloc(0, s, int64(len(native.AsBytes(scal))))
	if err != nil {
		t.Fatal(err)
	}
	defer sc.Free()
	if err := s.CopyToDevice(sc, 0, native.AsBytes(scal)); err != nil {
		t.Fatal(err)
	}
	if err := s.FrFromMont(sc, 0, len(scal)); err != nil {
		t.Fatal(err)
	}
	m := native.StreamedMSM{Bases: bases, NBases: len(pts), Scalars: sc, NScalars: len(scal), Canonical: true, ChunkPoints: chunk}
	msm := func() (err error) { _, err = s.MSMG1Streamed(cs, m, opts...); return err }
	if _, ok := any(pts).([]bls12381.G2Affine); ok {
		msm = func() (err error) { _, err = s.MSMG2Streamed(cs, m, opts...); return err }
	}
	var out []float64
	for i := 0; i <= runs; i++ {
		t0 := time.Now()
		if err := msm(); err != nil {
			t.Fatal(err)
		}
		if i > 0 {
			out = append(out, float64(time.Since(t0).Microseconds())/1000)
		}
	}
	return out
}

// pinnedMSM times, in ms, copying points and scalars from pinned host
// memory to the device and running the MSM there (the wall time of both).
func pinnedMSM(t *testing.T, pts []bls12381.G1Affine, scal []fr.Element, runs int) []float64 {
	ptsBytes, scBytes := int64(len(native.AsBytes(pts))), int64(len(native.AsBytes(scal)))
	pin, err := native.AllocPinned(ptsBytes + scBytes)
	if err != nil {
		t.Fatal(err)
	}
	defer pin.Free()
	copy(pin.Bytes(), native.AsBytes(pts))
	copy(pin.Bytes()[ptsBytes:], native.AsBytes(scal))
	s, err := native.NewStream(0)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var out []float64
	for i := 0; i <= runs; i++ {
		t0 := time.Now()
		b, err := native.Alloc(0, s, ptsBytes)
		if err != nil {
			t.Fatal(err)
		}
		sc, err := native.Alloc(0, s, scBytes)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.CopyToDeviceAsync(b, 0, pin, 0, ptsBytes); err != nil {
			t.Fatal(err)
		}
		if err := s.CopyToDeviceAsync(sc, 0, pin, ptsBytes, scBytes); err != nil {
			t.Fatal(err)
		}
		if _, err := s.MSMG1(native.DeviceMSM{Bases: b, NBases: len(pts), Scalars: sc, NScalars: len(pts)}); err != nil {
			t.Fatal(err)
		}
		b.Free()
		sc.Free()
		if i > 0 {
			out = append(out, float64(time.Since(t0).Microseconds())/1000)
		}
	}
	return out
}

func bitsLen(n int) int {
	k := 0
	for 1<<k < n {
		k++
	}
	return k
}

func table(rows []string) string {
	return "| operation | size | device ms (median of 5, inputs resident) | host API ms (median, incl. upload) |\n|---|---|---|---|\n" +
		strings.Join(rows, "\n") + "\n"
}
