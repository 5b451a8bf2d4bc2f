package gpu_test

import (
	"context"
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	bls12381 "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/dustin/go-humanize"

	"github.com/gpuc2/gpuc2/groth16"
	"github.com/gpuc2/gpuc2/groth16/gpu"
	"github.com/gpuc2/gpuc2/internal/nativetest"
	"github.com/gpuc2/gpuc2/native"
	"github.com/gpuc2/gpuc2/synth"
	"github.com/gpuc2/gpuc2/synth/porep"
	"github.com/gpuc2/gpuc2/trace"
)

var (
	partitionSize    = flag.String("partition", "", "BenchmarkCUDAPartition: sector size of the synthetic partition (2KiB, 8MiB, 512MiB, 32GiB); empty skips it")
	partitionWorkers = flag.String("partition-workers", "1,2,3", "BenchmarkCUDAPartition: worker counts to run")
	partitionProofs  = flag.Int("partition-proofs", 3, "BenchmarkCUDAPartition: proofs per worker")
	partitionTrace   = flag.String("partition-trace", "", "BenchmarkCUDAPartition: write a Chrome trace of the runs here")
	partitionWidth   = flag.Int("partition-width", 1, "BenchmarkCUDAPartition: jobs computing at once per GPU (gpulock compute width)")
	partitionDevices = flag.Int("partition-devices", 1, "BenchmarkCUDAPartition: GPUs to use (workers run on each)")
	partitionLimits  = flag.String("partition-limits", "", "BenchmarkCUDAPartition: device memory limits (e.g. 16GiB,24GiB) at which to stream the key from pinned memory and check the proofs against the resident one's")
)

