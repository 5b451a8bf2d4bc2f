package gpuc2

import (
	"fmt"
	"log/slog"
	"os"
	"runtime"
	"strconv"

	"github.com/filecoin-project/go-state-types/abi"

	"github.com/gpuc2/gpuc2/groth16"
	"github.com/gpuc2/gpuc2/groth16/gpu"
	"github.com/gpuc2/gpuc2/internal/circuits"
)

// Resources are the resources one proof of a proof type needs, for a
// scheduler's admission (Curio's harmonytask costs): the host RAM, pinned
// host memory, VRAM per GPU and GPUs.
type Resources struct {
	Partitions  int
	Constraints int   // rows of one partition circuit, input rows included
	Domain      int64 // the FFT domain of a partition
	// PartitionHostBytes is one partition's working set: what the host
	// memory budget reserves per partition (a, b, c and the quotient's
	// scratch over the domain, inputs and aux, densities); the witness
	// alone when the GPU evaluates a, b, c from the constraint matrices.
	PartitionHostBytes int64
	// MatricesBytes is the circuit's compiled constraint matrices when
	// proofs use them (Config.ConstraintMatrices), estimated before they
	// are recorded: held on the host (in HostBytes; with MatricesOnGPU only
	// until every GPU has its copy, then their sizes and densities: pce's
	// WithoutArrays). MatricesOnGPU says the
	// GPUs evaluate a, b, c from them: in resident mode when they fit
	// beside the key and one proof (gpu.Plan's MatricesOnDevice; more
	// workers take turns), on each GPU (in VRAMBytes); in
	// streaming mode when a proof that holds its witness throughout costs
	// the GPU none of its overlap, streamed from a pinned copy (in
	// PinnedBytes and HostBytes, as gpu.PinnedMatricesBytes).
	MatricesBytes int64
	MatricesOnGPU bool
	// MatricesLoadBytes is host RAM the first proof of a parameter file
	// holds while it loads the matrices, when proofs use them: their
	// recording (pce.Profile.RecordingBytes, 19.1 GB at 32 GiB PoRep), or where
	// MatricesCacheDir holds the circuit's file, its check (one full
	// assignment beside the matrices read back, 22.9 GB). HostBytes counts
	// it (the witnesses made meanwhile beside it). 0 without matrices.
	MatricesLoadBytes int64
	// ParamsBytes is the size of the .params file; the decoded sections
	// take as much on the host, and the SRS as much on a GPU. ParamsExact
	// says whether it comes from the file itself (else from the circuit's
	// shape: the table of circuit kinds' counts for 32 GiB, upper bounds
	// on the a and b sections for other sizes).
	ParamsBytes int64
	ParamsExact bool
	// HostBytes is the peak host RAM (resident set) of a process proving
	// this type under cfg, however many proofs are in flight (each adds
	// its C1, small): what a scheduler should reserve for the process. It
	// is the decoded parameters (pinned, streaming) and the larger of two
	// phases: the first proof's load of the matrices (MatricesLoadBytes,
	// and the first witnesses made meanwhile), and the steady state (the
	// partitions the workers hold at once, one per synthesis and prover
	// worker as far as the host budget has room, each what it really
	// holds; the matrices' host copies; upload staging), plus a
	// synthesis' garbage the collector has not yet taken back
	// (synthesisSlackPercent of a partition's full working set) and
	// 512 MiB for the C1s, graphs and runtime. An automatic budget is the
	// machine's, as New sets it. Measured against VmHWM it is an upper
	// bound within 10 % (BENCHMARKS.md, issue 44), but for a streamed key
	// whose matrices are read from their cache file beside its decode: a
	// 32 GiB PoRep under 16 GiB peaked 10.7 % above it (2026-12-07), a
	// miss not yet explained.
	HostBytes int64
	// PreloadedHostBytes is HostBytes for a process that calls
	// Prover.Preload first, as c2prove does: with resident GPUs the key is
	// on the host only while it loads, one decoded section at a time (the
	// file's pages dropped as they are decoded, each section once it is on
	// the GPU: gpu.HostSections), so this is the larger of the largest
	// section (groth16.LargestSectionBytes) with the matrices' load, which
	// a preload runs beside the key's, and the two phases without the
	// key. Several GPUs load at once and a section stays until the last has
	// it: GPUs at one pace should hold one or two sections, a slower one
	// more (not yet measured on several GPUs; this figure counts one).
	// Equal to HostBytes on the CPU and with a streamed key (pinned either
	// way).
	PreloadedHostBytes int64
	// PinnedBytes is page-locked host memory for the CUDA path: the upload
	// staging chunks of each GPU worker; the vectors of the working sets
	// held at once (in HostBytes too: they are synthesized into it), the
	// witnesses' aux when proofs use the matrices, else each one's aux, a,
	// b and c; and in streaming mode the key's points (once per process,
	// shared by the GPUs), the matrices' copy with MatricesOnGPU, and with
	// MatricesOn the GPU's copy of H's last vector (a domain of Fr: a, b, c
	// may then be evaluated into the heap; also in HostBytes); 0 on the CPU.
	PinnedBytes int64
	// VRAMBytes is memory per GPU in Mode at its peak: resident, the key
	// (the sections' points as affine G1/G2), the matrices with
	// MatricesOnGPU, and ProofsPerGPU workers' working sets (a, b, c, aux
	// and input scalars, MSM temporaries); streaming, ProofsPerGPU proofs'
	// largest phase (ProofVRAMBytes). In either mode, with MatricesOnGPU
	// and more workers, another's scalars uploaded ahead where they fit
	// once a proof has given memory back (resident: b and c after H;
	// streamed, one at a time: its h MSM's). It stays within DeviceMemoryLimit:
	// workers beyond ProofsPerGPU take turns, not fail.
	VRAMBytes int64
	// ProofsPerGPU is how many of a GPU's WorkersPerDevice prove on it at
	// once under DeviceMemoryLimit: as many working sets as the limit holds
	// (beside a resident key and matrices), at least one, at most the
	// workers; 0 on the CPU. At 32 GiB on an H200: 2 of 2 unlimited, 2
	// under 24 GiB, 1 under 16 GiB (BENCHMARKS.md, issue 17).
	ProofsPerGPU int
	// Mode is how each GPU proves under DeviceMemoryLimit: "resident" when
	// the key and one proof fit it, else "streaming" (the key in pinned host
	// memory); empty on the CPU.
	Mode gpu.DeviceMode
	// DeviceMemoryLimit is the limit Mode was chosen for: Config's, else
	// the first GPU's free memory less the margin now, or 0 (no limit: no
	// GPU to ask).
	DeviceMemoryLimit int64
	// ProofVRAMBytes is one proof's device working set in Mode (a resident
	// key not counted), and LeastDeviceMemory the least limit with which a
	// GPU can prove this type at all (streaming, one worker).
	ProofVRAMBytes    int64
	LeastDeviceMemory int64
	// PartitionBusBytes is what one partition's proof moves from the host
	// to its GPU in Mode (gpu.Plan's ProofBusBytes), the key's and the
	// matrices' one-time loads not counted: the witness; a, b, c unless
	// MatricesOnGPU; streaming, also every point of the key and, with
	// MatricesOnGPU, the matrices from their pinned copy. Over the bus's
	// host→device bandwidth it is the least time a partition spends on the
	// bus (examples/cardmodel). 0 on the CPU.
	PartitionBusBytes int64
	// GPUs is the number of GPUs one proof needs: 1 with the CUDA backend
	// (its partitions may spread over more), 0 on the CPU.
	GPUs int
}

