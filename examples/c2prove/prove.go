package main

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/gpuc2/gpuc2"
	"github.com/gpuc2/gpuc2/groth16/gpu"
	"github.com/gpuc2/gpuc2/trace"
)

// prove proves jobs at once through a gpuc2.Prover, checks each with
// VerifySeal (VerifyUpdateProof for updates), prints their timings and a
// summary, writes the trace, and ends with the first proof's line.
func prove(ctx context.Context, o *options, jobs []proofJob, tracer *trace.Tracer, d *display) error {
	track := newTracker(d)
	cfg := gpuc2.Config{ParamsDir: o.paramsDir, Backend: gpuc2.Backend(o.backend), Devices: o.devices, Tracer: tracer,
		WorkersPerDevice: o.workers, DeviceMemoryLimit: o.deviceMem, ConstraintMatrices: o.matricesMode(),
		// Which parameter file is used, and a warning for TEST-ONLY ones.
		Logger:   slog.New(slog.NewTextHandler(d.stderr(), &slog.HandlerOptions{Level: slog.LevelInfo})),
		Progress: track.report}
	if o.testOnly != "" {
		cfg.TestParamsDir = o.testParams // check found no real files: a TEST-ONLY setup
	}
	var need gpuc2.Resources
	var err error
	if o.update {
		need, err = gpuc2.UpdateRequirements(o.upt, cfg)
	} else {
		need, err = gpuc2.Requirements(o.spt, cfg)
	}
	if err != nil {
		return err
	}
	p, err := gpuc2.New(ctx, cfg)
	if err != nil {
		return err
	}
	defer p.Close()
	// Sampled from here, the key's load included; with -memprofile, a heap
	// profile at the resident set's peak too (FILE.peak).
	peakProfile := ""
	if o.memProfile != "" {
		peakProfile = o.memProfile + ".peak"
	}
	mem := startMemSampler(gpu.PinnedHostBytes, peakProfile, 1<<30, time.Second) // Status' figure, without its device queries
	if mem != nil {
		defer mem.stop() // on the paths that return before the summary
	}
	d.printf("pipeline: %d proofs of %v on %s; one needs %.1f GiB host (%.1f GiB per partition; %.1f GiB with the parameters preloaded; the first %.1f GiB more for the constraint matrices), %.1f GiB VRAM, %d GPU",
		len(jobs), o.proofName(), p.Backend(), gib(need.HostBytes), gib(need.PartitionHostBytes), gib(need.PreloadedHostBytes),
		gib(need.MatricesLoadBytes), gib(need.VRAMBytes), need.GPUs)
	if need.GPUs > 0 {
		d.printf("device memory: %s mode under a limit of %.1f GiB per GPU (a proof %.1f GiB of VRAM, %d at once; least limit %.1f GiB), %.1f GiB pinned host memory",
			need.Mode, gib(need.DeviceMemoryLimit), gib(need.ProofVRAMBytes), need.ProofsPerGPU, gib(need.LeastDeviceMemory), gib(need.PinnedBytes))
	}
	if need.MatricesBytes > 0 {
		where := "a, b, c evaluated on the host"
		switch {
		case need.MatricesOnGPU && need.Mode == gpu.ModeStreaming:
			where = "a, b, c evaluated on the GPU, the matrices streamed from pinned host memory with the key"
		case need.MatricesOnGPU:
			where = "resident on the GPU: only the witness crosses the bus"
		}
		d.printf("constraint matrices: about %.1f GiB, recorded on the first proof (or read from the cache); %s", gib(need.MatricesBytes), where)
	}
	if err := preload(ctx, p, o, d); err != nil {
		return err
	}

	results := make([]*outcome, len(jobs))
	errs := make([]error, len(jobs))
	doneAt := make([]time.Duration, len(jobs)) // since start, when each proof returned
	start := time.Now()
	track.begin(start)
	var wg sync.WaitGroup
	for i := range jobs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i], errs[i] = jobs[i].run(ctx, p)
			doneAt[i] = time.Since(start)
		}()
	}
	wg.Wait()
	wall := time.Since(start)
	d.end()
	if err := errors.Join(errs...); err != nil {
		return err
	}

	ok := true
	timings := make([]gpuc2.ProofTimings, len(results))
	for i, r := range results {
		t := r.timings
		timings[i] = t
		good, err := r.check(p)
		if err != nil {
			return err
		}
		ok = ok && good
		d.printf("proof %d (%s): %.1f s = queue %.1f + params %.1f + synthesis %.1f + prove %.1f + verify %.1f (partition sums), devices %v, %s %t",
			i+1, jobs[i].label, t.Total.Seconds(), t.Queue.Seconds(), t.ParamLoad.Seconds(), t.Synthesis.Seconds(),
			t.Prove.Seconds(), t.Verify.Seconds(), r.devices, r.checkBy, good)
	}
	printSummary(p.Status(), o.proofName(), timings, doneAt, wall, need)
	if mem != nil {
		peak, err := mem.stop()
		if err != nil {
			return fmt.Errorf("-memprofile: the profile at the peak: %w", err)
		}
		fmt.Printf("  at the sampled RSS peak, %v\n", peak)
	}
	if o.memProfile != "" {
		if err := writeHeapProfile(o.memProfile); err != nil {
			return err
		}
	}
	if tracer != nil {
		if err := writeTrace(o.traceFile, tracer); err != nil {
			return err
		}
	}
	b := results[0].proof
	params := o.params
	if o.testOnly != "" {
		params = "TEST-ONLY"
	}
	d.printf("proof=%s bytes=%d verified=%t params=%s", hex.EncodeToString(b), len(b), ok, params)
	if !ok {
		return errors.New("a proof does not verify")
	}
	return nil
}

