package gpuc2_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dustin/go-humanize"
	"github.com/filecoin-project/go-state-types/abi"
	"github.com/filecoin-project/go-state-types/proof"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuc2/gpuc2"
	"github.com/gpuc2/gpuc2/synth/porep"
	"github.com/gpuc2/gpuc2/trace"
)

// TestPoStGPU measures PoSt on a GPU (native/device-test.sh's "post"
// step), with the TEST-ONLY 32 GiB setups under GPUC2_POST_CACHE (made
// with examples/testsetup -post window|winning, and for the in-flight
// case the PoRep one), once per device memory limit in GPUC2_POST_LIMITS
// ("unlimited 16GiB"), the constraint matrices cached in GPUC2_POST_CACHE's
// matrices folder:
//
//   - window: a 32 GiB WindowPoSt partition of 2,349 sectors, request →
//     proof twice (the key and its matrices preloaded), then three
//     partitions at once: the steady rate;
//   - winning: a 32 GiB WinningPoSt, idle, three times;
//   - inflight: four 32 GiB PoRep proofs alone, then again with a
//     WinningPoSt (CRITICAL) sent once their first partition proves.
//
// Lines starting RESULT are the figures. Every proof is self-verified.
// GPUC2_POST_TRACE=<prefix> writes each limit's trace (Perfetto;
// native/trace-stats.py) to <prefix>-<limit>.json.
func TestPoStGPU(t *testing.T) {
	cache := os.Getenv("GPUC2_POST_CACHE")
	if os.Getenv("GPUC2_TEST_POST_GPU") == "" || cache == "" {
		t.Skip("set GPUC2_TEST_POST_GPU=1 and GPUC2_POST_CACHE on a GPU machine")
	}
	steps := strings.Fields(os.Getenv("GPUC2_POST_STEPS"))
	if len(steps) == 0 {
		steps = []string{"window", "winning", "inflight"}
	}
	// GPUC2_POST_SIZE and GPUC2_POST_BACKEND are for a dry run on the CPU at
	// a small size.
	if size := os.Getenv("GPUC2_POST_SIZE"); size != "" {
		spt, err := porep.ProofForSectorSize(size)
		require.NoError(t, err)
		postBench.size, postBench.seal = size, spt
		postBench.winning, err = spt.RegisteredWinningPoStProof()
		require.NoError(t, err)
		w, err := spt.RegisteredWindowPoStProof()
		require.NoError(t, err)
		postBench.window, err = w.ToV1_1PostProof()
		require.NoError(t, err)
	}
	backend := gpuc2.BackendCUDA
	if b := os.Getenv("GPUC2_POST_BACKEND"); b != "" {
		backend = gpuc2.Backend(b)
	}
	limits := strings.Fields(os.Getenv("GPUC2_POST_LIMITS"))
	if len(limits) == 0 {
		limits = []string{"unlimited"}
	}
	for _, limit := range limits {
		var bytes uint64
		if limit != "unlimited" {
			var err error
			bytes, err = humanize.ParseBytes(limit)
			require.NoError(t, err)
		}
		t.Run(limit, func(t *testing.T) {
			ctx := context.Background()
			// The matrices cached beside the setups: a later call on the same
			// machine reads them (about 30 s at 32 GiB) instead of recording
			// them (about 90 s).
			// GPUC2_POST_MATRICES puts them elsewhere (a 32 GiB WindowPoSt key
			// and its matrices, 67 GB, crowd a 64 GiB disk) or, "none", nowhere.
			matrices := filepath.Join(cache, "matrices")
			if dir := os.Getenv("GPUC2_POST_MATRICES"); dir != "" {
				matrices = dir
			}
			var tracer *trace.Tracer
			if prefix := os.Getenv("GPUC2_POST_TRACE"); prefix != "" {
				tracer = trace.New()
				defer func() {
					f, err := os.Create(prefix + "-" + limit + ".json")
					require.NoError(t, err)
					defer f.Close()
					require.NoError(t, tracer.WriteJSON(f))
				}()
			}
			p, err := gpuc2.New(ctx, gpuc2.Config{ParamsDir: t.TempDir(), TestParamsDir: cache, Backend: backend,
				WorkersPerDevice: 2, DeviceMemoryLimit: int64(bytes), MatricesCacheDir: matrices, Tracer: tracer})
			require.NoError(t, err)
			defer p.Close()
			res := func(format string, args ...any) { t.Logf("RESULT %s: "+format, append([]any{limit}, args...)...) }
			for _, step := range steps {
				switch step {
				case "window":
					postWindowGPU(t, p, res)
				case "winning":
					postWinningGPU(t, p, res)
				case "inflight":
					postInFlightGPU(t, p, res)
				}
			}
		})
	}
}

