package main

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/filecoin-project/go-state-types/abi"

	"github.com/gpuc2/gpuc2"
	"github.com/gpuc2/gpuc2/synth/porep"
	"github.com/gpuc2/gpuc2/trace"
)

// runPipeline proves o.count sectors at once through the facade: the given
// C1 for each when it came from -c1, else synthetic sectors with
// consecutive sector numbers from -sector-number.
func runPipeline(ctx context.Context, o *options, first *porep.C1, tracer *trace.Tracer) error {
	miner := abi.ActorID(o.miner)
	reqs := make([]gpuc2.SealRequest, o.count)
	for i := range reqs {
		c1 := first
		sector := abi.SectorNumber(o.sector)
		if o.c1File == "" && i > 0 {
			sector += abi.SectorNumber(i)
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

	cfg := gpuc2.Config{ParamsDir: o.paramsDir, Backend: gpuc2.Backend(o.backend), Tracer: tracer,
		WorkersPerDevice: o.workers, TestParamsDir: o.testParams, // a TEST-ONLY setup when the real files are missing
		// Which parameter file is used, and a warning for TEST-ONLY ones.
		Logger: slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelInfo}))}
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
	fmt.Printf("pipeline: %d proofs of %v on %s; one needs %.1f GiB host (%.1f GiB per partition; %.1f GiB with the parameters preloaded), %.1f GiB VRAM, %d GPU\n",
		o.count, porep.ProofName(first.RegisteredProof), p.Backend(), gib(need.HostBytes), gib(need.PartitionHostBytes), gib(need.PreloadedHostBytes),
		gib(need.VRAMBytes), need.GPUs)
	// The parameters decoded (and on the GPUs) before the clock starts, as a
	// long-running prover would have them.
	what := "parameters: loading"
	if cfg.TestParamsDir != "" && gpuc2.IsTestSize(first.RegisteredProof) {
		what += " (a TEST-ONLY setup is created once when the real files are missing)"
	}
	loadStart := time.Now()
	done := ticker(what)
	err = p.Preload(ctx, first.RegisteredProof)
	done()
	if err != nil {
		return err
	}
	where := "decoded"
	if p.Backend() == gpuc2.BackendCUDA {
		where = "resident on the GPU"
	}
	fmt.Printf("parameters: %s in %.1f s\n", where, time.Since(loadStart).Seconds())

	results := make([]*gpuc2.SealResult, o.count)
	errs := make([]error, o.count)
	doneAt := make([]time.Duration, o.count) // since start, when each proof returned
	start := time.Now()
	var wg sync.WaitGroup
	for i := range reqs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i], errs[i] = p.ProveSeal(ctx, reqs[i])
			doneAt[i] = time.Since(start)
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
	printSummary(p.Status(), results, doneAt, wall)
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

// printSummary prints the run's figures: the first proof's latency, the
// steady state, the stages (mean per proof; partition stages are summed
// over partitions, which overlap), peak host RSS and reserved VRAM.
func printSummary(st gpuc2.Status, results []*gpuc2.SealResult, doneAt []time.Duration, wall time.Duration) {
	n := len(results)
	sorted := slices.Clone(doneAt)
	slices.Sort(sorted)
	fmt.Printf("summary: %d proof(s) of %v on %s in %.1f s\n", n, porep.ProofName(results[0].VerifyInfo.SealProof), st.Backend, wall.Seconds())
	fmt.Printf("  latency of the first proof: %.1f s\n", sorted[0].Seconds())
	if n > 1 {
		fmt.Printf("  steady state: %.1f s per proof (first done → last done, over %d)\n",
			(sorted[n-1]-sorted[0]).Seconds()/float64(n-1), n-1)
	}
	fmt.Printf("  throughput: %.1f s per proof (total / %d)\n", wall.Seconds()/float64(n), n)
	var sum gpuc2.SealTimings
	for _, r := range results {
		sum.Add(r.Timings)
	}
	mean := func(d time.Duration) float64 { return d.Seconds() / float64(n) }
	fmt.Printf("  stages, mean per proof: total %.1f s = parse and check %.1f + params %.1f + partition sums: queue %.1f, synthesis %.1f, prove %.1f, verify %.1f\n",
		mean(sum.Total), mean(sum.Parse), mean(sum.ParamLoad), mean(sum.Queue), mean(sum.Synthesis), mean(sum.Prove), mean(sum.Verify))
	fmt.Printf("  host budget: high-water %.1f of %.1f GiB\n", gib(st.HostPeakBytes), gib(st.HostBudgetBytes))
	if hwm, err := peakRSS(); err == nil {
		fmt.Printf("  peak host RSS (VmHWM): %.1f GiB\n", gib(hwm))
	}
	for _, d := range st.Devices {
		fmt.Printf("  GPU %d: %d worker(s), peak reserved %.1f GiB of a %.1f GiB budget, compute busy %.1f s\n",
			d.Ordinal, d.Workers, gib(d.Gate.PeakReservedBytes), gib(d.Gate.BudgetBytes), d.Gate.ComputeBusy.Seconds())
	}
}

// peakRSS is the process's peak resident set (VmHWM of /proc/self/status; Linux).
func peakRSS() (int64, error) {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0, err
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			var kb int64
			if _, err := fmt.Sscanf(strings.TrimSpace(rest), "%d kB", &kb); err != nil {
				return 0, err
			}
			return kb << 10, nil
		}
	}
	return 0, errors.New("no VmHWM in /proc/self/status")
}

func gib(n int64) float64 { return float64(n) / (1 << 30) }
