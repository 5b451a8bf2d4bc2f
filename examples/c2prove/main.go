// Command c2prove is gpuc2's main job: it proves sectors' PoRep Commit2
// (C2) through the gpuc2 facade (gpuc2.Prover) and verifies the proofs.
//
// With no flags it makes a synthetic 2 KiB sector (test data, not a real
// sector), creates once a local test setup for the 2 KiB circuit in
// bellperson's file format (cached under the user cache directory, named
// TEST-ONLY), proves it on the CPU, checks it with VerifySeal, and prints
// timings and, last, "proof=<hex> bytes=<n> verified=true params=TEST-ONLY"
// (with real parameters, params=<the .params file>).
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
// Every flag is checked before any work, and a bad command line exits 2:
// an unknown -backend, -backend cuda without the native library (the
// message names every place it was looked for and how to build it), a
// -params directory without the real files, stray arguments. -backend
// auto says which backend it chose and, for the CPU, why.
//
// Parameters: -params DIR must hold the real Filecoin files for the proof
// type (an error names the files looked for). Without -params, the real
// files of the default directory ($FIL_PROOFS_PARAMETER_CACHE, else
// /var/tmp/filecoin-proof-parameters) are used when there; else a
// TEST-ONLY setup under -test-params (default the user cache directory),
// which c2prove announces on stderr and in its last line (params=TEST-ONLY):
// one made by examples/testsetup (32 GiB: `go run ./examples/testsetup
// -sector-size 32GiB`, on a GPU), or one created on first use for test
// sizes (≤ 512 MiB). Its proofs verify only against that local key. With
// -c1 it proves a real C1 output (filecoin-ffi JSON or the Commit2In
// envelope).
//
// Progress: on a terminal, one status line redrawn every second names
// each proof's running phase — queued, synthesis, proving, H, msm_h,
// msm_l, msm_a, msm_b_g1, msm_b_g2, verify — and how long it has run;
// when stdout is not a terminal, each phase's start is a plain line
// ("progress …"), without \r or escape codes.
//
// -check-real checks gpuc2 against Filecoin's real 2 KiB parameter files
// in -params (realproofs): rust-fil-proofs' 124 real 2 KiB proofs verified
// with the real .vk, and tampered copies refused, per porep_config; then
// synthetic V1_1 and Synthetic PoRep sectors proved with the real .params
// and verified with the real .vk. Without the files it is a usage error
// naming them.
//
// -facade is accepted for older scripts and does nothing: every mode
// proves through the facade.
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
	"path/filepath"
	"time"

	"github.com/filecoin-project/go-state-types/abi"

	"github.com/gpuc2/gpuc2"
	"github.com/gpuc2/gpuc2/examples/internal/cli"
	"github.com/gpuc2/gpuc2/synth/porep"
	"github.com/gpuc2/gpuc2/synth/update"
	"github.com/gpuc2/gpuc2/trace"
)

func main() {
	o, err := parseFlags(os.Args[1:], os.Stderr)
	if err == nil {
		err = o.check()
	}
	if err == nil {
		tty := cli.Terminal(os.Stdout)
		d := newDisplay(os.Stdout, os.Stderr, tty, cli.Width(os.Stdout))
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
		err = run(ctx, o, d)
		stop()
		d.end() // the error, if any, starts on a line of its own
	}
	cli.Exit("c2prove", err)
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
	memProfile string
	count      int
	testParams string
	workers    int
	deviceMem  int64           // -device-memory: gpuc2.Config.DeviceMemoryLimit
	matrices   string          // -matrices: gpuc2.Config.ConstraintMatrices
	checkReal  bool            // -check-real
	update     bool            // -update: SnapDeals update proofs, not PoRep C2
	set        map[string]bool // the flags given on the command line

	// Resolved by check.
	spt        abi.RegisteredSealProof
	upt        abi.RegisteredUpdateProof // with -update
	c1Raw      []byte                    // the -c1 file
	c1         *porep.C1                 // parsed, for -c1
	backendWhy string                    // why this backend
	params     string                    // the real .params file; "": the TEST-ONLY setup
	vk         string                    // the real .vk file, with -check-real
	testOnly   string                    // the TEST-ONLY setup's path, when used
}

