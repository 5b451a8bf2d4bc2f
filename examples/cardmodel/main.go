// Command cardmodel estimates a proof's seconds on cards not measured here:
// cards of other device memory and host buses, from what one H100
// measured and from what the resource model says a partition moves from
// the host to the GPU.
//
//	go run ./examples/cardmodel     # PoRep 32 GiB: resident, 16, 24, 32 GiB at 25, 50, 55 GB/s
//	go run ./examples/cardmodel -memory 14GiB -bus 50GB/s -gpu-seconds 2.4
//	go run ./examples/cardmodel -update -gpu-seconds 1.4 -gap 0.15s   # SnapDeals: give its own figures
//
// For each device memory limit (-memory, as Config.DeviceMemoryLimit;
// "resident": none, the key on the GPU) it asks gpuc2.Requirements
// (gpuc2.UpdateRequirements with -update) with 2 GPU workers (-workers)
// for the mode a GPU proves in and PartitionBusBytes, what one partition
// moves from the host to the GPU in that mode; for each host-to-device
// bandwidth (-bus) it prints one line of
//
//	bus s       = PartitionBusBytes / bandwidth
//	s/partition = max(gpu, bus s) + gap    streaming
//	              max(gpu, bus s)          resident (the witness' upload hides in the previous partition's MSMs)
//	s/proof     = partitions × s/partition
//	× resident  = s/proof over the resident line's at the same bandwidth
//
// where gpu is -gpu-seconds, one partition's GPU work, and gap is -gap, what
// a streaming GPU measured idle a partition between its phases.
//
// The model assumes:
//   - the card computes like the H100 the defaults come from: a
//     partition's GPU work takes -gpu-seconds whatever the card's memory or
//     bus (scale it for a card that computes faster or slower);
//   - copies and kernels overlap fully but for the gap: a partition costs
//     the longer of its GPU work and its bus time, and streaming adds the
//     gap;
//   - one partition computes at a time on a GPU (the compute lock): a second
//     proof in flight ("at once") hides copies, it adds no compute;
//   - the first proof's load of the key (pinned or uploaded: 21–27 s on the
//     H100) and of the matrices is not counted: the figures are a steady
//     state, one GPU.
//
// It ignores: the GPU work a streamed MSM adds over a resident one (a
// bucket pass per chunk, a 0/1 split per chunk, the aux MSMs' kernels
// beside the h MSM); memory bandwidth (a consumer card's 0.9–1.8 TB/s
// against the H100's 3.35 slows H and the buckets more than its SMs say);
// the bus's direction and protocol (-bus is the pinned host-to-device
// rate the copies get: PCIe 4.0 x16 about 25 GB/s, PCIe 5.0 x16 about 50,
// the H100 host 55, assumed, not measured on such cards); a card whose
// default limit (its free memory less a sixteenth, at least 1 GiB) is below
// its size: give that limit (about 14.4 GiB on a 16 GB card); the host's
// side (synthesis keeping up, other processes on the bus).
//
// Without the native library (no GPU here) the plan takes the library's
// scratch bounds, not a device's answers: near a threshold the mode, the
// proofs at once and what crosses the bus may differ from what a card
// chooses (at 32 GiB a streamed proof that evaluates a, b, c on the GPU
// reserves 15.6 GiB by the bounds, 14.1 GiB on an H200, so under 14.4 GiB
// the model uploads a, b, c where such a card would stream the matrices).
//
// Checked against the H100 (BENCHMARKS.md, "Model: cards not measured
// here"): with the defaults it predicts 17.7 s per proof under 16 GiB at
// 55 GB/s, against 19.72 s measured (2026-12-06): 10 % low. The measured
// span a partition was 2.012 s, its GPU phases 89.2 % of it (1.79 s) and
// gaps the rest: the streamed GPU work itself took 0.21 s more than the
// resident 1.58 s, which the model ignores. Under 24 GiB (two proofs at
// once, full assignments over the bus) it predicts 17.7 s against 17.0
// measured (2026-12-05): 4 % high. Resident it predicts 15.8 s against
// 15.2–15.8 measured.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"strings"
	"time"

	"github.com/dustin/go-humanize"
	"github.com/filecoin-project/go-state-types/abi"

	"github.com/gpuc2/gpuc2"
	"github.com/gpuc2/gpuc2/examples/internal/cli"
	"github.com/gpuc2/gpuc2/groth16/gpu"
	"github.com/gpuc2/gpuc2/synth/porep"
	"github.com/gpuc2/gpuc2/synth/update"
)

// What one H100 80GB HBM3 measured proving four 32 GiB PoRep sectors with 2
// workers (BENCHMARKS.md, "The witness reserved ahead: four 32 GiB proofs
// before and after on an H100", 2026-12-06): the defaults of -gpu-seconds
// and -gap, which hold for that circuit only.
const (
	// h100GPUSeconds is a resident partition's GPU work: the means of H,
	// the MSMs and a, b, c's evaluation over the last 30 partitions (H
	// 0.37, h 0.89, b_g2 0.10, a 0.07, l 0.06, b_g1 0.05, a, b, c 0.04 s),
	// 1.58 s of a 1.59 s span.
	h100GPUSeconds = 1.58
	// h100Gap is the midpoint of the 150–230 ms the GPU's phases left idle
	// a partition under a 16 GiB limit (one streamed proof at a time; the
	// gaps overlap the wait for device memory and a, b, c's evaluation from
	// the streamed matrices).
	h100Gap = 190 * time.Millisecond
)

