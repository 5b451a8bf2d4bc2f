package gpuc2

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"

	"github.com/filecoin-project/go-state-types/abi"

	"github.com/gpuc2/gpuc2/groth16"
	"github.com/gpuc2/gpuc2/internal/par"
	"github.com/gpuc2/gpuc2/synth/porep"
	"github.com/gpuc2/gpuc2/trace"
)

// Errors callers can test with errors.Is. Cancellation returns the
// context's error (context.Canceled, context.DeadlineExceeded).
var (
	// ErrBadInput wraps every problem with what the caller passed: the C1
	// bytes (errors.As then gives a *porep.C1Error naming the field), the
	// sector identity, a proof type, a SealVerifyInfo or its proof.
	ErrBadInput = errors.New("gpuc2: bad input")
	// ErrParamsCorrupt reports a parameter file that is truncated, malformed,
	// does not match its .vk or does not fit the circuit of its proof type.
	ErrParamsCorrupt = errors.New("gpuc2: parameters corrupt")
	// ErrOutOfDeviceMemory reports a GPU that could not hold a partition's
	// work: the native library's out-of-memory status, or a reservation
	// larger than the device's VRAM budget.
	ErrOutOfDeviceMemory = errors.New("gpuc2: out of device memory")
	// ErrBudget reports a proof whose partition can never fit the host
	// memory budget (Config.HostMemoryBudget); it is returned at once.
	ErrBudget = errors.New("gpuc2: partition larger than the host memory budget")
	// ErrProofInvalid reports a proof that failed self-verification, or
	// one with a point off its curve (never returned, even without
	// self-verification).
	ErrProofInvalid = errors.New("gpuc2: proof failed self-verification")
	// ErrClosed reports a call on a closed Prover, or a proof cut short by Close.
	ErrClosed = errors.New("gpuc2: prover closed")
	// ErrInternal reports a panic inside gpuc2, recovered: the proof or call
	// it met fails (the stack is logged), the Prover and the process go on.
	ErrInternal = errors.New("gpuc2: internal error")
	// ErrUnsupported reports a request gpuc2 cannot serve: today NI-PoRep
	// through SealCommitPhase2, ProveSeal and VerifySeal, where filecoin-ffi
	// makes and checks a SnarkPack aggregate (SealCommitPhase2CircuitProofs
	// gives the partition proofs). It also matches errors.ErrUnsupported.
	ErrUnsupported = fmt.Errorf("gpuc2: unsupported: %w", errors.ErrUnsupported)
)

// recovered turns a panic recovered by par.Recover (in err, possibly
// wrapped) into an error wrapping ErrInternal, and logs its stack.
func recovered(log *slog.Logger, what string, err error) error {
	var pe *par.PanicError
	if !errors.As(err, &pe) || errors.Is(err, ErrInternal) { // not a panic, or told already
		return err
	}
	log.Error("gpuc2: recovered a panic", "in", what, "panic", fmt.Sprint(pe.Value), "stack", string(pe.Stack))
	return fmt.Errorf("%w: %s: %w", ErrInternal, what, err)
}

// guard runs a public call's body: nothing panics past the library's
// boundary, and the lower layers' errors leave with the package's sentinels.
func guard(log *slog.Logger, what string, f func() error) error {
	return classify(recovered(log, what, par.Recover(f)))
}

func errNonInteractive(t abi.RegisteredSealProof) error {
	return fmt.Errorf("%w: %s is NI-PoRep, whose C2 output is a SnarkPack aggregate of its partition proofs; "+
		"gpuc2 makes the partition proofs only (SealCommitPhase2CircuitProofs)", ErrUnsupported, porep.ProofName(t))
}

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
	ParamsDir string  // default DefaultParamsDir()
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
	// ErrParamsMissing and says so.
	TestParamsDir string
	// SkipSelfVerify turns off verifying each proof before returning it.
	SkipSelfVerify bool
	Logger         *slog.Logger // default: slog.Default(), so the TEST-ONLY warning is seen
	// Progress, if set, is called at each stage of each partition (see
	// Stage), in order, from one goroutine of the Prover's: a slow callback
	// delays later reports, not the proofs, and a callback may call Close. A
	// call's reports are delivered before it returns, unless Close cuts it
	// short; none starts after Close returns.
	Progress func(Progress)
	// Tracer, if set, records every stage of every proof (C1 parse and
	// check, parameter load, per partition queue, wait_budget, synthesis and
	// each prover phase, self-verification) for Perfetto; see package trace.
	Tracer *trace.Tracer
}

// Prover proves PoRep C2 in-process. It loads each parameter file once
// (proof types that use the same file, as V1 and V1_1 do, share it) and
// shares it between proofs until Evict or Close. Proofs run
// through one pipeline: their partitions are synthesized in (proof,
// partition) order under a host memory budget and proven by prover workers
// (WorkersPerDevice per GPU, gated by gpulock, or CPU workers). All methods
// are safe for concurrent use.
type Prover struct {
	cfg    Config
	log    *slog.Logger
	tracer *trace.Tracer

	events  *events       // Progress reports
	closing chan struct{} // closed when Close starts

	mu       sync.Mutex
	keys     map[abi.RegisteredSealProof]*keyEntry // each type's entry of files
	files    map[string]*keyEntry                  // loaded parameters by file path
	shapes   map[abi.RegisteredSealProof]*shape
	jobs     map[*proofJob]struct{}
	closed   bool
	inflight sync.WaitGroup // calls inside the Prover
	loadMu   sync.Mutex     // one parameter load at a time

	budget        *hostBudget
	budgetAuto    bool // the budget shrinks by the size of loaded parameters
	synthQueue    taskQueue
	proveQueue    taskQueue
	idle          chan *synthWorker
	synthCount    int
	provers       []*proveWorker
	deviceProvers []*groth16.CUDAProver // one per GPU, shared by its workers
	devices       []int
	done          chan struct{}
	wg            sync.WaitGroup // pipeline goroutines
	seq           uint64
	stats         pipelineStats
	closeOnce     sync.Once
	closeResult   error
}