// BenchmarkCUDAPartition times GPU proofs of one PoRep partition with the
// key resident on the device, with 1, 2, 3 workers sharing one GPU through
// gpulock. The witness is a real synthesis of a synthetic sector; the key is
// a tiled one of the right sizes (timing only: these proofs do not verify).
// Run with -partition 32GiB -test.benchtime 1x on a large GPU.
func BenchmarkCUDAPartition(b *testing.B) {
	if *partitionSize == "" {
		b.Skip("set -partition SIZE")
	}
	if !gpu.CUDAAvailable() {
		b.Skip("no native CUDA library")
	}
	ctx := context.Background()
	spt, err := porep.ProofForSectorSize(*partitionSize)
	if err != nil {
		b.Fatal(err)
	}
	t0 := time.Now()
	c1, err := porep.SyntheticC1(ctx, spt, 1000, 1, [32]byte{7})
	if err != nil {
		b.Fatal(err)
	}
	circuit, err := c1.Circuit(0)
	if err != nil {
		b.Fatal(err)
	}
	hint := circuit.Params.Sizes()
	hint.Rows = hint.Domain()
	w := synth.NewProvingAssignment(hint)
	if err := circuit.Synthesize(ctx, w); err != nil {
		b.Fatal(err)
	}
	synth.AppendInputRows(w, len(w.Inputs))
	fmt.Fprintf(os.Stderr, "synthetic %s partition: %d rows, %d aux, %d inputs (C1 + synthesis %.1f s)", *partitionSize, w.NumRows(), len(w.Aux), len(w.Inputs), time.Since(t0).Seconds())
	fmt.Fprintln(os.Stderr)
	logScalarStats(w)

	m := synth.DomainSize(w.NumRows())
	counts := groth16.SectionCounts{H: m - 1, L: len(w.Aux), A: len(w.Inputs) + w.AAux.Count(), B: w.BInput.Count() + w.BAux.Count()}
	vk := &groth16.VerifyingKey{IC: nativetest.G1(len(w.Inputs), len(w.Inputs))}
	devs, err := gpu.CUDADevices()
	if err != nil {
		b.Fatal(err)
	}
	ndev := min(max(*partitionDevices, 1), len(devs))
	ordinals := make([]int, ndev)
	for d := range ndev {
		ordinals[d] = devs[d].Ordinal
	}
	opened, err := gpu.Open(gpu.Config{Ordinals: ordinals, ComputeWidth: *partitionWidth})
	if err != nil {
		b.Fatal(err)
	}
	defer opened.Close()
	provers := make([]*gpu.Device, ndev)
	keys := make([]*gpu.DeviceKey, ndev)
	tile1, tile2 := nativetest.G1(1<<16, 1<<16), nativetest.G2(1<<12, 1<<12) // one tiled key for every GPU and the pinned copy
	for d := range ndev {
		provers[d] = opened.Device(ordinals[d])
		t0 = time.Now()
		keys[d], err = provers[d].NewTiledDeviceKey(ctx, counts, tile1, tile2)
		if err != nil {
			b.Fatal(err)
		}
		defer keys[d].Free()
		budget := provers[d].Metrics().MemoryLimitBytes
		fmt.Fprintf(os.Stderr, "GPU %d (%s): tiled key resident: %.1f GiB in %.1f s; budget left %.1f GiB", d, devs[d].Name,
			float64(groth16.KeyBytes(counts))/(1<<30), time.Since(t0).Seconds(), float64(budget-groth16.KeyBytes(counts))/(1<<30))
		fmt.Fprintln(os.Stderr)
	}

	tr := trace.New()
	for _, ws := range strings.Split(*partitionWorkers, ",") {
		workers, err := strconv.Atoi(strings.TrimSpace(ws))
		if err != nil || workers < 1 {
			b.Fatalf("-partition-workers: %q", ws)
		}
		b.Run(fmt.Sprintf("workers=%d", workers), func(b *testing.B) {
			for b.Loop() {
				before := metricsSum(provers)
				sum, wall := runWorkers(b, workers*ndev, func(wk, i int) (t groth16.Timings, err error) {
					d := wk % ndev
					track := trace.Track{Process: fmt.Sprintf("GPU %d", d), Thread: fmt.Sprintf("%d workers/GPU: worker %d", workers, wk/ndev)}
					sp := tr.Begin(track, "partition", "proof", i)
					defer sp.End()
					_, err = provers[d].ProveResident(ctx, keys[d], vk, w, groth16.WithTimings(&t),
						groth16.WithPhases(func(name string, s, e time.Time, args ...any) { tr.Add(track, name, s, e, args...) }))
					return t, err
				})
				n := workers * ndev * *partitionProofs
				after := metricsSum(provers)
				busy := after.ComputeBusy - before.ComputeBusy
				overlap := after.UploadComputeOverlap - before.UploadComputeOverlap
				upload := after.UploadTime - before.UploadTime
				b.ReportMetric(wall.Seconds()/float64(n), "s/partition")
				b.ReportMetric(100*busy.Seconds()/wall.Seconds()/float64(ndev), "busy%")
				if upload > 0 {
					b.ReportMetric(100*overlap.Seconds()/upload.Seconds(), "upload-overlap%")
				}
				per := func(d time.Duration) float64 { return d.Seconds() / float64(n) }
				b.Logf("%d GPU(s) × %d workers × %d proofs: wall %.2f s, %.2f s/partition; per proof: total %.2f, H %.3f, msm h %.3f, l %.3f, a %.3f, b_g1 %.3f, b_g2 %.3f s; "+
					"upload %.2f s/proof, overlapped with compute %.0f%%; compute busy %.0f%%; compute wait %.2f s; peak reserved %.1f GiB",
					ndev, workers, *partitionProofs, wall.Seconds(), wall.Seconds()/float64(n), per(sum.Total), per(sum.H), per(sum.MSMH), per(sum.MSML),
					per(sum.MSMA), per(sum.MSMBG1), per(sum.MSMBG2), per(upload), 100*overlap.Seconds()/max(upload.Seconds(), 1e-9),
					100*busy.Seconds()/wall.Seconds()/float64(ndev), (after.ComputeWait - before.ComputeWait).Seconds(), float64(after.PeakReservedBytes)/(1<<30))
			}
		})
	}
	if *partitionLimits != "" {
		benchStreamed(b, tr, provers[0], keys[0], vk, w, counts, tile1, tile2)
	}
	if *partitionTrace != "" {
		f, err := os.Create(*partitionTrace)
		if err != nil {
			b.Fatal(err)
		}
		defer f.Close()
		if err := tr.WriteJSON(f); err != nil {
			b.Fatal(err)
		}
	}
}

