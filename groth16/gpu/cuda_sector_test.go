package gpu_test

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/gpuc2/gpuc2/groth16"
	"github.com/gpuc2/gpuc2/groth16/gpu"
	"github.com/gpuc2/gpuc2/msm/cuda"
	"github.com/gpuc2/gpuc2/synth"
	"github.com/gpuc2/gpuc2/synth/porep"
)

var (
	sectorSize    = flag.String("sector", "", "BenchmarkCUDASector: sector size of the synthetic sector (2KiB … 32GiB); empty skips it")
	sectorCount   = flag.Int("sector-count", 1, "BenchmarkCUDASector: proofs of the sector, partitions pipelined in (proof, partition) order")
	sectorWorkers = flag.Int("sector-workers", 1, "BenchmarkCUDASector: GPU workers sharing the device through gpulock")
)

// chachaReader is a deterministic io.Reader for TEST-ONLY setups.
type chachaReader struct{ r *rand.ChaCha8 }

func (c chachaReader) Read(p []byte) (int, error) { return c.r.Read(p) }

// BenchmarkCUDASector proves a whole synthetic sector on the GPU against a
// TEST-ONLY setup made for its circuit on the GPU (not Filecoin's
// parameters), and verifies every partition's proof: the full-size check
// that synthesis, setup and prover agree. Partitions of -sector-count proofs
// are synthesized in (proof, partition) order on all cores while
// -sector-workers GPU workers prove earlier ones; witness buffers are reused.
// Run with -sector 32GiB -test.benchtime 1x.
func BenchmarkCUDASector(b *testing.B) {
	if *sectorSize == "" {
		b.Skip("set -sector SIZE")
	}
	if !gpu.CUDAAvailable() {
		b.Skip("no native CUDA library")
	}
	ctx := context.Background()
	logf := func(format string, args ...any) { fmt.Fprintf(os.Stderr, format+"\n", args...) }
	spt, err := porep.ProofForSectorSize(*sectorSize)
	if err != nil {
		b.Fatal(err)
	}
	const miner, sector = 1000, 7
	c1, err := porep.SyntheticC1(ctx, spt, miner, sector, [32]byte{9})
	if err != nil {
		b.Fatal(err)
	}
	circuit, err := c1.Circuit(0)
	if err != nil {
		b.Fatal(err)
	}

	t0 := time.Now()
	// Setup records the circuit (on one core), evaluates its QAP at τ and
	// runs the fixed-base multiplications on the GPU.
	pk, err := groth16.Setup(ctx, circuit, chachaReader{rand.NewChaCha8([32]byte{1})}, groth16.WithSetupEngine(cuda.Engine{Device: 0}))
	if err != nil {
		b.Fatal(err)
	}
	runtime.GC()
	c := pk.Counts()
	logf("%s: TEST-ONLY setup (recording included) with the GPU in %.1f s: h %d, l %d, a %d, b %d points (%.1f GiB)", *sectorSize,
		time.Since(t0).Seconds(), c.H, c.L, c.A, c.B, float64(groth16.KeyBytes(c))/(1<<30))

	devs, err := gpu.Open(gpu.Config{Ordinals: []int{0}})
	if err != nil {
		b.Fatal(err)
	}
	defer devs.Close()
	prover := devs.Device(0)
	t0 = time.Now()
	if err := prover.Preload(ctx, pk); err != nil {
		b.Fatal(err)
	}
	logf("key resident on the GPU in %.1f s", time.Since(t0).Seconds())
	pvk := groth16.PrepareVerifyingKey(pk.VerifyingKey())
	// The key now lives on the GPU; drop the host copy (44 GiB at 32 GiB):
	// the prover finds its device copy by the key's identity and only reads
	// its counts and verifying key.
	if err := pk.Close(); err != nil {
		b.Fatal(err)
	}
	runtime.GC()

	type job struct {
		proof, k int
		w        *synth.ProvingAssignment
		synth    time.Duration
	}
	for b.Loop() {
		nparts := len(c1.VanillaProofs)
		workers := max(*sectorWorkers, 1)
		free := make(chan *synth.ProvingAssignment, workers+1) // reused witness buffers
		for range workers + 1 {
			free <- nil
		}
		jobs := make(chan job)
		start := time.Now()
		errc := make(chan error, workers+1)
		go func() { // synthesis: partitions in (proof, partition) order, all cores each
			defer close(jobs)
			for p := range *sectorCount {
				for k := range nparts {
					w := <-free
					t := time.Now()
					circ, err := c1.Circuit(k)
					if err != nil {
						errc <- err
						return
					}
					if w == nil {
						hint := circ.Params.Sizes()
						hint.Rows = hint.Domain()
						w = synth.NewProvingAssignment(hint)
					} else {
						w.Reset()
					}
					if err := circ.Synthesize(ctx, w); err != nil {
						errc <- err
						return
					}
					jobs <- job{p, k, w, time.Since(t)}
				}
			}
		}()
		done := make([]time.Duration, *sectorCount) // when each proof's last partition verified
		left := make([]int, *sectorCount)
		for i := range left {
			left[i] = nparts
		}
		var mu sync.Mutex
		var synthTotal, gpuTotal time.Duration
		var wg sync.WaitGroup
		for range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for j := range jobs {
					t := time.Now()
					var tm groth16.Timings
					proof, err := prover.Prove(ctx, pk, j.w, groth16.WithTimings(&tm))
					onGPU := time.Since(t)
					free <- j.w
					if err != nil {
						errc <- fmt.Errorf("proof %d partition %d: %w", j.proof, j.k, err)
						return
					}
					public, err := porep.PublicInputs(c1, miner, sector, j.k)
					if err == nil {
						var ok bool
						if ok, err = pvk.Verify(proof, public); err == nil && !ok {
							err = errors.New("proof does not verify")
						}
					}
					if err != nil {
						errc <- fmt.Errorf("proof %d partition %d: %w", j.proof, j.k, err)
						return
					}
					mu.Lock()
					synthTotal += j.synth
					gpuTotal += onGPU
					left[j.proof]--
					if left[j.proof] == 0 {
						done[j.proof] = time.Since(start)
					}
					mu.Unlock()
					logf("proof %d partition %d: synthesis %.2f s, GPU proof %.2f s (H %.2f, msm h %.2f, l %.2f, a %.2f, b_g1 %.2f, b_g2 %.2f), verified",
						j.proof, j.k, j.synth.Seconds(), onGPU.Seconds(), tm.H.Seconds(), tm.MSMH.Seconds(), tm.MSML.Seconds(),
						tm.MSMA.Seconds(), tm.MSMBG1.Seconds(), tm.MSMBG2.Seconds())
				}
			}()
		}
		wg.Wait()
		select {
		case err := <-errc:
			b.Fatal(err)
		default:
		}
		wall := time.Since(start)
		n := *sectorCount
		b.ReportMetric(wall.Seconds()/float64(n), "s/sector")
		logf("%s: %d proof(s) × %d partitions, %d GPU worker(s): all proved and verified in %.1f s; first proof done at %.1f s; "+
			"synthesis %.1f s, GPU %.1f s in all; peak reserved on the GPU %.1f GiB", *sectorSize, n, nparts, workers, wall.Seconds(),
			done[0].Seconds(), synthTotal.Seconds(), gpuTotal.Seconds(), float64(prover.Metrics().PeakReservedBytes)/(1<<30))
		if n > 1 {
			logf("steady state: %.1f s per proof (proof 1 to proof %d)", (done[n-1]-done[0]).Seconds()/float64(n-1), n)
		}
	}
}
