package gpuc2

import (
	"bufio"
	"fmt"
	"log/slog"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/gpuc2/gpuc2/groth16/gpu"
	"github.com/gpuc2/gpuc2/internal/errtext"
	"github.com/gpuc2/gpuc2/trace"
)

// Backend selects where H and the MSMs run.
type Backend string

// Backends.
const (
	BackendAuto Backend = "auto" // CUDA when the native library loads, else CPU
	BackendCPU  Backend = "cpu"
	BackendCUDA Backend = "cuda"
)

// Config configures a Prover. The zero value works: real parameters from
// DefaultParamsDir, CUDA on every visible GPU when available, a host memory
// budget from the machine's memory, self-verification on.
type Config struct {
	// ParamsDir holds Filecoin's .params and .vk files, and SnarkPack's SRS
	// (SRSFileName) for aggregation and NI-PoRep; default DefaultParamsDir().
	ParamsDir string
	Backend   Backend // default BackendAuto
	// Devices are the CUDA device ordinals to use; default all visible.
	Devices []int
	// Device is the single device of earlier versions: used when Devices
	// is empty and Device is not 0.
	//
	// Deprecated: use Devices.
	Device int
	// WorkersPerDevice is the number of prover workers per GPU (default 1;
	// 2 lets one worker's uploads overlap the other's kernels), or of CPU
	// prover workers with the CPU backend.
	WorkersPerDevice int
	// DeviceMemoryLimit is the device memory gpuc2 may use on each GPU, in
	// bytes: every allocation (a resident key, each proof's working set,
	// MSM scratch, chunk buffers) is counted against it. Default: each
	// device's free memory when New runs, less a margin (a sixteenth of the
	// device, at least 1 GiB). A device proves with the key resident when
	// the key and one proof fit the limit, else it streams the key from
	// pinned host memory (Requirements says which and what it costs). A
	// limit too small to stream a proof type fails with
	// ErrOutOfDeviceMemory, naming the least that would do, when that
	// type's parameters are loaded (Preload, or its first proof), before any
	// synthesis; New fails at once when it cannot stream even the smallest
	// sector.
	DeviceMemoryLimit int64
	// SynthesisConcurrency bounds the partitions synthesized at once
	// (default: the number of prover workers plus one with CUDA, 1 on the
	// CPU). Each synthesis is itself parallel over the partition's challenges.
	SynthesisConcurrency int
	// HostMemoryBudget bounds the host bytes of partition working sets held
	// at once (a/b/c, aux, the quotient's scratch): a partition reserves its
	// bytes before synthesis and releases them when its prover is done.
	// Zero: the machine's memory less a margin (an eighth, at least 4 GiB)
	// and less the size of each parameter file while it is loaded.
	HostMemoryBudget int64
	// TestParamsDir, if set, lets sectors without real parameters use a
	// local TEST-ONLY setup kept under this directory (TestParamsPath): an
	// existing file for any size (a warning is logged), one created on first
	// use for test sizes (≤ 512 MiB). Larger ones are made beforehand with
	// examples/testsetup (on a GPU); without one the error wraps
	// ErrParamsMissing and says so. Without SRSFileName in ParamsDir,
	// aggregation uses a TEST-ONLY SRS kept here too (made once, for up to
	// 8192 proofs).
	TestParamsDir string
	// SkipSelfVerify turns off verifying each proof before returning it.
	SkipSelfVerify bool
	// ConstraintMatrices says when proofs are made from the circuit's
	// compiled R1CS matrices (package synth/pce): recorded once, on the
	// first proof of a parameter file (about 100 s and 5.9 GB at 32 GiB),
	// then every partition is synthesized into its witness alone and a, b,
	// c are evaluated from the matrices. Default MatricesAuto.
	ConstraintMatrices MatricesMode
	// MatricesCacheDir keeps each circuit's recorded matrices in a file, so
	// that a later process reads them (checked against one full synthesis)
	// instead of recording them again. Default: gpuc2/matrices under the
	// user's cache directory; "none": record them in every process.
	MatricesCacheDir string
	Logger           *slog.Logger // default: slog.Default(), so the TEST-ONLY warning is seen
	// Progress, if set, is called at each stage of each partition (see
	// Stage), and as each phase of its proof starts (Progress.Phase), in
	// order, from one goroutine of the Prover's: a slow callback
	// delays later reports, not the proofs, and a callback may call Close. A
	// call's reports are delivered before it returns, unless its context
	// has ended and the callback is stuck (it holds the call 20 ms at
	// most: the rest follow later, in order) or Close cuts it short; none
	// starts after Close returns.
	Progress func(Progress)
	// Tracer, if set, records every stage of every proof (C1 parse and
	// check, parameter load, per partition queue, wait_budget, synthesis and
	// each prover phase, self-verification) for Perfetto; see package trace.
	Tracer *trace.Tracer
}

// MatricesMode is Config.ConstraintMatrices.
type MatricesMode string

