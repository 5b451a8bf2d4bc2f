// Command c2prove is gpuc2's main job: it proves a sector's PoRep Commit2
// (C2) and verifies the proof.
//
// With no flags it makes a synthetic 2 KiB sector (test data, not a real
// sector), creates once a local test setup for the 2 KiB circuit in
// bellperson's file format (cached under the user cache directory, named
// TEST-ONLY), proves every partition on the CPU, verifies, and prints timings
// and, last, "proof=<hex> bytes=<n> verified=true".
//
// With -backend cuda (or auto, when the native library loads) H and the
// MSMs run on GPU 0.
//
// With -count N (or -facade) it puts N proofs in flight at once through the
// gpuc2 facade's pipeline (Prover.ProveSeal), shows each partition's
// progress, checks every proof with VerifySeal and ends with a summary:
// the first proof's latency, steady-state seconds per proof, the stages,
// peak host RSS and reserved VRAM.
//
// Parameters: the real Filecoin files from -params take precedence; else
// a TEST-ONLY setup under -test-params (default the user cache directory)
// is used, for any sector size: one made by examples/testsetup (32 GiB:
// `go run ./examples/testsetup -sector-size 32GiB`, on a GPU), or one
// created on first use for test sizes (≤ 512 MiB). With -c1 it proves a
// real C1 output (filecoin-ffi JSON or the Commit2In envelope).
package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"time"

	"github.com/filecoin-project/go-state-types/abi"

	"github.com/gpuc2/gpuc2"
	"github.com/gpuc2/gpuc2/groth16"
	"github.com/gpuc2/gpuc2/native"
	"github.com/gpuc2/gpuc2/synth/porep"
	"github.com/gpuc2/gpuc2/trace"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "c2prove:", err)
		os.Exit(1)
	}
}

type options struct {
	sectorSize string
	c1File     string
	sector     uint64
	miner      uint64
	paramsDir  string
	backend    string
	traceFile  string
	count      int
	testParams string
	facade     bool
	workers    int
}