// tracker follows the partitions of the proofs in flight for the display
// (gpuc2.Config.Progress): each one's phase, and since when. On a terminal
// the status line shows, per proof, its partitions at work with their
// phase and its time so far; elsewhere each phase's start is a line.
type tracker struct {
	d     *display
	mu    sync.Mutex
	start time.Time
	parts map[[2]int]*partition // by (proof, partition)
	order [][2]int              // the keys, in (proof, partition) order
}

func cmpKey(a, b [2]int) int {
	if a[0] != b[0] {
		return a[0] - b[0]
	}
	return a[1] - b[1]
}

// partition is a partition's running phase.
type partition struct {
	of    int
	phase string
	since time.Time
	done  bool
}

func newTracker(d *display) *tracker {
	return &tracker{d: d, parts: map[[2]int]*partition{}}
}

// begin starts the status line, the proofs being put in flight at start.
func (t *tracker) begin(start time.Time) {
	t.mu.Lock()
	t.start = start
	t.mu.Unlock()
	t.d.begin(t.status)
}

// phase names what e starts: its stage, or with StageProving the prover's
// phase (H, the MSMs); StageProved is followed by self-verification.
func phase(e gpuc2.Progress) string {
	switch e.Stage {
	case gpuc2.StageProving:
		switch {
		case e.Phase != "":
			return e.Phase
		case e.Device >= 0:
			return fmt.Sprintf("proving on GPU %d", e.Device)
		}
		return "proving"
	case gpuc2.StageProved:
		return "verify"
	case gpuc2.StageFailed:
		return fmt.Sprintf("failed: %v", e.Err)
	}
	return string(e.Stage)
}

func (t *tracker) report(e gpuc2.Progress) {
	now := time.Now()
	name := phase(e)
	t.mu.Lock()
	key := [2]int{int(e.Proof), e.Partition}
	p := t.parts[key]
	if p == nil {
		p = &partition{of: e.Partitions}
		t.parts[key] = p
		i, _ := slices.BinarySearchFunc(t.order, key, cmpKey)
		t.order = slices.Insert(t.order, i, key)
	}
	line := fmt.Sprintf("progress %.1f s: #%d partition %d/%d %s", now.Sub(t.start).Seconds(), e.Proof, e.Partition+1, e.Partitions, name)
	if p.phase != "" {
		line += fmt.Sprintf(" (%s took %.1f s)", p.phase, now.Sub(p.since).Seconds())
	}
	p.phase, p.since = name, now
	p.done = e.Stage == gpuc2.StageVerified
	started := !t.start.IsZero()
	t.mu.Unlock()
	if started {
		t.d.change(line)
	}
}

// status is the terminal's status line: per proof, the partitions at work
// (queued ones only when none is), with their phase and its time so far,
// and how many are done.
func (t *tracker) status() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	now := time.Now()
	var b strings.Builder
	fmt.Fprintf(&b, "proving %.0fs", now.Sub(t.start).Seconds())
	proof, done := -1, 0
	var busy, queued []string
	flush := func() {
		if len(busy) == 0 {
			busy = queued
		}
		switch {
		case proof < 0:
		case len(busy) == 0:
			fmt.Fprintf(&b, " · #%d done", proof)
		case done > 0:
			fmt.Fprintf(&b, " · #%d %s (%d done)", proof, strings.Join(busy, ", "), done)
		default:
			fmt.Fprintf(&b, " · #%d %s", proof, strings.Join(busy, ", "))
		}
	}
	for _, k := range t.order {
		if k[0] != proof {
			flush()
			proof, done, busy, queued = k[0], 0, nil, nil
		}
		p := t.parts[k]
		s := fmt.Sprintf("%d/%d %s %.1fs", k[1]+1, p.of, p.phase, now.Sub(p.since).Seconds())
		switch {
		case p.done:
			done++
		case p.phase == string(gpuc2.StageQueued):
			queued = append(queued, s)
		default:
			busy = append(busy, s)
		}
	}
	flush()
	return b.String()
}

