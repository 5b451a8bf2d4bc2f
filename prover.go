package gpuc2

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"

	"github.com/filecoin-project/go-state-types/abi"

	"github.com/gpuc2/gpuc2/groth16"
	"github.com/gpuc2/gpuc2/groth16/gpu"
	"github.com/gpuc2/gpuc2/internal/circuits"
	"github.com/gpuc2/gpuc2/internal/pipeline"
	"github.com/gpuc2/gpuc2/synth"
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

	keys    *keyCache          // the loaded parameters
	srs     *srsCache          // SnarkPack's SRS, specialized to the proof counts used last
	pipe    *pipeline.Pipeline // the scheduler of every proof's partitions
	devices *gpu.Devices       // the GPUs, shared by their prover workers; nil on the CPU
	events  *events            // Progress reports

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
		if err := gpu.CUDAUnavailable(); err != nil {
			return 0, fmt.Errorf("gpuc2: backend cuda: %w", err)
		}
		var err error
		ordinals, err = c.cudaDevices()
		return len(ordinals), err
	})
	if err != nil {
		return nil, err
	}
	devices, err := openDevices(ordinals, cfg)
	if err != nil {
		return nil, err
	}
	var vectors pipeline.VectorMemory
	if devices != nil { // assignments in pinned memory: one DMA per vector to the GPU
		vectors = devices.Vectors()
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
	p.keys = newKeyCache(cfg, devices, p.closing)
	p.srs = newSRSCache(cfg)
	if budgetAuto {
		p.keys.resident = pipe.Budget().SetResident
	}
	p.log.Info("gpuc2 prover ready", "backend", cfg.Backend, "params", cfg.ParamsDir, "devices", ordinals,
		"prover_workers", pipe.Stats().Workers(), "synthesis", cfg.SynthesisConcurrency, "host_budget", cfg.HostMemoryBudget)
	return p, nil
}

// openDevices opens the GPUs of ordinals (none: nil, the CPU) with
// cfg's device memory limit (0: each device's free memory less a margin).
// A limit that cannot stream even the smallest sector fails with
// ErrOutOfDeviceMemory.
func openDevices(ordinals []int, cfg Config) (*gpu.Devices, error) {
	if len(ordinals) == 0 {
		return nil, nil
	}
	least, err := leastDeviceMemory()
	if err != nil {
		return nil, err
	}
	devices, err := gpu.Open(gpu.Config{Ordinals: ordinals, MemoryLimit: cfg.DeviceMemoryLimit, VectorStage: cfg.heapABC()})
	if err != nil {
		return nil, fmt.Errorf("gpuc2: %w", classify(err))
	}
	if limit := devices.MemoryLimit(); limit < least {
		devices.Close()
		return nil, fmt.Errorf("gpuc2: %w: a limit of %d bytes, below the %d bytes the smallest sector needs streamed",
			ErrOutOfDeviceMemory, limit, least)
	}
	return devices, nil
}

func closeDevices(devices *gpu.Devices) error {
	if devices == nil {
		return nil
	}
	return devices.Close()
}