// parseFlags parses c2prove's command line; usage and flag errors go to
// output.
func parseFlags(args []string, output io.Writer) (*options, error) {
	o := &options{set: map[string]bool{}}
	fs := flag.NewFlagSet("c2prove", flag.ContinueOnError)
	fs.SetOutput(output)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), "usage: c2prove [flags]\n\n"+
			"Proves PoRep C2 through gpuc2 and verifies the proofs; with no flags, a synthetic\n"+
			"2 KiB sector on the CPU with a TEST-ONLY setup made once under the user cache directory.\n\n")
		fs.PrintDefaults()
	}
	fs.StringVar(&o.sectorSize, "sector-size", "2KiB", "sector size of the synthetic sector: 2KiB, 8MiB, 512MiB, 32GiB or 64GiB")
	fs.StringVar(&o.c1File, "c1", "", "C1 output to prove (JSON or Commit2In envelope); default: a synthetic sector")
	fs.Uint64Var(&o.sector, "sector-number", 1, "sector number")
	fs.Uint64Var(&o.miner, "miner-id", 1000, "miner actor id")
	fs.StringVar(&o.paramsDir, "params", gpuc2.DefaultParamsDir(), "directory of Filecoin's parameter files; given, it must hold the proof type's real .params and .vk (no TEST-ONLY fallback)")
	fs.StringVar(&o.backend, "backend", "auto", "where H and the MSMs run: auto (cuda when the native library loads, else cpu; says which and why), cpu or cuda")
	fs.Func("devices", "GPUs to prove on, comma-separated ordinals (gpuc2.Config.Devices; default every visible one; needs the cuda backend)", cli.DevicesFlag(&o.devices))
	fs.StringVar(&o.traceFile, "trace", "", "write a Chrome trace of the run (open in Perfetto) to this file")
	fs.StringVar(&o.memProfile, "memprofile", "", "write a Go heap profile (go tool pprof) to this file once the proofs are done, before the prover closes, and one to FILE.peak at the sampled peak of the resident set")
	fs.IntVar(&o.count, "count", 1, "proofs in flight at once through the gpuc2 pipeline (synthetic sectors get consecutive sector numbers)")
	cache, _ := os.UserCacheDir()
	fs.StringVar(&o.testParams, "test-params", cache, "cache directory of TEST-ONLY setups (gpuc2.TestParamsPath; see examples/testsetup), used without -params when the default directory has no real files; empty: none")
	fs.BoolVar(&o.checkReal, "check-real", false, "check gpuc2 against Filecoin's real 2 KiB parameters in -params (curio fetch-params 2KiB or lotus fetch-params 2048 put them there): verify rust-fil-proofs' 124 real 2 KiB proofs with the real .vk, and prove synthetic 2 KiB sectors (V1_1, Synthetic PoRep) with the real .params, verifying them with the real .vk")
	fs.BoolVar(&o.update, "update", false, "prove SnapDeals sector updates (gpuc2.Prover.ProveUpdate, checked with VerifyUpdateProof) of synthetic -sector-size updates instead of PoRep C2; parameters: the update circuit's (TEST-ONLY: `testsetup -update`)")
	fs.Bool("facade", false, "no effect, kept for older scripts: every mode proves through the gpuc2 facade's pipeline")
	fs.IntVar(&o.workers, "workers", 0, "prover workers per GPU, or on the CPU (gpuc2.Config.WorkersPerDevice; 0: the facade's default)")
	fs.StringVar(&o.matrices, "matrices", "auto", "prove from the circuit's compiled constraint matrices, recorded on the first proof (gpuc2.Config.ConstraintMatrices): auto (when every GPU evaluates a, b, c from them: beside a resident key, or streamed with the key where that costs no overlap), on (also on the host) or off (full synthesis)")
	fs.Func("device-memory", "device memory gpuc2 may use per GPU, e.g. 16GiB or 24GB (gpuc2.Config.DeviceMemoryLimit; default: the free memory less a margin); below the key's need the key streams from pinned host memory", cli.BytesFlag(&o.deviceMem))
	if err := cli.Parse(fs, args); err != nil {
		return nil, err
	}
	fs.Visit(func(f *flag.Flag) { o.set[f.Name] = true })
	return o, nil
}