// Requirements returns what proving t needs under cfg: its backend
// (auto resolved by whether the native library loads), WorkersPerDevice,
// SynthesisConcurrency, HostMemoryBudget, ParamsDir/TestParamsDir for
// the exact parameter file size when the file is there, and
// MatricesCacheDir for whether the matrices are recorded or checked.
// Defaults are those of New, for one GPU; an automatic host budget is the
// machine's, as New sets it.
func Requirements(t abi.RegisteredSealProof, cfg Config) (r Resources, err error) {
	err = guard(slog.Default(), "Requirements", func() error {
		r, _, err = requirements(sealKind(t), cfg)
		return err
	})
	return r, err
}

// oneGPU is the GPU count Requirements sizes the synthesis concurrency by:
// one proof needs one GPU (its partitions may spread over more).
func oneGPU(Config) (int, error) { return 1, nil }

// requirements is Requirements, returning also cfg with the defaults it
// resolved.
func requirements(t circuits.Type, cfg Config) (Resources, Config, error) {
	m, err := model(t, cfg, modelOpts{})
	if err != nil {
		return Resources{}, Config{}, err
	}
	return m.r, m.cfg, nil
}

// modelOpts are what a circuit's model depends on beside it when it is
// proved in a set of circuits (CircuitsRequirements); zero: alone.
type modelOpts struct {
	// besideHost is host memory the other circuits' loaded keys and
	// matrices hold for good: an automatic host budget leaves room for it.
	besideHost int64
	// noDeviceMatrices: the GPU had no room for the circuit's matrices
	// beside the other keys when its first proof recorded them (the
	// device's try fails; gpu.Device.PreloadMatrices), so proofs run as
	// without them on the GPU: MatricesAuto synthesizes every partition in
	// full (the recorded matrices stay on the heap, unused), MatricesOn
	// evaluates a, b, c on the host.
	noDeviceMatrices bool
	// streamed: a set leaves the key in pinned host memory though its own
	// plan is resident (gpu.Device finds it unfit beside the keys loaded
	// before it), so its proofs stream it (gpu.PlanOptions.NoResident).
	streamed bool
}