// postBench are the types TestPoStGPU proves.
var postBench = struct {
	size            string
	seal            abi.RegisteredSealProof
	window, winning abi.RegisteredPoStProof
}{"32GiB", abi.RegisteredSealProof_StackedDrg32GiBV1_1, abi.RegisteredPoStProof_StackedDrgWindow32GiBV1_1,
	abi.RegisteredPoStProof_StackedDrgWinning32GiBV1}

func postWindowGPU(t *testing.T, p *gpuc2.Prover, res func(string, ...any)) {
	ctx := context.Background()
	pt := postBench.window
	if _, err := os.Stat(gpuc2.PoStTestParamsPath(os.Getenv("GPUC2_POST_CACHE"), pt)); err != nil {
		t.Logf("no WindowPoSt setup: %v", err)
		return
	}
	start := time.Now()
	require.NoError(t, p.PreloadPoSt(ctx, pt))
	res("WindowPoSt %s key preload %.1f s", postBench.size, time.Since(start).Seconds())
	sectors := 2349
	if c, _ := gpuc2.PoStProofCircuit(pt); c.SectorSize < 32<<30 {
		sectors = 2
	}
	ids := make([]uint64, sectors)
	for i := range ids {
		ids[i] = uint64(10 + i)
	}
	reqs := make([]gpuc2.PoStRequest, 5)
	start = time.Now()
	for k := range reqs {
		rnd := abi.PoStRandomness{byte(k + 1), 7, 31: 0x21}
		s := newSyntheticPoSt(t, pt, postBench.seal, rnd, ids...)
		reqs[k] = gpuc2.PoStRequest{ProofType: pt, Miner: 1000, Randomness: rnd, VanillaProofs: s.vanilla, Partition: k,
			Priority: gpuc2.PriorityHigh}
	}
	res("5 synthetic partitions of %d sectors made in %.1f s (%d bytes of vanilla proofs each)", sectors, time.Since(start).Seconds(),
		len(slices.Concat(reqs[0].VanillaProofs...)))
	start = time.Now()
	r, err := p.ProvePoSt(ctx, reqs[0])
	require.NoError(t, err)
	res("WindowPoSt %s first partition request → proof %.2f s (parse+check %.2f s, synthesis %.2f s, prove %.2f s)",
		postBench.size, time.Since(start).Seconds(), r.Timings.Parse.Seconds(), r.Timings.Synthesis.Seconds(), r.Timings.Prove.Seconds())
	start = time.Now()
	r, err = p.ProvePoSt(ctx, reqs[1])
	require.NoError(t, err)
	res("WindowPoSt %s second partition request → proof %.2f s (parse+check %.2f s, synthesis %.2f s, prove %.2f s)",
		postBench.size, time.Since(start).Seconds(), r.Timings.Parse.Seconds(), r.Timings.Synthesis.Seconds(), r.Timings.Prove.Seconds())
	start = time.Now()
	var wg sync.WaitGroup
	for _, req := range reqs[2:] {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := p.ProvePoSt(ctx, req)
			assert.NoError(t, err)
		}()
	}
	wg.Wait()
	d := time.Since(start)
	res("WindowPoSt %s three partitions at once %.2f s: %.1f partitions/min", postBench.size, d.Seconds(), 3/d.Minutes())
}