// New returns a Prover and starts its pipeline. It fails if Backend is cuda
// and the native library cannot be loaded, or if a device is unknown.
func New(ctx context.Context, cfg Config) (*Prover, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var devs []int // the GPUs of the cuda backend
	cfg, budgetAuto, err := cfg.withDefaults(func(c Config) (int, error) {
		if !groth16.CUDAAvailable() {
			return 0, fmt.Errorf("gpuc2: backend cuda: %w", groth16.ErrCUDAUnavailable)
		}
		var err error
		devs, err = c.cudaDevices()
		return len(devs), err
	})
	if err != nil {
		return nil, err
	}
	p := &Prover{
		cfg: cfg, log: cfg.Logger, tracer: cfg.Tracer,
		keys:       map[abi.RegisteredSealProof]*keyEntry{},
		files:      map[string]*keyEntry{},
		shapes:     map[abi.RegisteredSealProof]*shape{},
		jobs:       map[*proofJob]struct{}{},
		done:       make(chan struct{}),
		closing:    make(chan struct{}),
		events:     newEvents(cfg.Progress, cfg.Logger),
		budgetAuto: budgetAuto,
	}
	p.synthQueue.init() // before any worker waits on them
	p.proveQueue.init()
	if err := p.startProvers(devs); err != nil {
		p.events.close()
		return nil, err
	}
	p.budget = newHostBudget(cfg.HostMemoryBudget, cfg.SynthesisConcurrency)
	p.startSynthesis()
	p.log.Info("gpuc2 prover ready", "backend", cfg.Backend, "params", cfg.ParamsDir, "devices", p.devices,
		"prover_workers", len(p.provers), "synthesis", cfg.SynthesisConcurrency, "host_budget", cfg.HostMemoryBudget)
	return p, nil
}

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
		if groth16.CUDAAvailable() {
			c.Backend = BackendCUDA
		}
	default:
		return Config{}, false, fmt.Errorf("gpuc2: unknown backend %q", c.Backend)
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

// Backend is the backend in use (auto resolved).
func (p *Prover) Backend() Backend { return p.cfg.Backend }

// SealCommitPhase2 proves a sector's C1 output (filecoin-ffi JSON or the
// Commit2In envelope) and returns the concatenated partition proofs, 192
// bytes each: filecoin-ffi's SealCommitPhase2, the call Curio makes. For
// NI-PoRep types, where ffi returns an aggregate, the error wraps
// ErrUnsupported.
func (p *Prover) SealCommitPhase2(ctx context.Context, phase1Output []byte, sector abi.SectorNumber, miner abi.ActorID) ([]byte, error) {
	res, err := p.ProveSeal(ctx, SealRequest{C1: phase1Output, Sector: sector, Miner: miner})
	if err != nil {
		return nil, err
	}
	return res.Proof, nil
}

// SealCommitPhase2CircuitProofs is filecoin-ffi's call of the same name: the
// partition proofs of any proof type, NI-PoRep included, concatenated (192
// bytes each), for an aggregator to combine. With no miner to derive it
// from, the C1's replica_id is taken as it stands; everything that follows
// from it is checked as in SealCommitPhase2.
func (p *Prover) SealCommitPhase2CircuitProofs(ctx context.Context, phase1Output []byte, sector abi.SectorNumber) ([]byte, error) {
	var res *SealResult
	err := guard(p.log, "SealCommitPhase2CircuitProofs", func() (err error) {
		res, err = p.proveSeal(ctx, SealRequest{C1: phase1Output, Sector: sector}, circuitOnly)
		return err
	})
	if err != nil {
		return nil, err
	}
	return res.Proof, nil
}

// ProveC1 is SealCommitPhase2 returning the partition proofs unencoded.
func (p *Prover) ProveC1(ctx context.Context, c1 []byte, sector abi.SectorNumber, miner abi.ActorID) ([]groth16.Proof, error) {
	res, err := p.ProveSeal(ctx, SealRequest{C1: c1, Sector: sector, Miner: miner})
	if err != nil {
		return nil, err
	}
	return res.Partitions, nil
}

// enter admits a call unless the Prover is closed; leave ends it.
func (p *Prover) enter() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return ErrClosed
	}
	p.inflight.Add(1)
	return nil
}

func (p *Prover) leave() { p.inflight.Done() }

// Close cancels the proofs in flight (they return ErrClosed), waits for
// them, stops the pipeline and releases the parameters. It is idempotent,
// and safe from any goroutine, a Progress callback included.
func (p *Prover) Close() error {
	p.closeOnce.Do(func() {
		p.mu.Lock()
		p.closed = true
		close(p.closing)
		for j := range p.jobs {
			j.cancel(ErrClosed)
		}
		p.mu.Unlock()
		p.inflight.Wait()
		close(p.done)
		p.wg.Wait()
		p.budget.dropPool(nil)

		var errs []error
		for _, d := range p.deviceProvers {
			errs = append(errs, d.Close())
		}
		p.mu.Lock()
		defer p.mu.Unlock()
		for _, e := range p.files {
			errs = append(errs, e.pk.Close())
		}
		p.keys, p.files = nil, nil
		p.events.close()
		p.closeResult = errors.Join(errs...)
	})
	return p.closeResult
}
