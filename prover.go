package gpuc2

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/gpuc2/gpuc2/groth16"
	"github.com/gpuc2/gpuc2/native"
	"github.com/gpuc2/gpuc2/synth/porep"
	"github.com/gpuc2/gpuc2/trace"
)

// Errors callers can test with errors.Is.
var (
	// ErrBadInput wraps every problem with the C1 bytes or the sector identity.
	ErrBadInput = porep.ErrBadC1
	// ErrProofInvalid reports a proof that failed self-verification.
	ErrProofInvalid = errors.New("gpuc2: proof failed self-verification")
	// ErrClosed reports a call on a closed Prover.
	ErrClosed = errors.New("gpuc2: prover closed")
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
// DefaultParamsDir, CUDA when available, self-verification on.
type Config struct {
	ParamsDir string  // default DefaultParamsDir()
	Backend   Backend // default BackendAuto
	Device    int     // CUDA device ordinal
	// TestParamsDir, if set, lets test-size sectors (≤ 512 MiB) without real
	// parameters use a local TEST-ONLY setup kept under this directory.
	TestParamsDir string
	// SkipSelfVerify turns off verifying each proof before returning it.
	SkipSelfVerify bool
	Logger         *slog.Logger // default: discard
	// Tracer, if set, records every stage of every proof (C1 parse and
	// check, parameter load, per partition synthesis and each prover
	// phase, self-verification) for Perfetto; see package trace.
	Tracer *trace.Tracer
}

// Prover proves PoRep C2 in-process. It loads each proof type's parameters
// once and keeps them mapped until Close. This version proves one partition
// after another; the pipeline with memory budgets and several GPU workers
// is still to come.
type Prover struct {
	cfg    Config
	prover groth16.Prover
	log    *slog.Logger

	mu     sync.Mutex
	keys   map[porep.RegisteredSealProof]*groth16.ProvingKey
	closed bool
}

// New returns a Prover. It fails if Backend is cuda and the native library
// cannot be loaded.
func New(ctx context.Context, cfg Config) (*Prover, error) {
	if cfg.ParamsDir == "" {
		cfg.ParamsDir = DefaultParamsDir()
	}
	if cfg.Backend == "" {
		cfg.Backend = BackendAuto
	}
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	p := &Prover{cfg: cfg, log: log, keys: map[porep.RegisteredSealProof]*groth16.ProvingKey{}}
	switch cfg.Backend {
	case BackendCPU:
		p.prover = &groth16.CPUProver{}
	case BackendCUDA, BackendAuto:
		if native.Available() {
			p.prover = &groth16.CUDAProver{Device: cfg.Device}
			p.cfg.Backend = BackendCUDA
		} else if cfg.Backend == BackendCUDA {
			return nil, fmt.Errorf("gpuc2: backend cuda: %w", native.ErrNotAvailable)
		} else {
			p.prover = &groth16.CPUProver{}
			p.cfg.Backend = BackendCPU
		}
	default:
		return nil, fmt.Errorf("gpuc2: unknown backend %q", cfg.Backend)
	}
	log.Info("gpuc2 prover ready", "backend", p.cfg.Backend, "params", cfg.ParamsDir)
	return p, ctx.Err()
}

// Backend is the backend in use (auto resolved).
func (p *Prover) Backend() Backend { return p.cfg.Backend }

// SealCommitPhase2 proves a sector's C1 output (filecoin-ffi JSON or the
// Commit2In envelope) and returns the concatenated partition proofs, 192
// bytes each — the call Curio makes through filecoin-ffi today.
func (p *Prover) SealCommitPhase2(ctx context.Context, c1 []byte, sector porep.SectorNumber, miner porep.ActorID) ([]byte, error) {
	out, err := p.ProveC1(ctx, c1, sector, miner)
	if err != nil {
		return nil, err
	}
	return groth16.MarshalProofs(out)
}

// ProveC1 is SealCommitPhase2 returning the partition proofs unencoded.
func (p *Prover) ProveC1(ctx context.Context, c1 []byte, sector porep.SectorNumber, miner porep.ActorID) ([]groth16.Proof, error) {
	tr := p.cfg.Tracer
	main := trace.Track{Process: "cpu", Thread: "requests"}
	span := tr.Begin(main, "C1 parse and check", "sector", uint64(sector), "bytes", len(c1))
	in, err := porep.ParseC1(c1)
	if err == nil {
		err = in.CheckAll(ctx, miner, sector)
	}
	span.End()
	if err != nil {
		return nil, err
	}
	span = tr.Begin(main, "parameter load", "proof", in.RegisteredProof.String())
	pk, err := p.key(ctx, in.RegisteredProof)
	span.End()
	if err != nil {
		return nil, err
	}
	var pvk *groth16.PreparedVerifyingKey
	if !p.cfg.SkipSelfVerify {
		pvk = groth16.PrepareVerifyingKey(pk.VerifyingKey())
	}
	worker := trace.Track{Process: string(p.cfg.Backend), Thread: "prover 0"}
	proofs := make([]groth16.Proof, len(in.VanillaProofs))
	for k := range in.VanillaProofs {
		circuit, err := in.Circuit(k)
		if err != nil {
			return nil, err
		}
		var opts []groth16.ProveOption
		var t groth16.Timings
		if tr != nil {
			opts = append(opts, groth16.WithTimings(&t), groth16.WithPhases(func(name string, start, end time.Time) {
				tr.Add(worker, name, start, end, "sector", uint64(sector), "partition", k)
			}))
		}
		span := tr.Begin(worker, "partition", "sector", uint64(sector), "partition", k)
		begin := time.Now() // synthesis starts inside the partition's span
		proof, err := groth16.Prove(ctx, p.prover, pk, circuit, opts...)
		span.End()
		tr.Add(worker, "synthesis", begin, begin.Add(t.Synthesis), "sector", uint64(sector), "partition", k)
		if err != nil {
			return nil, fmt.Errorf("gpuc2: partition %d: %w", k, err)
		}
		if pvk != nil {
			span := tr.Begin(main, "self-verify", "sector", uint64(sector), "partition", k)
			err := p.selfVerify(pvk, proof, in, miner, sector, k)
			span.End()
			if err != nil {
				return nil, err
			}
		}
		proofs[k] = *proof
		p.log.Debug("partition proved", "sector", sector, "partition", k)
	}
	return proofs, nil
}

func (p *Prover) selfVerify(pvk *groth16.PreparedVerifyingKey, proof *groth16.Proof, in *porep.C1, miner porep.ActorID, sector porep.SectorNumber, k int) error {
	public, err := porep.PublicInputs(in, miner, sector, k)
	if err != nil {
		return err
	}
	ok, err := pvk.Verify(proof, public)
	if err != nil {
		return fmt.Errorf("%w: partition %d: %w", ErrProofInvalid, k, err)
	}
	if !ok {
		return fmt.Errorf("%w: partition %d", ErrProofInvalid, k)
	}
	return nil
}

// key returns the proving key of proof type t, opening it on first use.
func (p *Prover) key(ctx context.Context, t porep.RegisteredSealProof) (*groth16.ProvingKey, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return nil, ErrClosed
	}
	if pk := p.keys[t]; pk != nil {
		return pk, nil
	}
	pk, err := p.openKey(ctx, t)
	if err != nil {
		return nil, err
	}
	p.keys[t] = pk
	return pk, nil
}

func (p *Prover) openKey(ctx context.Context, t porep.RegisteredSealProof) (*groth16.ProvingKey, error) {
	paramsPath, vkPath, err := FindParams(p.cfg.ParamsDir, t)
	if err == nil {
		pk, err := OpenParams(paramsPath, vkPath)
		if err == nil {
			p.log.Info("parameters opened", "proof", t, "file", paramsPath)
		}
		return pk, err
	}
	if !errors.Is(err, ErrParamsMissing) || p.cfg.TestParamsDir == "" || !IsTestSize(t) {
		return nil, err
	}
	pk, path, created, err := TestParams(ctx, p.cfg.TestParamsDir, t)
	if err != nil {
		return nil, err
	}
	p.log.Warn("using TEST-ONLY parameters", "proof", t, "file", path, "created", created)
	return pk, nil
}

// Close releases the parameters. Calls in flight must have returned.
func (p *Prover) Close() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return nil
	}
	p.closed = true
	var errs []error
	for _, pk := range p.keys {
		errs = append(errs, pk.Close())
	}
	p.keys = nil
	return errors.Join(errs...)
}
