package main

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/gpuc2/gpuc2"
	"github.com/gpuc2/gpuc2/synth/porep"
	"github.com/gpuc2/gpuc2/trace"
)

// runPipeline proves o.count sectors at once through the facade: the given
// C1 for each when it came from -c1, else synthetic sectors with
// consecutive sector numbers from -sector-number.
func runPipeline(ctx context.Context, o *options, first *porep.C1, tracer *trace.Tracer) error {
	miner := porep.ActorID(o.miner)
	reqs := make([]gpuc2.SealRequest, o.count)
	for i := range reqs {
		c1 := first
		sector := porep.SectorNumber(o.sector)
		if o.c1File == "" && i > 0 {
			sector += porep.SectorNumber(i)
			var err error
			if c1, err = loadC1(ctx, o, miner, sector); err != nil {
				return err
			}
		}
		raw, err := c1.EncodeJSON()
		if err != nil {
			return err
		}
		reqs[i] = gpuc2.SealRequest{C1: raw, Sector: sector, Miner: miner}
	}

	cfg := gpuc2.Config{ParamsDir: o.paramsDir, Backend: gpuc2.Backend(o.backend), Tracer: tracer}
	if gpuc2.IsTestSize(first.RegisteredProof) {
		if cache, err := os.UserCacheDir(); err == nil {
			cfg.TestParamsDir = cache // a TEST-ONLY setup when the real files are missing
		}
	}
	var mu sync.Mutex
	stages := map[uint64]string{}
	cfg.Progress = func(e gpuc2.Progress) {
		mu.Lock()
		defer mu.Unlock()
		stages[e.Proof] = fmt.Sprintf("%d/%d %s", e.Partition+1, e.Partitions, e.Stage)
		line := ""
		for i := uint64(1); i <= uint64(o.count); i++ {
			if s, ok := stages[i]; ok {
				line += fmt.Sprintf("  #%d %-16s", i, s)
			}
		}
		fmt.Printf("\r\033[K%s", line)
	}
	need, err := gpuc2.Requirements(first.RegisteredProof, cfg)
	if err != nil {
		return err
	}
	p, err := gpuc2.New(ctx, cfg)
	if err != nil {
		return err
	}
	defer p.Close()
	fmt.Printf("pipeline: %d proofs of %v on %s; one needs %.1f GiB host (%.1f GiB per partition), %.1f GiB VRAM, %d GPU\n",
		o.count, first.RegisteredProof, p.Backend(), gib(need.HostBytes), gib(need.PartitionHostBytes), gib(need.VRAMBytes), need.GPUs)
	if gpuc2.IsTestSize(first.RegisteredProof) {
		done := ticker("parameters (a TEST-ONLY setup is created once when the real files are missing)")
		err := p.Preload(ctx, first.RegisteredProof)
		done()
		if err != nil {
			return err
		}
	}

	results := make([]*gpuc2.SealResult, o.count)
	errs := make([]error, o.count)
	start := time.Now()
	var wg sync.WaitGroup
	for i := range reqs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i], errs[i] = p.ProveSeal(ctx, reqs[i])
		}()
	}
	wg.Wait()
	wall := time.Since(start)
	fmt.Print("\r\033[K")
	if err := errors.Join(errs...); err != nil {
		return err
	}

	ok := true
	for i, r := range results {
		t := r.Timings
		good, err := p.VerifySeal(r.VerifyInfo)
		if err != nil {
			return err
		}
		ok = ok && good
		fmt.Printf("proof %d (sector %d): %.1f s = queue %.1f + params %.1f + synthesis %.1f + prove %.1f + verify %.1f (partition sums), devices %v, VerifySeal %t\n",
			i+1, reqs[i].Sector, t.Total.Seconds(), t.Queue.Seconds(), t.ParamLoad.Seconds(), t.Synthesis.Seconds(),
			t.Prove.Seconds(), t.Verify.Seconds(), r.Devices, good)
	}
	st := p.Status()
	fmt.Printf("%d proofs in %.1f s: %.1f s per proof; host budget high-water %.1f of %.1f GiB\n",
		o.count, wall.Seconds(), wall.Seconds()/float64(o.count), gib(st.HostPeakBytes), gib(st.HostBudgetBytes))
	if tracer != nil {
		if err := writeTrace(o.traceFile, tracer); err != nil {
			return err
		}
	}
	b := results[0].Proof
	fmt.Printf("proof=%s bytes=%d verified=%t\n", hex.EncodeToString(b), len(b), ok)
	if !ok {
		return errors.New("a proof does not verify")
	}
	return nil
}

func gib(n int64) float64 { return float64(n) / (1 << 30) }
