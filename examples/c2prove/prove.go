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

// prove proves reqs (proofs of type spt) at once through a gpuc2.Prover,
// checks each with VerifySeal, prints their timings and a summary, writes
// the trace, and ends with the first proof's line.
func prove(ctx context.Context, o *options, spt abi.RegisteredSealProof, reqs []gpuc2.SealRequest, tracer *trace.Tracer) error {
	cfg := gpuc2.Config{ParamsDir: o.paramsDir, Backend: gpuc2.Backend(o.backend), Devices: o.devices, Tracer: tracer,
		WorkersPerDevice: o.workers, TestParamsDir: o.testParams, // a TEST-ONLY setup when the real files are missing
		// Which parameter file is used, and a warning for TEST-ONLY ones.
		Logger:   slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelInfo})),
		Progress: progressLine(len(reqs))}
	need, err := gpuc2.Requirements(spt, cfg)
	if err != nil {
		return err
	}
	p, err := gpuc2.New(ctx, cfg)
	if err != nil {
		return err
	}
	defer p.Close()
	fmt.Printf("pipeline: %d proofs of %v on %s; one needs %.1f GiB host (%.1f GiB per partition; %.1f GiB with the parameters preloaded), %.1f GiB VRAM, %d GPU\n",
		len(reqs), porep.ProofName(spt), p.Backend(), gib(need.HostBytes), gib(need.PartitionHostBytes), gib(need.PreloadedHostBytes),
		gib(need.VRAMBytes), need.GPUs)
	if err := preload(ctx, p, spt, cfg.TestParamsDir != ""); err != nil {
		return err
	}

	results := make([]*gpuc2.SealResult, len(reqs))
	errs := make([]error, len(reqs))
	doneAt := make([]time.Duration, len(reqs)) // since start, when each proof returned
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

// progressLine returns a Config.Progress that redraws one status line: each
// proof's latest partition stage.
func progressLine(count int) func(gpuc2.Progress) {
	var mu sync.Mutex
	stages := map[uint64]string{}
	return func(e gpuc2.Progress) {
		mu.Lock()
		defer mu.Unlock()
		stages[e.Proof] = fmt.Sprintf("%d/%d %s", e.Partition+1, e.Partitions, e.Stage)
		line := ""
		for i := uint64(1); i <= uint64(count); i++ {
			if s, ok := stages[i]; ok {
				line += fmt.Sprintf("  #%d %-16s", i, s)
			}
		}
		fmt.Printf("\r\033[K%s", line)
	}
}

// preload loads the parameters (decoded, and on the GPUs) before the clock
// starts, as a long-running prover would have them.
func preload(ctx context.Context, p *gpuc2.Prover, spt abi.RegisteredSealProof, testParams bool) error {
	what := "parameters: loading"
	if testParams && gpuc2.IsTestSize(spt) {
		what += " (a TEST-ONLY setup is created once when the real files are missing)"
	}
	start := time.Now()
	done := ticker(what)
	err := p.Preload(ctx, spt)
	done()
	if err != nil {
		return err
	}
	where := "decoded"
	if p.Backend() == gpuc2.BackendCUDA {
		where = "resident on the GPU"
	}
	fmt.Printf("parameters: %s in %.1f s\n", where, time.Since(start).Seconds())
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