// matricesMode is -matrices as gpuc2 takes it.
func (o *options) matricesMode() gpuc2.MatricesMode {
	if o.matrices == "auto" {
		return gpuc2.MatricesAuto
	}
	return gpuc2.MatricesMode(o.matrices)
}

// check checks every option before any work, resolving the proof type (of
// -c1, read and parsed here, or of -sector-size), the backend and the
// parameters. Its errors are usage errors: c2prove exits 2.
func (o *options) check() error {
	switch {
	case o.count < 1:
		return cli.Usagef("-count must be at least 1, not %d", o.count)
	case o.workers < 0:
		return cli.Usagef("-workers must not be negative, not %d", o.workers)
	case o.matrices != "auto" && o.matrices != "on" && o.matrices != "off":
		return cli.Usagef("-matrices must be auto, on or off, not %q", o.matrices)
	case o.c1File != "" && o.set["sector-size"]:
		return cli.Usagef("-sector-size is for synthetic sectors: the C1 of -c1 has its own")
	case o.set["params"] && o.set["test-params"]:
		return cli.Usagef("-test-params is used only without -params: a -params directory must hold the real files")
	case o.update && (o.c1File != "" || o.checkReal):
		return cli.Usagef("-update proves synthetic sector updates: not with -c1 or -check-real")
	}
	if o.checkReal {
		for _, f := range []string{"c1", "sector-size", "count", "test-params", "trace", "memprofile"} {
			if o.set[f] {
				return cli.Usagef("-%s is not used with -check-real, which proves synthetic 2 KiB sectors with the real parameters", f)
			}
		}
	}
	if o.c1File != "" {
		raw, err := os.ReadFile(o.c1File)
		if err != nil {
			return cli.Usagef("-c1: %w", err)
		}
		c1, err := porep.ParseC1(raw)
		if err != nil {
			return cli.Usagef("-c1 %s: %w", o.c1File, err)
		}
		o.c1, o.c1Raw, o.spt = c1, raw, c1.RegisteredProof
	} else {
		spt, err := porep.ProofForSectorSize(o.sectorSize)
		if err != nil {
			return cli.Usagef("-sector-size: %w", err)
		}
		o.spt = spt
		if o.update {
			if o.upt, err = update.ProofForSectorSize(o.sectorSize); err != nil {
				return cli.Usagef("-sector-size: %w", err)
			}
		}
	}
	for _, out := range []struct{ flag, path string }{{"trace", o.traceFile}, {"memprofile", o.memProfile}} {
		if st, err := os.Stat(filepath.Dir(out.path)); out.path != "" && (err != nil || !st.IsDir()) {
			return cli.Usagef("-%s %s: no directory %s", out.flag, out.path, filepath.Dir(out.path))
		}
	}
	var err error
	if o.backend, o.backendWhy, err = cli.Backend("backend", o.backend); err != nil {
		return err
	}
	if len(o.devices) > 0 && o.backend != "cuda" {
		return cli.Usagef("-devices needs the cuda backend; the backend is cpu (%s)", o.backendWhy)
	}
	if o.deviceMem > 0 && o.backend != "cuda" {
		return cli.Usagef("-device-memory needs the cuda backend; the backend is cpu (%s)", o.backendWhy)
	}
	if err := cli.Devices("devices", o.devices...); err != nil {
		return err
	}
	if o.checkReal {
		return o.checkRealParams()
	}
	return o.checkParams()
}