func main() {
	o, err := parseFlags(os.Args[1:], os.Stderr)
	if err == nil {
		err = run(o, os.Stdout)
	}
	cli.Exit("cardmodel", err) // 2 after a usage error: nothing was done
}

type options struct {
	size    string
	update  bool
	limits  []limit
	buses   []float64 // bytes a second
	gpu     float64   // seconds a partition
	gap     float64   // seconds a streamed partition
	workers int

	seal  abi.RegisteredSealProof   // of size, resolved by parseFlags
	upd   abi.RegisteredUpdateProof // with -update
	label string                    // "PoRep 32GiB", "SnapDeals 32GiB"
}

// limit is a device memory limit as given (name) and in bytes (0: none).
type limit struct {
	name  string
	bytes int64
}

// parseFlags parses and checks cardmodel's command line; usage and flag
// errors go to output.
func parseFlags(args []string, output io.Writer) (options, error) {
	o := options{}
	fs := flag.NewFlagSet("cardmodel", flag.ContinueOnError)
	fs.SetOutput(output)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), "usage: cardmodel [flags]\n\n"+
			"Estimates seconds per proof on GPUs of other device memory and host buses, from an H100's measured\n"+
			"GPU time per partition and the bytes a partition moves over the bus (gpuc2.Requirements).\n\n")
		fs.PrintDefaults()
	}
	memory := fs.String("memory", "resident,16GiB,24GiB,32GiB", "device memory limits, comma-separated: sizes (16GiB, 24GB) or resident (no limit)")
	bus := fs.String("bus", "25GB/s,50GB/s,55GB/s", "host-to-device bandwidths, comma-separated (PCIe 4.0 x16 ≈ 25GB/s, PCIe 5.0 x16 ≈ 50GB/s, the H100 host 55GB/s)")
	fs.StringVar(&o.size, "sector-size", "32GiB", "sector size: 2KiB, 8MiB, 512MiB, 32GiB or 64GiB")
	fs.BoolVar(&o.update, "update", false, "the SnapDeals update proof of the size instead of PoRep's")
	fs.Float64Var(&o.gpu, "gpu-seconds", h100GPUSeconds, "one partition's GPU work, in seconds; the default is a 32 GiB PoRep partition's on an H100, measured 2026-12-06")
	gap := fs.Duration("gap", h100Gap, "a streamed partition's idle GPU time between its phases; the default is the midpoint of the 150-230ms measured with 32 GiB PoRep on an H100 under 16 GiB, 2026-12-06")
	fs.IntVar(&o.workers, "workers", 2, "GPU workers (Config.WorkersPerDevice), as measured")
	if err := cli.Parse(fs, args); err != nil {
		return o, err
	}
	o.gap = gap.Seconds()
	var err error
	if o.limits, err = parseLimits(*memory); err != nil {
		return o, cli.Usagef("-memory: %w", err)
	}
	if o.buses, err = parseBuses(*bus); err != nil {
		return o, cli.Usagef("-bus: %w", err)
	}
	if o.gpu <= 0 || o.gap < 0 || o.workers < 1 {
		return o, cli.Usagef("-gpu-seconds must be positive, -gap not negative, -workers at least 1")
	}
	if o.update {
		if o.upd, err = update.ProofForSectorSize(o.size); err != nil {
			return o, cli.Usagef("-sector-size: %w", err)
		}
		o.label = "SnapDeals " + o.size
	} else {
		if o.seal, err = porep.ProofForSectorSize(o.size); err != nil {
			return o, cli.Usagef("-sector-size: %w", err)
		}
		o.label = "PoRep " + o.size
	}
	if o.update || o.size != "32GiB" { // the defaults are 32 GiB PoRep's
		set := map[string]bool{}
		fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
		if !set["gpu-seconds"] || !set["gap"] {
			return o, cli.Usagef("the default -gpu-seconds and -gap are 32 GiB PoRep's: give both for %s", o.label)
		}
	}
	return o, nil
}

// parseLimits reads -memory: sizes, or resident (no limit).
func parseLimits(s string) ([]limit, error) {
	var out []limit
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if f == "resident" {
			out = append(out, limit{name: f})
			continue
		}
		b, err := humanize.ParseBytes(f)
		if err != nil || b == 0 || b > math.MaxInt64 {
			return nil, fmt.Errorf("%q is neither a positive size nor resident", f)
		}
		out = append(out, limit{name: f, bytes: int64(b)})
	}
	return out, nil
}

// parseBuses reads -bus: rates such as 25GB/s, in bytes a second.
func parseBuses(s string) ([]float64, error) {
	var out []float64
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		n, ok := strings.CutSuffix(f, "/s")
		b, err := humanize.ParseBytes(n)
		if !ok || err != nil || b == 0 {
			return nil, fmt.Errorf("%q is not a rate such as 25GB/s", f)
		}
		out = append(out, float64(b))
	}
	return out, nil
}