func postWinningGPU(t *testing.T, p *gpuc2.Prover, res func(string, ...any)) {
	ctx := context.Background()
	pt := postBench.winning
	start := time.Now()
	require.NoError(t, p.PreloadPoSt(ctx, pt))
	res("WinningPoSt %s key preload %.1f s", postBench.size, time.Since(start).Seconds())
	for i := range 3 {
		rnd := abi.PoStRandomness{byte(i + 1), 9, 31: 0x01}
		s := newSyntheticPoSt(t, pt, postBench.seal, rnd, uint64(500+i))
		start := time.Now()
		pps, err := p.GenerateWinningPoStWithVanilla(ctx, pt, 1000, rnd, s.vanilla)
		require.NoError(t, err)
		d := time.Since(start)
		ok, err := p.VerifyWinningPoSt(proof.WinningPoStVerifyInfo{Randomness: rnd, Proofs: pps, ChallengedSectors: s.sectors})
		require.NoError(t, err)
		require.True(t, ok)
		res("WinningPoSt %s idle request → proof %.3f s (run %d)", postBench.size, d.Seconds(), i)
	}
}

func postInFlightGPU(t *testing.T, p *gpuc2.Prover, res func(string, ...any)) {
	ctx := context.Background()
	spt := postBench.seal
	if _, err := os.Stat(gpuc2.TestParamsPath(os.Getenv("GPUC2_POST_CACHE"), spt)); err != nil {
		t.Logf("no PoRep setup: %v", err)
		return
	}
	start := time.Now()
	require.NoError(t, p.Preload(ctx, spt))
	require.NoError(t, p.PreloadPoSt(ctx, postBench.winning))
	res("PoRep %s key preload %.1f s", postBench.size, time.Since(start).Seconds())
	c1s := make([][]byte, 4)
	for i := range c1s {
		c1, err := porep.SyntheticC1(ctx, spt, 1000, abi.SectorNumber(i+1), [32]byte{byte(i + 1)})
		require.NoError(t, err)
		if c1s[i], err = c1.EncodeJSON(); err != nil {
			t.Fatal(err)
		}
	}
	four := func(label string, during func()) time.Duration {
		start := time.Now()
		var wg sync.WaitGroup
		for i, c1 := range c1s {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, err := p.ProveSeal(ctx, gpuc2.SealRequest{C1: c1, Sector: abi.SectorNumber(i + 1), Miner: 1000, Label: label})
				assert.NoError(t, err)
			}()
		}
		if during != nil {
			during()
		}
		wg.Wait()
		return time.Since(start)
	}
	alone := four("alone", nil)
	res("four PoRep %s proofs alone %.1f s (%.2f s/proof)", postBench.size, alone.Seconds(), alone.Seconds()/4)
	pt := postBench.winning
	rnd := abi.PoStRandomness{77, 31: 0x02}
	s := newSyntheticPoSt(t, pt, spt, rnd, 999)
	var winning time.Duration
	with := four("with", func() {
		// once the first partition is on the GPU
		for deadline := time.Now().Add(5 * time.Minute); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
			if p.Status().PartitionsProving > 0 {
				break
			}
		}
		time.Sleep(500 * time.Millisecond) // mid-partition
		start := time.Now()
		_, err := p.ProvePoSt(ctx, gpuc2.PoStRequest{ProofType: pt, Miner: 1000, Randomness: rnd, VanillaProofs: s.vanilla,
			Priority: gpuc2.PriorityCritical})
		assert.NoError(t, err)
		winning = time.Since(start)
	})
	res("WinningPoSt %s request → proof with four PoRep proofs in flight %.2f s", postBench.size, winning.Seconds())
	res("four PoRep %s proofs with the WinningPoSt %.1f s (%.2f s/proof; alone %.1f s)", postBench.size, with.Seconds(), with.Seconds()/4,
		alone.Seconds())
}
