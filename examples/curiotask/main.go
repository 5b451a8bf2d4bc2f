// Command curiotask is the integrator's page: gpuc2 embedded the way Curio
// would embed it.
//
//   - The call: Curio proves C2 through lib/ffiselect's FFISelect, whose
//     SealCommitPhase2 field has the shape
//     func(ctx, phase1Output []byte, sectorNum abi.SectorNumber, minerID abi.ActorID) ([]byte, error).
//     (*gpuc2.Prover).SealCommitPhase2 has exactly that shape, so it is
//     assigned to the field as it stands (ffiSelect below, compile-checked),
//     and its proof is checked with VerifySeal(proof.SealVerifyInfo), the
//     shape of filecoin-ffi's VerifySeal.
//   - The cost: gpuc2.Requirements prices one task for the scheduler (what
//     harmonytask's TypeDetails declares) before the Prover exists.
//   - The Prover is made once when the node starts and shared by all tasks;
//     Preload puts the parameters in place (on a GPU, in VRAM).
//
// It runs one synthetic 2 KiB sector (test data) against a local TEST-ONLY
// setup cached under the user cache directory:
//
//	go run ./examples/curiotask
package main

import (
	"context"
	"crypto/sha256"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"time"

	"github.com/filecoin-project/go-state-types/abi"

	"github.com/gpuc2/gpuc2"
	"github.com/gpuc2/gpuc2/examples/internal/cli"
	"github.com/gpuc2/gpuc2/synth/porep"
)

// Resources mirrors harmonytask's resources.Resources: what one task holds.
type Resources struct {
	Cpu int     // cores
	Gpu float64 // GPUs (fractions share one)
	Ram uint64  // bytes
}

// TaskTypeDetails mirrors the parts of harmonytask.TaskTypeDetails that a C2 task fills.
type TaskTypeDetails struct {
	Name        string
	Max         int // tasks of this type at once on this node
	MaxFailures uint
	Cost        Resources
}

// ffiSelect mirrors the C2 field of Curio's lib/ffiselect.FFISelect. In
// Curio the assignment is `ffiselect.FFISelect.SealCommitPhase2 = p.SealCommitPhase2`.
type ffiSelect struct {
	SealCommitPhase2 func(ctx context.Context, phase1Output []byte, sectorNum abi.SectorNumber, minerID abi.ActorID) ([]byte, error)
}

// C2Task proves PoRep C2 in-process; one per node, shared by all its tasks.
type C2Task struct {
	ffi    ffiSelect
	prover *gpuc2.Prover
	spt    abi.RegisteredSealProof
	need   gpuc2.Resources
	max    int
}

// NewC2Task starts the prover once, loads the parameters now (Preload: on
// a GPU they then live in VRAM, not in host RAM) and prices a task from
// Requirements.
func NewC2Task(ctx context.Context, cfg gpuc2.Config, spt abi.RegisteredSealProof) (*C2Task, error) {
	need, err := gpuc2.Requirements(spt, cfg)
	if err != nil {
		return nil, err
	}
	p, err := gpuc2.New(ctx, cfg)
	if err != nil {
		return nil, err
	}
	if err := p.Preload(ctx, spt); err != nil {
		p.Close()
		return nil, err
	}
	// Several proofs in flight keep the GPUs busy; the prover's own host
	// memory budget keeps them within the machine.
	return &C2Task{ffi: ffiSelect{SealCommitPhase2: p.SealCommitPhase2}, prover: p, spt: spt, need: need, max: 2}, nil
}

// TypeDetails is what the task scheduler admits work by.
func (t *C2Task) TypeDetails() TaskTypeDetails {
	return TaskTypeDetails{
		Name:        "PoRep-C2",
		Max:         t.max,
		MaxFailures: 3,
		Cost: Resources{
			Cpu: 1, // synthesis is parallel but shares the cores; 1 lets Curio pack other work around it
			Gpu: float64(t.need.GPUs) / float64(t.max),
			// NewC2Task preloaded the parameters. The process's first proof
			// also loads the constraint matrices (need.MatricesLoadBytes, once).
			Ram: uint64(t.need.PreloadedHostBytes),
		},
	}
}

// Do proves one sector's C2 and verifies the proof as the chain will. The
// SealVerifyInfo comes from what Curio keeps per sector (ticket, seed,
// comm_r, comm_d); here NewSealVerifyInfo reads them back from the C1.
func (t *C2Task) Do(ctx context.Context, c1 []byte, sector abi.SectorNumber, miner abi.ActorID) ([]byte, error) {
	proofBytes, err := t.ffi.SealCommitPhase2(ctx, c1, sector, miner)
	if err != nil {
		switch {
		case errors.Is(err, gpuc2.ErrBadInput):
			return nil, fmt.Errorf("bad C1 output, redo C1: %w", err)
		case errors.Is(err, gpuc2.ErrOutOfDeviceMemory):
			return nil, fmt.Errorf("retry later: %w", err)
		}
		return nil, err
	}
	info, err := gpuc2.NewSealVerifyInfo(c1, proofBytes, sector, miner) // CIDs from the C1's comm_r, comm_d
	if err != nil {
		return nil, err
	}
	ok, err := t.prover.VerifySeal(info)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, errors.New("the proof does not verify")
	}
	return proofBytes, nil
}

// Close stops the prover when the node shuts down.
func (t *C2Task) Close() error { return t.prover.Close() }

func main() {
	err := parseFlags(os.Args[1:], os.Stderr)
	if err == nil {
		err = run()
	}
	cli.Exit("curiotask", err) // 2 after a usage error: nothing was done
}

// parseFlags checks the command line: curiotask takes no flags but -h, and
// no arguments. Usage and errors go to output.
func parseFlags(args []string, output io.Writer) error {
	fs := flag.NewFlagSet("curiotask", flag.ContinueOnError)
	fs.SetOutput(output)
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: curiotask\n\nProves one synthetic 2 KiB sector through gpuc2 in the shape of a Curio C2 task\n"+
			"(TEST-ONLY parameters, made on first use under the user cache directory). It takes no flags.")
	}
	return cli.Parse(fs, args)
}

func run() error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	cache, err := os.UserCacheDir()
	if err != nil {
		return err
	}
	spt := abi.RegisteredSealProof_StackedDrg2KiBV1_1
	fmt.Println("loading the parameters (the first run creates a TEST-ONLY setup, minutes)…")
	task, err := NewC2Task(ctx, gpuc2.Config{TestParamsDir: cache}, spt)
	if err != nil {
		return err
	}
	defer task.Close()
	d := task.TypeDetails()
	fmt.Printf("task %s: max %d, cost cpu %d gpu %.2f ram %.2f GiB\n", d.Name, d.Max, d.Cost.Cpu, d.Cost.Gpu, float64(d.Cost.Ram)/(1<<30))

	miner, sector := abi.ActorID(1000), abi.SectorNumber(1)
	c1, err := porep.SyntheticC1(ctx, spt, miner, sector, sha256.Sum256([]byte("curiotask synthetic sector")))
	if err != nil {
		return err
	}
	raw, err := c1.EncodeJSON()
	if err != nil {
		return err
	}
	fmt.Println("proving a synthetic 2 KiB sector…")
	start := time.Now()
	proofBytes, err := task.Do(ctx, raw, sector, miner)
	if err != nil {
		return err
	}
	fmt.Printf("sector %d proven and verified in %v: %d bytes\n", sector, time.Since(start).Round(time.Millisecond), len(proofBytes))
	return nil
}
