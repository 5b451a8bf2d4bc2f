package gpuc2

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"

	"github.com/filecoin-project/go-state-types/abi"

	"github.com/gpuc2/gpuc2/groth16"
	"github.com/gpuc2/gpuc2/internal/pipeline"
	"github.com/gpuc2/gpuc2/synth/porep"
	"github.com/gpuc2/gpuc2/trace"
)

// Prover proves PoRep C2 in-process. It loads each parameter file once
// (proof types that use the same file, as V1 and V1_1 do, share it) and
// shares it between proofs until Evict or Close. Proofs run
// through one pipeline: their partitions are synthesized in (proof,
// partition) order under a host memory budget and proven by prover workers
// (WorkersPerDevice per GPU, gated by gpulock, or CPU workers). All methods
// are safe for concurrent use.
type Prover struct {
	// The configuration, defaults resolved.
	cfg        Config
	log        *slog.Logger
	tracer     *trace.Tracer
	budgetAuto bool // the host budget is the machine's: loaded parameters shrink it

	keys    *keyCache             // the loaded parameters
	pipe    *pipeline.Pipeline    // the scheduler of every proof's partitions
	devices []*groth16.CUDAProver // one per GPU, shared by its prover workers; none on the CPU
	// deviceInfo is each GPU's name and memory, by ordinal, as New found them.
	deviceInfo map[int]groth16.DeviceInfo
	events     *events // Progress reports

	// The calls in flight, and Close.
	mu          sync.Mutex
	closed      bool
	closing     chan struct{}  // closed when Close starts
	inflight    sync.WaitGroup // calls inside the Prover
	closeOnce   sync.Once
	closeResult error
}

// New returns a Prover and starts its pipeline. It fails if Backend is cuda
// and the native library cannot be loaded, or if a device is unknown.
func New(ctx context.Context, cfg Config) (*Prover, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var ordinals []int // the GPUs of the cuda backend
	cfg, budgetAuto, err := cfg.withDefaults(func(c Config) (int, error) {
		if err := groth16.CUDAUnavailable(); err != nil {
			return 0, fmt.Errorf("gpuc2: backend cuda: %w", err)
		}
		var err error
		ordinals, err = c.cudaDevices()
		return len(ordinals), err
	})
	if err != nil {
		return nil, err
	}
	devices, err := openDevices(ordinals, cfg.DeviceMemoryLimit)
	if err != nil {
		return nil, err
	}
	var vectors pipeline.VectorMemory
	if len(devices) > 0 { // assignments in pinned memory: one DMA per vector to the GPU
		vectors = groth16.PinnedVectors{}
	}
	pipe, err := pipeline.New(pipeline.Config{Synthesis: cfg.SynthesisConcurrency, Provers: proverWorkers(cfg, devices),
		HostBudget: cfg.HostMemoryBudget, Tracer: cfg.Tracer, Log: cfg.Logger, Vectors: vectors})
	if err != nil {
		closeDevices(devices)
		return nil, err
	}
	p := &Prover{
		cfg: cfg, log: cfg.Logger, tracer: cfg.Tracer, budgetAuto: budgetAuto,
		pipe: pipe, devices: devices,
		events:  newEvents(cfg.Progress, cfg.Logger),
		closing: make(chan struct{}),
	}
	if len(devices) > 0 {
		p.deviceInfo = map[int]groth16.DeviceInfo{}
		infos, _ := groth16.CUDADevices() // names only: a failure leaves them empty
		for _, info := range infos {
			p.deviceInfo[info.Ordinal] = info
		}
	}
	p.keys = newKeyCache(cfg, devices, p.closing)
	if budgetAuto {
		p.keys.resident = pipe.Budget().SetResident
	}
	p.log.Info("gpuc2 prover ready", "backend", cfg.Backend, "params", cfg.ParamsDir, "devices", ordinals,
		"prover_workers", len(pipe.Stats().Provers), "synthesis", cfg.SynthesisConcurrency, "host_budget", cfg.HostMemoryBudget)
	return p, nil
}