// runWorkers runs n workers at once, each proving -partition-proofs
// partitions with prove(worker, proof), and returns their timings summed
// and the wall time; an error fails b.
func runWorkers(b *testing.B, n int, prove func(wk, i int) (groth16.Timings, error)) (groth16.Timings, time.Duration) {
	var mu sync.Mutex
	var sum groth16.Timings
	var wg sync.WaitGroup
	errs := make([]error, n)
	start := time.Now()
	for wk := range n {
		wg.Go(func() {
			for i := range *partitionProofs {
				t, err := prove(wk, i)
				if err != nil {
					errs[wk] = err
					return
				}
				mu.Lock()
				sum.Add(t)
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			b.Fatal(err)
		}
	}
	return sum, time.Since(start)
}

// metricsSum adds the devices' counters (peak reserved: the largest).
func metricsSum(provers []*gpu.Device) gpu.DeviceMetrics {
	var s gpu.DeviceMetrics
	for _, p := range provers {
		m := p.Metrics()
		s.ComputeBusy += m.ComputeBusy
		s.UploadComputeOverlap += m.UploadComputeOverlap
		s.UploadTime += m.UploadTime
		s.ComputeWait += m.ComputeWait
		s.PeakReservedBytes = max(s.PeakReservedBytes, m.PeakReservedBytes)
	}
	return s
}

// logScalarStats reports how many aux values are 0, 1 or wider: what the
// MSMs over the witness actually see.
func logScalarStats(w *synth.ProvingAssignment) {
	var zero, one, other int
	for i := range w.Aux {
		switch {
		case w.Aux[i].IsZero():
			zero++
		case w.Aux[i].IsOne():
			one++
		default:
			other++
		}
	}
	n := float64(len(w.Aux))
	fmt.Fprintf(os.Stderr, "aux values: %.1f%% zero, %.1f%% one, %.1f%% other; densities a %d, b_aux %d of %d\n",
		100*float64(zero)/n, 100*float64(one)/n, 100*float64(other)/n, w.AAux.Count(), w.BAux.Count(), len(w.Aux))
}

// benchStreamed proves the partition with the key streamed from pinned
// host memory under each of -partition-limits, with 1 and 2 workers, and
// checks every proof against the resident mode's (same tiled key, same r
// and s, the same tiles): byte-identical. It reports s/partition, the phases, the pool's
// high-water mark against the limit, and the rate at which the key's
// points crossed PCIe during the MSMs.
func benchStreamed(b *testing.B, tr *trace.Tracer, resident *gpu.Device, dk *gpu.DeviceKey, vk *groth16.VerifyingKey,
	w *synth.ProvingAssignment, counts groth16.SectionCounts, tile1 []bls12381.G1Affine, tile2 []bls12381.G2Affine) {
	ctx := context.Background()
	rs := randomness(0x5eed, 0xbeef)
	want, err := resident.ProveResident(ctx, dk, vk, w, rs)
	if err != nil {
		b.Fatal(err)
	}
	t0 := time.Now()
	hk, err := gpu.NewTiledPinnedKey(counts, tile1, tile2)
	if err != nil {
		b.Fatal(err)
	}
	defer hk.Free()
	need := gpu.StreamingProofBytes(counts, synth.DomainSize(w.NumRows()), len(w.Aux), len(w.Inputs))
	fmt.Fprintf(os.Stderr, "tiled key pinned: %.1f GiB in %.1f s; a streamed proof reserves %.2f GiB\n",
		float64(groth16.KeyBytes(counts))/(1<<30), time.Since(t0).Seconds(), float64(need)/(1<<30))
	for _, ls := range strings.Split(*partitionLimits, ",") {
		limit, err := humanize.ParseBytes(strings.TrimSpace(ls))
		if err != nil {
			b.Fatalf("-partition-limits: %v", err)
		}
		p, err := resident.OpenBeside(gpu.Config{MemoryLimit: int64(limit), NoResident: true})
		if err != nil {
			b.Fatal(err)
		}
		if err := p.ReadyStage(ctx, synth.DomainSize(w.NumRows())); err != nil { // as Preload does
			b.Fatal(err)
		}
		for _, workers := range []int{1, 2} {
			b.Run(fmt.Sprintf("streamed/limit=%s/workers=%d", strings.TrimSpace(ls), workers), func(b *testing.B) {
				for b.Loop() {
					if _, err := native.PoolPeakSince(resident.Ordinal()); err != nil {
						b.Fatal(err)
					}
					sum, wall := runWorkers(b, workers, func(wk, _ int) (t groth16.Timings, err error) {
						track := trace.Track{Process: "streamed " + strings.TrimSpace(ls), Thread: fmt.Sprintf("%d workers: worker %d", workers, wk)}
						got, err := p.ProveStreamed(ctx, hk, vk, w, rs, groth16.WithTimings(&t),
							groth16.WithPhases(func(name string, s, e time.Time, args ...any) { tr.Add(track, name, s, e, args...) }))
						if err == nil && *got != *want {
							err = fmt.Errorf("the streamed proof differs from the resident one")
						}
						return t, err
					})
					peak, err := native.PoolPeakSince(resident.Ordinal())
					if err != nil {
						b.Fatal(err)
					}
					n := workers * *partitionProofs
					per := func(d time.Duration) float64 { return d.Seconds() / float64(n) }
					msm := sum.MSMH + sum.MSML + sum.MSMA + sum.MSMBG1 + sum.MSMBG2
					b.ReportMetric(wall.Seconds()/float64(n), "s/partition")
					b.Logf("limit %s, %d workers × %d proofs (each equal to the resident proof): %.2f s/partition; per proof: total %.2f, H %.3f, msm h %.3f, l %.3f, a %.3f, b_g1 %.3f, b_g2 %.3f s; "+
						"key streamed at %.1f GB/s over the MSMs; pool high-water %.2f GiB of the %.2f GiB limit; peak reserved %.2f GiB",
						strings.TrimSpace(ls), workers, *partitionProofs, wall.Seconds()/float64(n), per(sum.Total), per(sum.H), per(sum.MSMH), per(sum.MSML),
						per(sum.MSMA), per(sum.MSMBG1), per(sum.MSMBG2), float64(groth16.KeyBytes(counts))/1e9/per(msm),
						float64(peak)/(1<<30), float64(limit)/(1<<30), float64(p.Metrics().PeakReservedBytes)/(1<<30))
					if int64(peak) > int64(limit) {
						b.Errorf("the pool held %d bytes, above the limit %d", peak, limit)
					}
				}
			})
		}
		p.Close()
	}
}