func run() error {
	var o options
	flag.StringVar(&o.sectorSize, "sector-size", "2KiB", "sector size of the synthetic sector: 2KiB, 8MiB, 512MiB, 32GiB or 64GiB")
	flag.StringVar(&o.c1File, "c1", "", "C1 output to prove (JSON or Commit2In envelope); default: a synthetic sector")
	flag.Uint64Var(&o.sector, "sector-number", 1, "sector number")
	flag.Uint64Var(&o.miner, "miner-id", 1000, "miner actor id")
	flag.StringVar(&o.paramsDir, "params", gpuc2.DefaultParamsDir(), "directory of Filecoin's parameter files")
	flag.StringVar(&o.backend, "backend", "auto", "where MSMs run: auto (cuda when the native library loads), cpu or cuda")
	flag.StringVar(&o.traceFile, "trace", "", "write a Chrome trace of the run (open in Perfetto) to this file")
	flag.IntVar(&o.count, "count", 1, "proofs in flight at once through the gpuc2 pipeline (synthetic sectors get consecutive sector numbers)")
	cache, _ := os.UserCacheDir()
	flag.StringVar(&o.testParams, "test-params", cache, "cache directory of TEST-ONLY setups (gpuc2.TestParamsPath; see examples/testsetup), used when -params has no real files; empty: none")
	flag.BoolVar(&o.facade, "facade", false, "prove through the gpuc2 facade's pipeline even with -count 1 (implied by -count > 1)")
	flag.IntVar(&o.workers, "workers", 0, "pipeline: prover workers per GPU (gpuc2.Config.WorkersPerDevice; 0: the facade's default)")
	flag.Parse()
	if o.count < 1 {
		return fmt.Errorf("-count must be at least 1, not %d", o.count)
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	var tracer *trace.Tracer
	if o.traceFile != "" {
		tracer = trace.New()
	}
	cpu := trace.Track{Process: "cpu", Thread: "main"}
	miner, sector := abi.ActorID(o.miner), abi.SectorNumber(o.sector)

	// The sector.
	span := tracer.Begin(cpu, "C1 parse and check")
	c1, err := loadC1(ctx, &o, miner, sector)
	if err != nil {
		return err
	}
	start := time.Now()
	if err := c1.CheckAll(ctx, miner, sector); err != nil {
		return err
	}
	span.End()
	sp, err := porep.ParamsFor(c1.RegisteredProof)
	if err != nil {
		return err
	}
	fmt.Printf("C1 checked: %v, %d partitions × %d challenges (%v)\n",
		porep.ProofName(c1.RegisteredProof), len(c1.VanillaProofs), sp.ChallengesPerPartition, since(start))

	if o.count > 1 || o.facade {
		return runPipeline(ctx, &o, c1, tracer)
	}

	// The parameters: real files when present, else a cached test setup.
	span = tracer.Begin(cpu, "parameter load")
	pk, err := loadParams(ctx, &o, c1.RegisteredProof)
	if err != nil {
		return err
	}
	span.End()

	// The backend.
	var prover groth16.Prover = &groth16.CPUProver{}
	switch o.backend {
	case "cpu":
	case "cuda", "auto":
		if !native.Available() {
			if o.backend == "cuda" {
				return fmt.Errorf("-backend cuda: %w", native.ErrNotAvailable)
			}
			o.backend = "cpu"
			break
		}
		cuda, err := groth16.NewCUDAProver(groth16.CUDAConfig{Device: 0})
		if err != nil {
			return err
		}
		defer cuda.Close()
		prover = cuda
		o.backend = "cuda"
	default:
		return fmt.Errorf("-backend must be auto, cpu or cuda, not %q", o.backend)
	}

	// Prove and verify each partition.
	pvk := groth16.PrepareVerifyingKey(pk.VerifyingKey())
	proofs := make([]groth16.Proof, len(c1.VanillaProofs))
	track := trace.Track{Process: o.backend, Thread: "prover 0"}
	total := time.Now()
	for k := range c1.VanillaProofs {
		circuit, err := c1.Circuit(k)
		if err != nil {
			return err
		}
		circuit.Progress = progress(fmt.Sprintf("partition %d: synthesis", k))
		var t groth16.Timings
		span := tracer.Begin(track, "partition", "partition", k)
		p, err := groth16.Prove(ctx, prover, pk, circuit, groth16.WithTimings(&t),
			groth16.WithPhases(func(name string, s, e time.Time, args ...any) {
				tracer.Add(track, name, s, e, append([]any{"partition", k}, args...)...)
			}))
		span.End()
		if err != nil {
			return fmt.Errorf("partition %d: %w", k, err)
		}
		fmt.Printf("\rpartition %d (%s): %v = synthesis %v + H %v + MSMs h %v, l %v, a %v, b_g1 %v, b_g2 %v\n",
			k, o.backend, round(t.Synthesis+t.Total), round(t.Synthesis), round(t.H),
			round(t.MSMH), round(t.MSML), round(t.MSMA), round(t.MSMBG1), round(t.MSMBG2))
		proofs[k] = *p
	}
	proveTime := time.Since(total)

	start = time.Now()
	span = tracer.Begin(cpu, "verify")
	ok := true
	for k := range proofs {
		public, err := porep.PublicInputs(c1, miner, sector, k)
		if err != nil {
			return err
		}
		good, err := pvk.Verify(&proofs[k], public)
		if err != nil {
			return err
		}
		ok = ok && good
	}
	span.End()
	fmt.Printf("proved in %v, verified in %v\n", round(proveTime), since(start))
	if tracer != nil {
		if err := writeTrace(o.traceFile, tracer); err != nil {
			return err
		}
	}
	b, err := groth16.MarshalProofs(proofs)
	if err != nil {
		return err
	}
	fmt.Printf("proof=%s bytes=%d verified=%t\n", hex.EncodeToString(b), len(b), ok)
	if !ok {
		return errors.New("the proof does not verify")
	}
	return nil
}

func loadC1(ctx context.Context, o *options, miner abi.ActorID, sector abi.SectorNumber) (*porep.C1, error) {
	if o.c1File != "" {
		data, err := os.ReadFile(o.c1File)
		if err != nil {
			return nil, err
		}
		return porep.ParseC1(data)
	}
	spt, err := porep.ProofForSectorSize(o.sectorSize)
	if err != nil {
		return nil, fmt.Errorf("-sector-size: %w", err)
	}
	fmt.Printf("sector: synthetic %s sector (generated test data, not a real sector)\n", o.sectorSize)
	seed := sha256.Sum256([]byte("c2prove synthetic sector"))
	return porep.SyntheticC1(ctx, spt, miner, sector, seed)
}

func loadParams(ctx context.Context, o *options, p abi.RegisteredSealProof) (*groth16.ProvingKey, error) {
	start := time.Now()
	paramsPath, vkPath, err := gpuc2.FindParams(o.paramsDir, p)
	if err == nil {
		pk, err := gpuc2.OpenParams(paramsPath, vkPath)
		if err != nil {
			return nil, err
		}
		fmt.Printf("parameters: %s (%v)\n", paramsPath, since(start))
		return pk, nil
	}
	if !errors.Is(err, gpuc2.ErrParamsMissing) || o.testParams == "" {
		return nil, err
	}
	fmt.Printf("parameters: no real %v parameters in %s; using a local TEST-ONLY setup\n", porep.ProofName(p), o.paramsDir)
	done := func() {}
	if _, statErr := os.Stat(gpuc2.TestParamsPath(o.testParams, p)); statErr != nil && gpuc2.IsTestSize(p) {
		done = ticker("  creating the test setup (once; later runs reuse it)")
	}
	pk, path, created, err := gpuc2.TestParams(ctx, o.testParams, p)
	done()
	if err != nil {
		return nil, err
	}
	verb := "loaded"
	if created {
		verb = "created"
	}
	fmt.Printf("parameters: %s TEST-ONLY setup %s (%v)\n", verb, path, since(start))
	return pk, nil
}

// progress returns a callback that redraws one status line.
func progress(what string) func(done, total int) {
	return func(done, total int) { fmt.Printf("\r%s %d/%d challenges", what, done, total) }
}

// ticker prints elapsed time on one line every few seconds until done is called.
func ticker(what string) (done func()) {
	start := time.Now()
	stop := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		t := time.NewTicker(2 * time.Second)
		defer t.Stop()
		for {
			select {
			case <-stop:
				fmt.Print("\r\033[K")
				return
			case <-t.C:
				fmt.Printf("\r%s… %v", what, since(start))
			}
		}
	}()
	return func() { close(stop); <-finished }
}

func since(t time.Time) time.Duration { return round(time.Since(t)) }

func round(d time.Duration) time.Duration { return d.Round(time.Millisecond) }

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