// openDevices makes one CUDA prover per GPU with the memory limit (0: the
// device's free memory less a margin): it keeps the device's resident keys
// and its VRAM ledger. A limit that cannot stream even the smallest sector
// fails with ErrOutOfDeviceMemory.
func openDevices(ordinals []int, limit int64) ([]*groth16.CUDAProver, error) {
	if len(ordinals) == 0 {
		return nil, nil
	}
	least, err := leastDeviceMemory()
	if err != nil {
		return nil, err
	}
	var devices []*groth16.CUDAProver
	for _, ord := range ordinals {
		d, err := groth16.NewCUDAProver(groth16.CUDAConfig{Device: ord, MemoryLimit: limit})
		if err == nil {
			if d.MemoryLimit() < least {
				d.Close()
				err = fmt.Errorf("%w: a limit of %d bytes, below the %d bytes the smallest sector needs streamed",
					ErrOutOfDeviceMemory, d.MemoryLimit(), least)
			}
		}
		if err != nil {
			closeDevices(devices)
			return nil, fmt.Errorf("gpuc2: device %d: %w", ord, classify(err))
		}
		devices = append(devices, d)
	}
	return devices, nil
}

func closeDevices(devices []*groth16.CUDAProver) error {
	var errs []error
	for _, d := range devices {
		errs = append(errs, d.Close())
	}
	return errors.Join(errs...)
}

// proverWorkers are the pipeline's prover workers: WorkersPerDevice per
// GPU, sharing its prover, or WorkersPerDevice on the CPU.
func proverWorkers(cfg Config, devices []*groth16.CUDAProver) []pipeline.Prover {
	var workers []pipeline.Prover
	if cfg.Backend == BackendCPU {
		for range cfg.WorkersPerDevice {
			workers = append(workers, pipeline.Prover{Device: -1, Prover: &groth16.CPUProver{}})
		}
	}
	for _, d := range devices {
		for range cfg.WorkersPerDevice {
			workers = append(workers, pipeline.Prover{Device: d.Device(), Prover: d})
		}
	}
	return workers
}

// Backend is the backend in use (auto resolved).
func (p *Prover) Backend() Backend { return p.cfg.Backend }

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

// Preload loads t's parameters and decodes every section now, so that the
// first proof of t does not pay for it, and with the CUDA backend uploads
// them to each GPU (an error wrapping ErrOutOfDeviceMemory when they do not
// fit; proofs then stream them from the host). They stay loaded until Evict
// or Close.
func (p *Prover) Preload(ctx context.Context, t abi.RegisteredSealProof) error {
	return guard(p.log, "Preload", func() error {
		if err := p.enter(); err != nil {
			return err
		}
		defer p.leave()
		span := p.tracer.Begin(requestTrack, "parameter load", "proof", porep.ProofName(t), "preload", true)
		defer span.End()
		return p.keys.preload(ctx, t, !p.cfg.SkipSelfVerify)
	})
}

// Evict releases t's parameters (those of its file, so also of another
// proof type sharing the file, as V1 and V1_1 do): unused ones leave the
// GPUs, are unmapped and forgotten (the next proof loads them again); ones
// in use by a proof drop their decoded host sections, which are decoded
// again on demand. Cached proving assignments of t's shape are freed too.
func (p *Prover) Evict(t abi.RegisteredSealProof) error {
	return guard(p.log, "Evict", func() error {
		if err := p.enter(); err != nil {
			return err
		}
		defer p.leave()
		err := p.keys.evict(t)
		if sh, shapeErr := newShape(t); shapeErr == nil {
			p.pipe.Budget().DropSpares(&sh.hint)
			p.pipe.Budget().DropSpares(&sh.witness)
		}
		return err
	})
}

// Close cancels the proofs in flight (they return ErrClosed), waits for
// them, stops the pipeline and releases the parameters. It is idempotent,
// and safe from any goroutine, a Progress callback included.
func (p *Prover) Close() error {
	p.closeOnce.Do(func() {
		p.mu.Lock()
		p.closed = true
		close(p.closing)
		p.mu.Unlock()
		p.pipe.Close() // cuts the proofs in the pipeline short and waits for them
		p.inflight.Wait()
		err := closeDevices(p.devices)
		p.closeResult = errors.Join(err, p.keys.close())
		p.events.close()
	})
	return p.closeResult
}