// checkParams finds the parameters: the real files of -params, which must
// be there when -params is given; else those of the default directory, or
// a TEST-ONLY setup under -test-params.
func (o *options) checkParams() error {
	params, _, err := gpuc2.FindParams(o.paramsDir, o.spt)
	testOnly, setupFlag := gpuc2.TestParamsPath(o.testParams, o.spt), ""
	if o.update {
		params, _, err = gpuc2.FindUpdateParams(o.paramsDir, o.upt)
		testOnly, setupFlag = gpuc2.UpdateTestParamsPath(o.testParams, o.upt), "-update "
	}
	switch {
	case err == nil:
		o.params = params
		return nil
	case !errors.Is(err, gpuc2.ErrParamsMissing):
		return cli.Usagef("-params %s: %w", o.paramsDir, err)
	case o.set["params"]:
		return cli.Usagef("-params %s has no real parameters for %v: %w (a TEST-ONLY setup is used only without -params)",
			o.paramsDir, o.proofName(), err)
	case o.testParams == "":
		return cli.Usagef("no parameters for %v: %w, and -test-params is empty (no TEST-ONLY setup)", o.proofName(), err)
	}
	o.testOnly = testOnly
	if _, err := os.Stat(o.testOnly); err != nil && !gpuc2.IsTestSize(o.spt) {
		size, _ := porep.SectorSizeName(o.spt)
		return cli.Usagef("no parameters for %v in %s, and no TEST-ONLY setup at %s: make one first with "+
			"`go run ./examples/testsetup %s-sector-size %s -cache %s` (on a GPU)", o.proofName(), o.paramsDir, o.testOnly, setupFlag, size, o.testParams)
	}
	return nil
}

// proofName names the proof type proved: the seal type, or with -update
// the update type.
func (o *options) proofName() string {
	if o.update {
		return "update " + update.ProofName(o.upt)
	}
	return porep.ProofName(o.spt)
}

func run(ctx context.Context, o *options, d *display) error {
	if o.checkReal {
		return checkReal(ctx, o, d)
	}
	if o.testOnly != "" {
		fmt.Fprintf(d.stderr(), "c2prove: TEST-ONLY parameters: no real ones for %v in %s; using the local TEST-ONLY setup %s "+
			"(made once if missing). Its proofs verify only against that local key, never on chain; -params DIR requires real files.\n",
			o.proofName(), o.paramsDir, o.testOnly)
	}
	d.printf("backend: %s (%s)", o.backend, o.backendWhy)
	jobs, err := proofJobs(ctx, o, d)
	if err != nil {
		return err
	}
	var tracer *trace.Tracer
	if o.traceFile != "" {
		tracer = trace.New()
	}
	return prove(ctx, o, jobs, tracer, d)
}

// requests are the o.count sectors to prove: the C1 of -c1 for each, or
// synthetic sectors with consecutive sector numbers from -sector-number.
func requests(ctx context.Context, o *options, d *display) ([]gpuc2.SealRequest, error) {
	miner := abi.ActorID(o.miner)
	reqs := make([]gpuc2.SealRequest, o.count)
	c1 := o.c1
	if c1 != nil {
		for i := range reqs {
			reqs[i] = gpuc2.SealRequest{C1: o.c1Raw, Sector: abi.SectorNumber(o.sector), Miner: miner}
		}
	} else {
		d.printf("sector: synthetic %s sector(s) (generated test data, not real sectors)", o.sectorSize)
		start := time.Now()
		d.begin(func() string {
			return fmt.Sprintf("sector: making the synthetic C1… %.0f s", time.Since(start).Seconds())
		})
		defer d.end()
		for i := range reqs {
			sector := abi.SectorNumber(o.sector) + abi.SectorNumber(i)
			var raw []byte
			var err error
			if c1, raw, err = syntheticC1(ctx, o.spt, miner, sector); err != nil {
				return nil, err
			}
			reqs[i] = gpuc2.SealRequest{C1: raw, Sector: sector, Miner: miner}
		}
	}
	sp, err := porep.ParamsFor(c1.RegisteredProof)
	if err != nil {
		return nil, err
	}
	d.printf("C1: %v, %d partitions × %d challenges (checked by the facade)",
		porep.ProofName(c1.RegisteredProof), len(c1.VanillaProofs), sp.ChallengesPerPartition)
	return reqs, nil
}

// syntheticC1 makes a synthetic sector's C1 and its JSON.
func syntheticC1(ctx context.Context, spt abi.RegisteredSealProof, miner abi.ActorID, sector abi.SectorNumber) (*porep.C1, []byte, error) {
	seed := sha256.Sum256([]byte("c2prove synthetic sector"))
	c1, err := porep.SyntheticC1(ctx, spt, miner, sector, seed)
	if err != nil {
		return nil, nil, err
	}
	raw, err := c1.EncodeJSON()
	return c1, raw, err
}