// typeModel is requirements' model of one circuit under cfg: its
// Resources and the parts a set of circuits adds up or takes the largest of.
type typeModel struct {
	r          Resources
	cfg        Config // with its defaults resolved
	budgetAuto bool
	plan       gpu.Plan // the GPU's (zero on the CPU)
	counts     groth16.SectionCounts
	h          hostModel
	// pinnedVectors is the pinned memory of the working sets held at once.
	pinnedVectors int64
	// longLivedHost is host memory the circuit holds for good once loaded,
	// which an automatic budget leaves room for: its key where no GPU holds
	// it, its matrices' host copies (heap or pinned) and c's pinned stage.
	longLivedHost int64
	// recordedOnly: the matrices are recorded and kept on the heap, though
	// no proof uses them (modelOpts.noDeviceMatrices under MatricesAuto).
	recordedOnly bool
}

// model is the resource model of proving t under cfg, beside what o says.
func model(t circuits.Type, cfg Config, o modelOpts) (*typeModel, error) {
	sh, err := newShape(t)
	if err != nil {
		return nil, err
	}
	cfg, budgetAuto, err := cfg.withDefaults(oneGPU)
	if err != nil {
		return nil, err
	}
	r := Resources{
		Partitions:         sh.partitions,
		Constraints:        sh.sizes.Rows + sh.sizes.Inputs,
		Domain:             sh.domain,
		PartitionHostBytes: sh.bytes,
	}
	counts, _, file, exact, err := paramsShape(t, cfg, sh)
	if err != nil {
		return nil, err
	}
	r.ParamsBytes, r.ParamsExact = file, exact

	cuda := cfg.Backend == BackendCUDA
	workers, conc := cfg.WorkersPerDevice, cfg.SynthesisConcurrency
	matrices := sh.matrices.EstimatedBytes(r.Constraints) // if proofs use them (Config.ConstraintMatrices)
	if cfg.ConstraintMatrices == MatricesOn {
		r.MatricesBytes = matrices // on the host, unless a GPU holds them below
	}
	recordedOnly := cuda && o.noDeviceMatrices && cfg.ConstraintMatrices == MatricesAuto
	if recordedOnly {
		r.MatricesBytes = matrices // recorded on the first proof, then kept on the heap
	}
	var plan gpu.Plan // the GPU's, from the one device plan
	if cuda {
		limit := cfg.DeviceMemoryLimit
		if limit == 0 {
			limit = gpu.DefaultMemoryLimitOfFirst()
		}
		opts := gpu.PlanOptions{Workers: workers, VectorStage: cfg.heapABC(), NoResident: o.streamed}
		if cfg.ConstraintMatrices != MatricesOff && !o.noDeviceMatrices {
			opts.MatricesBytes = matrices
		}
		plan, err = gpu.NewPlan(limit, gpu.Shape{Counts: counts, Inputs: sh.sizes.Inputs, Rows: r.Constraints}, opts)
		if err != nil {
			return nil, fmt.Errorf("%w: %v: %w", ErrOutOfDeviceMemory, t, err)
		}
		r.GPUs, r.DeviceMemoryLimit = 1, limit
		r.Mode, r.ProofVRAMBytes, r.LeastDeviceMemory = plan.Mode, plan.ProofBytes, plan.LeastBytes
		r.ProofsPerGPU, r.VRAMBytes = plan.ProofsAtOnce, plan.PeakBytes
		r.PartitionBusBytes = plan.ProofBusBytes
		r.PinnedBytes = plan.PinnedBytes()
		if plan.MatricesOnDevice {
			r.MatricesOnGPU, r.MatricesBytes = true, matrices
			r.PartitionHostBytes = sh.witnessBytes
		}
	}
	pinnedHost := plan.PinnedMatricesBytes + plan.StageBytes // streaming: pinned host memory beyond the key and staging
	if r.MatricesBytes > 0 {
		r.MatricesLoadBytes = sh.matrices.RecordingBytes(sh.sizes)
		if path := matricesCacheFile(cfg.MatricesCacheDir, t, sh.sizes); path != "" && fileSize(path) > 0 {
			r.MatricesLoadBytes = groth16.AssignmentBytes(sh.sizes) + matrices // checked by one full synthesis
		}
	}
	h := hostModel{slack: sh.bytes * synthesisSlackPercent / 100}
	h.partitions = partitionsAtOnce(cfg, budgetAuto, conc+workers, r.PartitionHostBytes, file, r, pinnedHost+o.besideHost)
	switch { // what a partition really holds
	case !cuda:
		h.held = r.PartitionHostBytes
	case r.MatricesOnGPU:
		h.held = sh.witnessBytes
	case cfg.heapABC(): // a, b, c evaluated on the host, into the heap
		h.held = sh.bytes
	default: // a full assignment; the GPU computes H
		h.held = groth16.AssignmentBytes(sh.sizes)
	}
	var pinnedVectors int64
	if cuda { // the working sets at once are synthesized into pinned memory
		witnessOnly := r.MatricesBytes > 0 && !recordedOnly
		pinnedVectors = int64(h.partitions) * gpu.PinnedPartitionBytes(sh.sizes, witnessOnly)
		r.PinnedBytes += pinnedVectors
		h.staging = plan.StagingBytes
	}
	h.matrices, h.stage = plan.PinnedMatricesBytes, plan.StageBytes // a streaming GPU's pinned copy, c's stage
	if r.MatricesBytes > 0 && !r.MatricesOnGPU {
		h.matrices += r.MatricesBytes // the heap's copy, for the host's evaluation
	}
	if r.MatricesBytes > 0 {
		h.load = r.MatricesLoadBytes
		if r.MatricesOnGPU { // the first witnesses are made while the matrices load, a spare per synthesis worker within the budget
			h.load += int64(min(conc, h.partitions)) * sh.witnessBytes
		}
	}
	if !cuda { // the heap holds it all: the collector's slack grows with it
		key, parts := cpuHeapSlackPercent()
		h.keySlack = file * key / 100
		h.slack = int64(h.partitions)*h.held*parts/100 + cpuCoreSlackBytes()
	}
	// The key: decoded on the host (the CPU), in pinned memory (a streaming
	// GPU), or, preloaded onto resident GPUs, on the host only while it
	// loads, a section at a time. Without Preload a resident key's first
	// proof loads it: counted whole.
	r.HostBytes = h.peak(file)
	r.PreloadedHostBytes = r.HostBytes
	if r.Mode == gpu.ModeResident { // the matrices load beside the key (Prover.Preload)
		r.PreloadedHostBytes = max(groth16.LargestSectionBytes(counts)+h.load+runtimeHostBytes, h.peak(0))
	}
	long := pinnedHost
	if r.Mode != gpu.ModeResident {
		long += file
	}
	if r.MatricesBytes > 0 && !r.MatricesOnGPU {
		long += r.MatricesBytes
	}
	return &typeModel{r: r, cfg: cfg, budgetAuto: budgetAuto, plan: plan, counts: counts, h: h,
		pinnedVectors: pinnedVectors, longLivedHost: long, recordedOnly: recordedOnly}, nil
}