const (
	// MatricesAuto uses the matrices where they pay: with the CUDA
	// backend when every GPU evaluates a, b, c from them — holding the key
	// (resident mode) and the matrices beside it, or streaming the key and
	// the matrices from pinned host memory where a proof that holds its
	// witness throughout fits the device as many times at once as a plain
	// streamed one (up to two: at 32 GiB a 16 GiB limit, not 24 GiB).
	// Only the witness and the matrices cross the bus, and a partition
	// holds only its witness on the host (32 GiB: 4.2 GB, not 19.9 GiB).
	MatricesAuto MatricesMode = ""
	// MatricesOn uses them always: where no GPU evaluates them (the CPU
	// backend, a streaming GPU whose overlap they would cost), a, b, c are
	// evaluated on the host, which saves synthesis time but holds the
	// matrices and records them in host memory beside the partitions' full
	// working sets.
	MatricesOn MatricesMode = "on"
	// MatricesOff synthesizes every partition in full.
	MatricesOff MatricesMode = "off"
)

// heapABC says whether a GPU proof may take a, b, c evaluated on the host
// into heap vectors: with MatricesOn, where a streaming GPU does not
// evaluate them. Only then does c need a streaming GPU's pinned stage
// (gpu.Config.VectorStage otherwise): the pipeline synthesizes every other
// assignment into pinned memory, or the GPU evaluates a, b, c.
func (c Config) heapABC() bool { return c.ConstraintMatrices == MatricesOn }

// withDefaults returns c with its defaults resolved: the one place they are,
// for New to run with and Requirements to size a proof by. It sets ParamsDir,
// Logger, Backend (auto: cuda when the native library loads, else cpu; cuda
// is kept without the library, for Requirements — New refuses it through
// gpus), WorkersPerDevice, SynthesisConcurrency (the prover workers plus one
// with cuda, 1 on the CPU) and HostMemoryBudget (budgetAuto: the machine's,
// which New shrinks by the loaded parameters). gpus is called with the cuda
// backend only: it returns the number of GPUs whose prover workers the
// synthesis feeds, or an error.
func (c Config) withDefaults(gpus func(Config) (int, error)) (_ Config, budgetAuto bool, err error) {
	if c.ParamsDir == "" {
		c.ParamsDir = DefaultParamsDir()
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	if c.WorkersPerDevice <= 0 {
		c.WorkersPerDevice = 1
	}
	switch c.Backend {
	case BackendCPU:
	case BackendCUDA:
	case "", BackendAuto:
		c.Backend = BackendCPU
		if gpu.CUDAAvailable() {
			c.Backend = BackendCUDA
		}
	default:
		return Config{}, false, fmt.Errorf("%w: unknown backend %s", ErrBadInput, errtext.Quote(c.Backend))
	}
	switch c.ConstraintMatrices {
	case MatricesAuto, MatricesOn, MatricesOff:
	default:
		return Config{}, false, fmt.Errorf("%w: unknown ConstraintMatrices %s (want %q, %q or %q)",
			ErrBadInput, errtext.Quote(c.ConstraintMatrices), MatricesAuto, MatricesOn, MatricesOff)
	}
	n := 0 // GPUs
	if c.Backend == BackendCUDA {
		if n, err = gpus(c); err != nil {
			return Config{}, false, err
		}
	}
	if c.SynthesisConcurrency <= 0 {
		c.SynthesisConcurrency = 1
		if c.Backend == BackendCUDA {
			c.SynthesisConcurrency = n*c.WorkersPerDevice + 1
		}
	}
	if c.HostMemoryBudget <= 0 {
		c.HostMemoryBudget = defaultHostBudget()
		budgetAuto = true
	}
	return c, budgetAuto, nil
}

// cudaDevices returns the GPUs c selects: Devices, else Device when not 0,
// else all visible. It fails on an unknown ordinal or when there is none.
func (c Config) cudaDevices() ([]int, error) {
	devs, err := gpu.CUDADevices()
	if err != nil {
		return nil, fmt.Errorf("gpuc2: %w", err)
	}
	want := c.Devices
	if len(want) == 0 && c.Device != 0 {
		want = []int{c.Device}
	}
	if len(want) == 0 {
		for _, d := range devs {
			want = append(want, d.Ordinal)
		}
	}
	for _, ord := range want {
		if !slices.ContainsFunc(devs, func(d gpu.DeviceInfo) bool { return d.Ordinal == ord }) {
			return nil, fmt.Errorf("gpuc2: no CUDA device %d (%d visible)", ord, len(devs))
		}
	}
	if len(want) == 0 {
		return nil, fmt.Errorf("gpuc2: backend cuda: no devices: %w", gpu.ErrCUDAUnavailable)
	}
	return want, nil
}

// defaultHostBudget is the machine's memory less a margin of an eighth, at
// least 4 GiB; 16 GiB where the memory cannot be read.
func defaultHostBudget() int64 {
	total := memTotal()
	if total <= 0 {
		return 16 << 30
	}
	margin := max(total/8, 4<<30)
	return max(total-margin, 1<<30)
}

// memTotal reads MemTotal from /proc/meminfo (Linux); 0 elsewhere.
func memTotal() int64 {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) >= 2 && fields[0] == "MemTotal:" {
			kb, err := strconv.ParseInt(fields[1], 10, 64)
			if err != nil {
				return 0
			}
			return kb << 10
		}
	}
	return 0
}