// proverWorkers are the pipeline's prover workers: WorkersPerDevice per
// GPU, sharing its prover, or WorkersPerDevice on the CPU.
func proverWorkers(cfg Config, devices *gpu.Devices) []pipeline.Prover {
	var workers []pipeline.Prover
	if devices == nil {
		for range cfg.WorkersPerDevice {
			workers = append(workers, pipeline.Prover{Device: -1, Prover: &groth16.CPUProver{}})
		}
		return workers
	}
	for _, w := range devices.Workers(cfg.WorkersPerDevice) {
		workers = append(workers, pipeline.Prover{Device: w.Ordinal, Prover: w.Prover})
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
// fit; proofs then stream them from the host). Where t's proofs use the
// constraint matrices it loads them too, read from their cache file and
// checked (or recorded) beside the key's load, and places them once the
// key is on the GPUs. They stay loaded until Evict or Close.
func (p *Prover) Preload(ctx context.Context, t abi.RegisteredSealProof) error {
	return p.preload(ctx, "Preload", sealKind(t))
}

func (p *Prover) preload(ctx context.Context, what string, k circuits.Type) error {
	return guard(p.log, what, func() error {
		if err := p.enter(); err != nil {
			return err
		}
		defer p.leave()
		span := p.tracer.Begin(requestTrack, "parameter load", "proof", k.String(), "preload", true)
		defer span.End()
		a, err := p.preloadAdmission(ctx, k)
		if err != nil {
			return err
		}
		if a == nil { // no matrices
			return p.preloadKey(ctx, k)
		}
		defer p.keys.release(k)
		// The matrices' host load (the cache file read and checked, or a
		// recording: CPU work) runs beside the key's (page cache, decode and
		// the bus); their placement on the GPUs follows the key's.
		abandon := p.startMatricesAhead(ctx, a)
		if err := p.preloadKey(ctx, k); err != nil {
			abandon()
			return err
		}
		_, err = p.matricesFor(ctx, a)
		return err
	})
}

// preloadKey preloads k's key (keyCache.preload), traced.
func (p *Prover) preloadKey(ctx context.Context, k circuits.Type) error {
	span := p.tracer.Begin(requestTrack, "key preload", "proof", k.String())
	defer span.End()
	return p.keys.preload(ctx, k, !p.cfg.SkipSelfVerify)
}

// preloadAdmission admits partition 0 of a synthetic request of k, its
// key acquired (opened, not yet preloaded), for loading k's constraint
// matrices as its first proof would (the matrices do not depend on the
// witness); nil, with nothing acquired, where k's proofs take none. The
// key's file comes first: a missing or corrupt one is the preload's error,
// before the host budget's check of a partition (admitShape's).
func (p *Prover) preloadAdmission(ctx context.Context, k circuits.Type) (*admission, error) {
	if p.cfg.ConstraintMatrices == MatricesOff {
		return nil, nil
	}
	sh, err := newShape(k)
	if err != nil {
		return nil, err
	}
	key, err := p.keys.acquire(ctx, k)
	if err != nil {
		return nil, err
	}
	build := sync.OnceValues(func() (synth.Circuit, error) { return k.SyntheticCircuit(ctx) })
	circuit := func(int) (synth.Circuit, error) { return build() }
	a := &admission{kind: k, partitions: sh.partitions, circuit: circuit, pipelined: circuit, shape: sh, key: key}
	if !p.usesMatrices(a) {
		p.keys.release(k)
		return nil, nil
	}
	if err := p.pipe.Budget().Fits(sh.bytes); err != nil {
		p.keys.release(k)
		return nil, err
	}
	return a, nil
}

// Evict releases t's parameters (those of its file, so also of another
// proof type sharing the file, as V1 and V1_1 do): unused ones leave the
// GPUs, are unmapped and forgotten (the next proof loads them again); ones
// in use by a proof drop their decoded host sections, which are decoded
// again on demand. Cached proving assignments of t's shape are freed too.
func (p *Prover) Evict(t abi.RegisteredSealProof) error {
	return p.evict("Evict", sealKind(t), nil)
}

// evict releases k's parameters and those of every loaded type that also
// matches (nil: none), with their cached proving assignments.
func (p *Prover) evict(what string, k circuits.Type, also func(circuits.Type) bool) error {
	return guard(p.log, what, func() error {
		if err := p.enter(); err != nil {
			return err
		}
		defer p.leave()
		types := []circuits.Type{k}
		if also != nil {
			types = append(types, p.keys.boundTypes(also)...)
		}
		var errs []error
		for _, t := range types {
			errs = append(errs, p.keys.evict(t)) // a type whose file went with another's is no longer bound: nil
			if sh, shapeErr := newShape(t); shapeErr == nil {
				p.pipe.Budget().DropSpares(&sh.hint)
				p.pipe.Budget().DropSpares(&sh.witness)
			}
		}
		return errors.Join(errs...)
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