// runtimeHostBytes is what HostBytes allows for the C1s, their graphs and
// the Go runtime.
const runtimeHostBytes = 512 << 20

// synthesisSlackPercent is, with a GPU, the garbage a partition's
// synthesis leaves on the heap before the collector takes it back, in
// percent of a partition's full working set (PartitionHostBytes): the
// peaks measured at 32 GiB exceed the modelled sizes by 5.8 and 5.9 GiB (a
// recording's, a cached file's check; BENCHMARKS.md, issue 44), 29 % of
// its 19.9 GiB. (Pinned memory is no heap: the collector's slack on the
// CPU, cpuHeapSlackPercent, does not apply.)
const synthesisSlackPercent = 30

// cpuHeapSlackPercent is, on the CPU, where the key and the partitions'
// working sets are all heap, the garbage the heap holds beside them at its
// peak, in percent of the key and of the working sets: the collector lets
// the heap grow by GOGC % (default 100) of what it found live before it
// collects; the key is live at every collection, the partitions only
// while in flight, and each leaves its synthesis' and MSMs' buffers
// behind. Measured at 2 KiB (BENCHMARKS.md, issue 44): 3.06–3.15 GiB with
// one partition at a time, 3.95–3.99 with two, against a key of 1.04 and
// partitions of 0.58 GiB; on a loaded CI machine two peaked at 4.28 (the
// collector falls behind the allocating cores). 80 % and 66 % of GOGC,
// with runtimeHostBytes, put the figure 0.5–9 % above those peaks (60 %
// was 1 % below the loaded one).
func cpuHeapSlackPercent() (key, partitions int64) {
	gogc := int64(100)
	if v, err := strconv.Atoi(os.Getenv("GOGC")); err == nil && v >= 0 {
		gogc = int64(v)
	}
	return gogc * 80 / 100, gogc * 66 / 100
}