// requirements is what the model reads of gpuc2 for a limit (0: none).
type requirements func(limit int64) (gpuc2.Resources, error)

// facade is requirements from gpuc2.Requirements or UpdateRequirements
// for o's proof type, with the CUDA backend.
func facade(o options) requirements {
	return func(limit int64) (gpuc2.Resources, error) {
		if limit == 0 {
			limit = math.MaxInt64 // none: not this machine's GPU either
		}
		cfg := gpuc2.Config{Backend: gpuc2.BackendCUDA, DeviceMemoryLimit: limit, WorkersPerDevice: o.workers}
		if o.update {
			return gpuc2.UpdateRequirements(o.upd, cfg)
		}
		return gpuc2.Requirements(o.seal, cfg)
	}
}

// estimate is the model: a partition moving bytes over a bus of bw bytes
// a second in mode, of work seconds of GPU work and, streaming, gap seconds
// idle: its bus seconds, its seconds and a proof's of partitions.
func estimate(mode gpu.DeviceMode, bytes int64, bw float64, partitions int, work, gap float64) (bus, partition, proof float64) {
	bus = float64(bytes) / bw
	partition = max(work, bus)
	if mode != gpu.ModeResident {
		partition += gap
	}
	return bus, partition, float64(partitions) * partition
}

// line is one line of the table: a limit at one bandwidth.
type line struct {
	limit      string
	r          gpuc2.Resources
	err        error // the limit cannot prove the type (r is the resident one's)
	bw         float64
	bus        float64 // seconds a partition on the bus
	partition  float64 // seconds a partition
	proof      float64 // seconds a proof
	vsResident float64 // proof over the resident line's at bw
}

// lines is the table: every limit at every bandwidth of o, from req.
func lines(o options, req requirements) ([]line, error) {
	resident, err := req(0)
	if err != nil {
		return nil, err
	}
	if resident.Mode != gpu.ModeResident {
		return nil, fmt.Errorf("no limit gives %s, not resident", resident.Mode)
	}
	var out []line
	for _, l := range o.limits {
		r, err := req(l.bytes)
		switch {
		case errors.Is(err, gpuc2.ErrOutOfDeviceMemory):
			out = append(out, line{limit: l.name, r: resident, err: err})
			continue
		case err != nil:
			return nil, fmt.Errorf("%s: %w", l.name, err)
		}
		for _, bw := range o.buses {
			_, _, base := estimate(resident.Mode, resident.PartitionBusBytes, bw, resident.Partitions, o.gpu, o.gap)
			ln := line{limit: l.name, r: r, bw: bw}
			ln.bus, ln.partition, ln.proof = estimate(r.Mode, r.PartitionBusBytes, bw, r.Partitions, o.gpu, o.gap)
			ln.vsResident = ln.proof / base
			out = append(out, ln)
		}
	}
	return out, nil
}

// run prints the table for o.
func run(o options, out io.Writer) error {
	ls, err := lines(o, facade(o))
	if err != nil {
		return err
	}
	r := ls[0].r
	from := "the circuit's: no parameter file found"
	if r.ParamsExact {
		from = "its parameter file's"
	}
	fmt.Fprintf(out, "%s: %d partitions, a %.1f GB key (sizes %s), %d GPU workers\n", o.label, r.Partitions, float64(r.ParamsBytes)/1e9, from, o.workers)
	fmt.Fprintf(out, "a partition: %.2f s of GPU work; streaming, %.2f s idle between phases\n\n", o.gpu, o.gap)
	writeTable(out, ls)
	return nil
}

// writeTable writes ls as a Markdown table.
func writeTable(out io.Writer, ls []line) {
	fmt.Fprintln(out, "| limit | mode | at once | over the bus a partition | GB | bus GB/s | bus s | s/partition | **s/proof** | × resident |")
	fmt.Fprintln(out, "|---|---|---|---|---|---|---|---|---|---|")
	for _, l := range ls {
		fmt.Fprintln(out, l.row())
	}
}

// row is l as a table row.
func (l line) row() string {
	if l.err != nil {
		return fmt.Sprintf("| %s | does not fit: a streamed proof needs %.1f GiB | | | | | | | | |", l.limit, float64(l.r.LeastDeviceMemory)/(1<<30))
	}
	return fmt.Sprintf("| %s | %s | %d | %s | %.1f | %.0f | %.2f | %.2f | **%.1f** | %.2f |", l.limit, l.r.Mode, l.r.ProofsPerGPU,
		crosses(l.r), float64(l.r.PartitionBusBytes)/1e9, l.bw/1e9, l.bus, l.partition, l.proof, l.vsResident)
}

// crosses says what r's partition moves over the bus (Resources.PartitionBusBytes).
func crosses(r gpuc2.Resources) string {
	s := "witness"
	if !r.MatricesOnGPU {
		s += ", a, b, c"
	}
	if r.Mode == gpu.ModeStreaming {
		s += ", key"
		if r.MatricesOnGPU {
			s += ", matrices"
		}
	}
	return s
}
