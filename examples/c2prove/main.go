// Command c2prove is gpuc2's main job: it proves sectors' PoRep Commit2
// (C2) through the gpuc2 facade (gpuc2.Prover) and verifies the proofs.
//
// With no flags it makes a synthetic 2 KiB sector (test data, not a real
// sector), creates once a local test setup for the 2 KiB circuit in
// bellperson's file format (cached under the user cache directory, named
// TEST-ONLY), proves it on the CPU, checks it with VerifySeal, and prints
// timings and, last, "proof=<hex> bytes=<n> verified=true".
//
// Every mode goes through the facade's pipeline (Prover.ProveSeal): the
// parameters are loaded (and put on the GPUs) first, then -count proofs are
// put in flight at once, each partition's progress is shown, every proof
// is checked with VerifySeal, and a summary follows: the first proof's
// latency, steady-state seconds per proof, the stages, peak host RSS and
// reserved VRAM. With -trace the run's stages (C1 checks, parameter load,
// queue, host memory, synthesis, the prover's phases, self-verification)
// go to a Chrome trace for Perfetto.
//
// With -backend cuda (or auto, when the native library loads) H and the
// MSMs run on the GPUs of -devices (default: every visible one), -workers
// prover workers each.
//
// Parameters: the real Filecoin files from -params take precedence; else
// a TEST-ONLY setup under -test-params (default the user cache directory)
// is used, for any sector size: one made by examples/testsetup (32 GiB:
// `go run ./examples/testsetup -sector-size 32GiB`, on a GPU), or one
// created on first use for test sizes (≤ 512 MiB). With -c1 it proves a
// real C1 output (filecoin-ffi JSON or the Commit2In envelope).
//
// -facade is accepted for older scripts and does nothing: every mode
// proves through the facade.
package main

import (
	"context"
	"crypto/sha256"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"time"

	"github.com/filecoin-project/go-state-types/abi"

	"github.com/gpuc2/gpuc2"
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
	devices    []int
	traceFile  string
	count      int
	testParams string
	workers    int
}

func run() error {
	var o options
	flag.StringVar(&o.sectorSize, "sector-size", "2KiB", "sector size of the synthetic sector: 2KiB, 8MiB, 512MiB, 32GiB or 64GiB")
	flag.StringVar(&o.c1File, "c1", "", "C1 output to prove (JSON or Commit2In envelope); default: a synthetic sector")
	flag.Uint64Var(&o.sector, "sector-number", 1, "sector number")
	flag.Uint64Var(&o.miner, "miner-id", 1000, "miner actor id")
	flag.StringVar(&o.paramsDir, "params", gpuc2.DefaultParamsDir(), "directory of Filecoin's parameter files")
	flag.StringVar(&o.backend, "backend", "auto", "where H and the MSMs run: auto (cuda when the native library loads), cpu or cuda")
	flag.Func("devices", "GPUs to prove on, comma-separated ordinals (gpuc2.Config.Devices; default every visible one)", func(s string) error {
		for _, f := range strings.Split(s, ",") {
			d, err := strconv.Atoi(strings.TrimSpace(f))
			if err != nil {
				return err
			}
			o.devices = append(o.devices, d)
		}
		return nil
	})
	flag.StringVar(&o.traceFile, "trace", "", "write a Chrome trace of the run (open in Perfetto) to this file")
	flag.IntVar(&o.count, "count", 1, "proofs in flight at once through the gpuc2 pipeline (synthetic sectors get consecutive sector numbers)")
	cache, _ := os.UserCacheDir()
	flag.StringVar(&o.testParams, "test-params", cache, "cache directory of TEST-ONLY setups (gpuc2.TestParamsPath; see examples/testsetup), used when -params has no real files; empty: none")
	flag.Bool("facade", false, "no effect, kept for older scripts: every mode proves through the gpuc2 facade's pipeline")
	flag.IntVar(&o.workers, "workers", 0, "prover workers per GPU, or on the CPU (gpuc2.Config.WorkersPerDevice; 0: the facade's default)")
	flag.Parse()
	if o.count < 1 {
		return fmt.Errorf("-count must be at least 1, not %d", o.count)
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	spt, reqs, err := requests(ctx, &o)
	if err != nil {
		return err
	}
	var tracer *trace.Tracer
	if o.traceFile != "" {
		tracer = trace.New()
	}
	return prove(ctx, &o, spt, reqs, tracer)
}

// requests are the o.count sectors to prove: the C1 of -c1 for each, or
// synthetic sectors with consecutive sector numbers from -sector-number.
func requests(ctx context.Context, o *options) (abi.RegisteredSealProof, []gpuc2.SealRequest, error) {
	miner := abi.ActorID(o.miner)
	reqs := make([]gpuc2.SealRequest, o.count)
	var c1 *porep.C1
	if o.c1File != "" {
		var raw []byte
		var err error
		if c1, raw, err = readC1(o.c1File); err != nil {
			return 0, nil, err
		}
		for i := range reqs {
			reqs[i] = gpuc2.SealRequest{C1: raw, Sector: abi.SectorNumber(o.sector), Miner: miner}
		}
	} else {
		fmt.Printf("sector: synthetic %s sector(s) (generated test data, not real sectors)\n", o.sectorSize)
		for i := range reqs {
			sector := abi.SectorNumber(o.sector) + abi.SectorNumber(i)
			var raw []byte
			var err error
			if c1, raw, err = syntheticC1(ctx, o.sectorSize, miner, sector); err != nil {
				return 0, nil, err
			}
			reqs[i] = gpuc2.SealRequest{C1: raw, Sector: sector, Miner: miner}
		}
	}
	sp, err := porep.ParamsFor(c1.RegisteredProof)
	if err != nil {
		return 0, nil, err
	}
	fmt.Printf("C1: %v, %d partitions × %d challenges (checked by the facade)\n",
		porep.ProofName(c1.RegisteredProof), len(c1.VanillaProofs), sp.ChallengesPerPartition)
	return c1.RegisteredProof, reqs, nil
}

// readC1 reads and parses a C1 output (filecoin-ffi JSON or the Commit2In envelope).
func readC1(path string) (*porep.C1, []byte, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, err
	}
	c1, err := porep.ParseC1(raw)
	return c1, raw, err
}

// syntheticC1 makes a synthetic sector's C1 and its JSON.
func syntheticC1(ctx context.Context, size string, miner abi.ActorID, sector abi.SectorNumber) (*porep.C1, []byte, error) {
	spt, err := porep.ProofForSectorSize(size)
	if err != nil {
		return nil, nil, fmt.Errorf("-sector-size: %w", err)
	}
	seed := sha256.Sum256([]byte("c2prove synthetic sector"))
	c1, err := porep.SyntheticC1(ctx, spt, miner, sector, seed)
	if err != nil {
		return nil, nil, err
	}
	raw, err := c1.EncodeJSON()
	return c1, raw, err
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
				fmt.Printf("\r%s… %v", what, time.Since(start).Round(time.Millisecond))
			}
		}
	}()
	return func() { close(stop); <-finished }
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