// cpuCoreSlackBytes is, on the CPU, the heap's garbage that grows with the
// cores proving at once (GOMAXPROCS, at most the CPUs the process may run
// on): more of them allocate between two collections. cpuHeapSlackPercent
// was measured on 2 cores; at 2 KiB on the H100 host's 16 the peaks were
// 0.2–0.35 GiB higher (4.13–4.29 GiB with two partitions at a time,
// 3.43–3.49 with one), on 8 within 0.1 (3.98, 3.24): 16 MiB a core beyond
// two puts the figure 1–9 % above each (BENCHMARKS.md, issue 44).
func cpuCoreSlackBytes() int64 {
	const perCore = 16 << 20
	cores := min(runtime.GOMAXPROCS(0), runtime.NumCPU())
	return int64(max(cores-2, 0)) * perCore
}

// hostModel is the host memory of a process proving one proof type, in its
// two phases: the first proof's load of the constraint matrices, and the
// partitions' steady state. Its peak is what HostBytes promises: an upper
// bound of the process's peak RSS (VmHWM), however many proofs are in
// flight (each adds its C1, small beside runtimeHostBytes).
type hostModel struct {
	partitions int   // held at once
	held       int64 // what a partition really holds
	matrices   int64 // the matrices' host copies in the steady state
	stage      int64 // c's pinned stage (a streaming GPU's, with heap a, b, c)
	staging    int64 // the GPU workers' upload chunks (pinned)
	load       int64 // the matrices' recording or check, and the witnesses made meanwhile; 0 without matrices
	slack      int64 // the heap's garbage not yet collected, beside keySlack
	keySlack   int64 // on the CPU, the garbage that grows with the key on the heap
}