// preload loads the parameters (decoded, and on the GPUs) before the clock
// starts, as a long-running prover would have them.
func preload(ctx context.Context, p *gpuc2.Prover, o *options, d *display) error {
	verb, file := "loading", o.params
	if o.testOnly != "" {
		file = o.testOnly
		if _, err := os.Stat(file); err != nil {
			verb = "creating (once; about a minute on 2 cores at 2 KiB)"
		}
	}
	start := time.Now()
	d.printf("parameters: %s %s", verb, file)
	d.begin(func() string {
		return fmt.Sprintf("parameters: %s %s… %.0fs", verb, filepath.Base(file), time.Since(start).Seconds())
	})
	var err error
	if o.update {
		err = p.PreloadUpdate(ctx, o.upt)
	} else {
		err = p.Preload(ctx, o.spt)
	}
	d.end()
	if err != nil {
		return err
	}
	where := "decoded"
	if devs := p.Status().Devices; len(devs) > 0 {
		where = "resident on the GPU"
		if devs[0].Mode == gpu.ModeStreaming {
			where = "decoded into pinned host memory (streamed to the GPU per proof)"
		}
	}
	d.printf("parameters: %s in %.1f s", where, time.Since(start).Seconds())
	return nil
}

// printSummary prints the run's figures: the first proof's latency, the
// steady state, the stages (mean per proof; partition stages are summed
// over partitions, which overlap), peak host RSS beside the Requirements
// it was predicted by (need), and reserved VRAM.
func printSummary(st gpuc2.Status, proofName string, timings []gpuc2.ProofTimings, doneAt []time.Duration, wall time.Duration, need gpuc2.Resources) {
	n := len(timings)
	sorted := slices.Clone(doneAt)
	slices.Sort(sorted)
	fmt.Printf("summary: %d proof(s) of %v on %s in %.1f s\n", n, proofName, st.Backend, wall.Seconds())
	fmt.Printf("  latency of the first proof: %.1f s\n", sorted[0].Seconds())
	if n > 1 {
		fmt.Printf("  steady state: %.1f s per proof (first done → last done, over %d)\n",
			(sorted[n-1]-sorted[0]).Seconds()/float64(n-1), n-1)
	}
	fmt.Printf("  throughput: %.1f s per proof (total / %d)\n", wall.Seconds()/float64(n), n)
	var sum gpuc2.ProofTimings
	for _, t := range timings {
		sum.Add(t)
	}
	mean := func(d time.Duration) float64 { return d.Seconds() / float64(n) }
	fmt.Printf("  stages, mean per proof: total %.1f s = parse and check %.1f + params %.1f + partition sums: queue %.1f, synthesis %.1f, prove %.1f, verify %.1f\n",
		mean(sum.Total), mean(sum.Parse), mean(sum.ParamLoad), mean(sum.Queue), mean(sum.Synthesis), mean(sum.Prove), mean(sum.Verify))
	fmt.Printf("  host budget: high-water %.1f of %.1f GiB\n", gib(st.HostPeakBytes), gib(st.HostBudgetBytes))
	if hwm, err := peakRSS(); err == nil {
		fmt.Printf("  peak host RSS (VmHWM): %.1f GiB\n", gib(hwm))
		// c2prove preloads the parameters: PreloadedHostBytes is its prediction.
		fmt.Printf("  host peak: predicted %.2f GiB (Requirements' PreloadedHostBytes), measured %.2f GiB (VmHWM): %.1f %% of the measured\n",
			gib(need.PreloadedHostBytes), gib(hwm), 100*float64(need.PreloadedHostBytes)/float64(hwm))
	}
	// Pinned memory is outside the Go heap; the heap's retained pages are
	// what the GC's goal let it grow to (they are returned only slowly).
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	fmt.Printf("  Go heap now: %.1f GiB retained from the OS (%.1f in use, %.1f idle), GC goal %.1f GiB, %d GCs\n",
		gib(int64(ms.HeapSys-ms.HeapReleased)), gib(int64(ms.HeapInuse)), gib(int64(ms.HeapIdle-ms.HeapReleased)),
		gib(int64(ms.NextGC)), ms.NumGC)
	for _, d := range st.Devices {
		fmt.Printf("  GPU %d: %s mode, %d worker(s), peak reserved %.1f GiB of a %.1f GiB limit, pool high-water %.1f GiB, compute busy %.1f s\n",
			d.Ordinal, d.Mode, d.Workers, gib(d.Gate.PeakReservedBytes), gib(d.Gate.MemoryLimitBytes), gib(d.PoolHighWaterBytes), d.Gate.ComputeBusy.Seconds())
	}
}

// peakRSS is the process's peak resident set (VmHWM of /proc/self/status; Linux).
func peakRSS() (int64, error) { return procStatus("VmHWM:") }

func gib(n int64) float64 { return float64(n) / (1 << 30) }

// writeHeapProfile writes the heap profile as of a fresh GC: what the run
// holds live (inuse) and what it allocated in all (alloc).
func writeHeapProfile(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	runtime.GC()
	if err := pprof.WriteHeapProfile(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func writeTrace(path string, t *trace.Tracer) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := t.WriteJSON(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
