package groth16_test

import (
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"testing"
	"time"

	"github.com/gpuc2/gpuc2/gpulock"
	"github.com/gpuc2/gpuc2/groth16"
	"github.com/gpuc2/gpuc2/native"
	"github.com/gpuc2/gpuc2/synth"
	"github.com/gpuc2/gpuc2/synth/porep"
)

var sectorSize = flag.String("sector", "", "BenchmarkCUDASector: sector size of the synthetic sector (2KiB … 32GiB); empty skips it")

// chachaReader is a deterministic io.Reader for TEST-ONLY setups.
type chachaReader struct{ r *rand.ChaCha8 }

func (c chachaReader) Read(p []byte) (int, error) { return c.r.Read(p) }

// BenchmarkCUDASector proves a whole synthetic sector on the GPU against a
// TEST-ONLY setup made for its circuit on the GPU (not Filecoin's
// parameters), and verifies every partition's proof: the full-size check
// that synthesis, setup and prover agree. Synthesis of partition k+1 runs
// while the GPU proves partition k. Run with -sector 32GiB -test.benchtime 1x.
func BenchmarkCUDASector(b *testing.B) {
	if *sectorSize == "" {
		b.Skip("set -sector SIZE")
	}
	if !native.Available() {
		b.Skip("no native CUDA library")
	}
	ctx := context.Background()
	logf := func(format string, args ...any) { fmt.Fprintf(os.Stderr, format+"\n", args...) }
	spt, err := proofForSize(*sectorSize)
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
	pk, err := groth16.Setup(ctx, circuit, chachaReader{rand.NewChaCha8([32]byte{1})}, groth16.WithSetupGPU(0))
	if err != nil {
		b.Fatal(err)
	}
	runtime.GC()
	c := pk.Counts()
	logf("%s: TEST-ONLY setup (recording included) with the GPU in %.1f s: h %d, l %d, a %d, b %d points (%.1f GiB)", *sectorSize,
		time.Since(t0).Seconds(), c.H, c.L, c.A, c.B, float64(groth16.KeyBytes(c))/(1<<30))

	devs, err := native.Devices()
	if err != nil {
		b.Fatal(err)
	}
	gate, err := gpulock.NewDevice(gpulock.Config{TotalBytes: int64(devs[0].TotalMemory), MarginBytes: 3 << 30})
	if err != nil {
		b.Fatal(err)
	}
	prover := &groth16.CUDAProver{Gate: gate}
	defer prover.Close()
	t0 = time.Now()
	if err := prover.Preload(ctx, pk); err != nil {
		b.Fatal(err)
	}
	logf("key resident on the GPU in %.1f s", time.Since(t0).Seconds())
	pvk := groth16.PrepareVerifyingKey(pk.VerifyingKey())

	for b.Loop() {
		start := time.Now()
		type synthesized struct {
			k   int
			w   *synth.ProvingAssignment
			dur time.Duration
			err error
		}
		ch := make(chan synthesized) // one partition synthesized ahead (waiting to be sent)
		go func() {
			defer close(ch)
			for k := range c1.VanillaProofs {
				t := time.Now()
				circ, err := c1.Circuit(k)
				if err != nil {
					ch <- synthesized{k: k, err: err}
					return
				}
				hint := circ.Params.Sizes()
				rows := hint.Rows + hint.Inputs
				for hint.Rows = 1; hint.Rows < rows; hint.Rows <<= 1 {
				}
				w := synth.NewProvingAssignment(hint)
				err = circ.Synthesize(ctx, w)
				ch <- synthesized{k, w, time.Since(t), err}
				if err != nil {
					return
				}
			}
		}()
		var synthTotal, gpuTotal time.Duration
		for s := range ch {
			if s.err != nil {
				b.Fatal(s.err)
			}
			t := time.Now()
			var tm groth16.Timings
			proof, err := prover.Prove(ctx, pk, s.w, groth16.WithTimings(&tm))
			if err != nil {
				b.Fatalf("partition %d: %v", s.k, err)
			}
			gpu := time.Since(t)
			public, err := porep.PublicInputs(c1, miner, sector, s.k)
			if err != nil {
				b.Fatal(err)
			}
			ok, err := pvk.Verify(proof, public)
			if err != nil || !ok {
				b.Fatalf("partition %d: proof does not verify (%v)", s.k, err)
			}
			synthTotal += s.dur
			gpuTotal += gpu
			logf("partition %d: synthesis %.2f s, GPU proof %.2f s (H %.2f, msm h %.2f, l %.2f, a %.2f, b_g1 %.2f, b_g2 %.2f), verified",
				s.k, s.dur.Seconds(), gpu.Seconds(), tm.H.Seconds(), tm.MSMH.Seconds(), tm.MSML.Seconds(), tm.MSMA.Seconds(), tm.MSMBG1.Seconds(), tm.MSMBG2.Seconds())
		}
		wall := time.Since(start)
		b.ReportMetric(wall.Seconds(), "s/sector")
		logf("%s sector: %d partitions proved and verified in %.1f s (synthesis %.1f s, GPU %.1f s in all)", *sectorSize,
			len(c1.VanillaProofs), wall.Seconds(), synthTotal.Seconds(), gpuTotal.Seconds())
	}
}