// peak is the larger phase's host memory with key bytes of parameters held.
func (h hostModel) peak(key int64) int64 {
	return key + max(h.steady(), h.load) + h.keySlack + h.slack + runtimeHostBytes
}

// steady is the steady state's host memory beside the key: the working
// sets held at once, the matrices' copies, c's stage and the upload chunks.
func (h hostModel) steady() int64 {
	return int64(h.partitions)*h.held + h.matrices + h.stage + h.staging
}

// partitionsAtOnce is how many partitions the pipeline holds at once: one
// per synthesis and prover worker (workers), as many as the host budget
// has room for (at least one: a partition larger than the budget is
// refused). An automatic budget is New's: the machine's, less the loaded
// parameters (key bytes, unless every GPU holds them) and the matrices'
// host copies. Spares are kept within the budget too.
func partitionsAtOnce(cfg Config, budgetAuto bool, workers int, partition, key int64, r Resources, pinnedHost int64) int {
	room := cfg.HostMemoryBudget
	if budgetAuto {
		if r.Mode != gpu.ModeResident {
			room -= key
		}
		room -= pinnedHost
		if r.MatricesBytes > 0 && !r.MatricesOnGPU {
			room -= r.MatricesBytes
		}
	}
	return int(min(int64(workers), max(1, room/partition)))
}

// leastDeviceMemory is the least device memory limit with which a GPU can
// prove any sector: a streamed proof of the smallest.
func leastDeviceMemory() (int64, error) {
	t := sealKind(abi.RegisteredSealProof_StackedDrg2KiBV1_1)
	sh, err := newShape(t)
	if err != nil {
		return 0, err
	}
	c, ic, _ := estimatedKeyShape(t, sh)
	plan, _ := gpu.NewPlan(0, gpu.Shape{Counts: c, Inputs: ic}, gpu.PlanOptions{})
	return plan.LeastBytes, nil
}

// paramsShape returns t's key section counts, public inputs and .params
// size: from the file when cfg's directories hold it, else from the circuit.
// cfg has its defaults resolved (withDefaults).
func paramsShape(t circuits.Type, cfg Config, sh *shape) (c groth16.SectionCounts, ic int, size int64, exact bool, err error) {
	path, _, ferr := findParams(cfg.ParamsDir, t)
	if ferr != nil && cfg.TestParamsDir != "" { // an existing TEST-ONLY file, of any size
		path = testParamsPath(cfg.TestParamsDir, t)
		present, err := testParamsExist(path)
		if err != nil {
			return c, 0, 0, false, err
		}
		if present {
			ferr = nil
		}
	}
	if ferr == nil {
		pk, err := groth16.OpenProvingKey(path)
		if err != nil {
			return c, 0, 0, false, paramsError(path, err)
		}
		defer pk.Close()
		return pk.Counts(), len(pk.VerifyingKey().IC), fileSize(path), true, nil
	}
	c, ic, size = estimatedKeyShape(t, sh)
	return c, ic, size, false, nil
}
