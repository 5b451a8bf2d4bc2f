// Command testsetup makes TEST-ONLY Groth16 parameters for the PoRep circuit
// of a sector size (with -update, the SnapDeals update circuit's) and writes them, in bellperson's .params format, where
// gpuc2.TestParams and the facade (Config.TestParamsDir) look for them:
// gpuc2.TestParamsPath(cache, proof type), one file that every proof type
// of that size uses.
//
// The parameters come from local toxic waste (crypto/rand, then forgotten):
// whoever ran the setup could forge proofs, and no chain accepts them. They
// exist so that the full-size prover can be exercised, from a parameter
// file exactly as it would read Filecoin's, where the real files are not
// available. They are never valid on chain.
//
//	go run ./examples/testsetup -sector-size 32GiB   # on a GPU: ~3 min, a 47 GB file
//	go run ./examples/c2prove -sector-size 32GiB -count 3
//	go run ./examples/testsetup -update -sector-size 32GiB   # the update circuit's
//
// Test sizes (2 KiB, 8 MiB, 512 MiB) are also made on demand by
// gpuc2.TestParams; sizes above 512 MiB need the CUDA backend (on the CPU
// the fixed-base multiplications would take hours) and about 100 GiB of
// host memory at 32 GiB.
package main

import (
	"context"
	"crypto/rand"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/filecoin-project/go-state-types/abi"

	"github.com/gpuc2/gpuc2"
	"github.com/gpuc2/gpuc2/examples/internal/cli"
	"github.com/gpuc2/gpuc2/groth16"
	"github.com/gpuc2/gpuc2/msm/cuda"
	"github.com/gpuc2/gpuc2/native"
	"github.com/gpuc2/gpuc2/synth"
	"github.com/gpuc2/gpuc2/synth/porep"
	"github.com/gpuc2/gpuc2/synth/post"
	"github.com/gpuc2/gpuc2/synth/stacked"
	"github.com/gpuc2/gpuc2/synth/update"
)

func main() {
	o, err := parseFlags(os.Args[1:], os.Stderr)
	if err == nil {
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
		_, err = run(ctx, o, os.Stdout)
		stop()
	}
	cli.Exit("testsetup", err) // 2 after a usage error: nothing was done
}

type options struct {
	sectorSize string
	cache      string
	backend    string
	device     int
	force      bool
	update     bool   // the SnapDeals update circuit of the size, not PoRep's
	post       string // "window" or "winning": that PoSt circuit of the size, not PoRep's

	backendWhy string // set by plan: why this backend
}

// parseFlags parses testsetup's command line; usage and flag errors go to
// output.
func parseFlags(args []string, output io.Writer) (options, error) {
	var o options
	fs := flag.NewFlagSet("testsetup", flag.ContinueOnError)
	fs.SetOutput(output)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), "usage: testsetup [flags]\n\n"+
			"Makes a TEST-ONLY Groth16 setup for the PoRep circuit of a sector size (or its SnapDeals or PoSt circuit), where c2prove\n"+
			"and gpuc2.Config.TestParamsDir look for it. Never valid on chain.\n\n")
		fs.PrintDefaults()
	}
	fs.StringVar(&o.sectorSize, "sector-size", "2KiB", "sector size of the circuit: 2KiB, 8MiB, 512MiB, 32GiB or 64GiB")
	fs.StringVar(&o.cache, "cache", "", "cache directory the file goes under (as gpuc2.TestParamsPath); default the user cache directory, where c2prove looks")
	fs.StringVar(&o.backend, "backend", "auto", "where the fixed-base multiplications run: auto (cuda when the native library loads; says which and why), cpu (sizes ≤ 512MiB) or cuda")
	fs.IntVar(&o.device, "device", 0, "CUDA device ordinal")
	fs.BoolVar(&o.update, "update", false, "the SnapDeals EmptySectorUpdate circuit of the size (gpuc2.UpdateTestParamsPath) instead of PoRep's")
	fs.StringVar(&o.post, "post", "", "window or winning: the WindowPoSt or WinningPoSt circuit of the size (gpuc2.PoStTestParamsPath) instead of PoRep's")
	fs.BoolVar(&o.force, "force", false, "replace an existing file (removed once the setup is done, before writing, so the disk never holds two)")
	return o, cli.Parse(fs, args)
}

// plan checks the options and resolves the proof type, the cache directory
// and the backend ("cpu" or "cuda") without doing any work. Its errors are
// usage errors.
func plan(o *options) (abi.RegisteredSealProof, error) {
	spt, err := porep.ProofForSectorSize(o.sectorSize)
	if err != nil {
		return 0, cli.Usagef("-sector-size: %w", err)
	}
	if o.cache == "" {
		if o.cache, err = os.UserCacheDir(); err != nil {
			return 0, cli.Usagef("no user cache directory (%w); give -cache", err)
		}
	}
	if o.device < 0 {
		return 0, cli.Usagef("-device must not be negative, not %d", o.device)
	}
	if o.post != "" && o.post != "window" && o.post != "winning" {
		return 0, cli.Usagef("-post takes window or winning, not %q", o.post)
	}
	if o.post != "" && o.update {
		return 0, cli.Usagef("-post and -update name two circuits: give one")
	}
	asked := o.backend
	if o.backend, o.backendWhy, err = cli.Backend("backend", o.backend); err != nil {
		return 0, err
	}
	switch {
	case o.backend == "cuda":
		if err := cli.Devices("device", o.device); err != nil {
			return 0, err
		}
	case gpuc2.IsTestSize(spt), o.post == "winning": // a WinningPoSt circuit is small at every size
	case asked == "auto":
		return 0, cli.Usagef("a %s setup needs a GPU (the CPU would take hours), and the native CUDA library is not available: %w\n%s",
			o.sectorSize, native.Load(), cli.BuildHint)
	default:
		return 0, cli.Usagef("-backend cpu: a %s setup on the CPU would take hours; only sizes up to 512MiB are made on the CPU — use -backend cuda on a GPU machine", o.sectorSize)
	}
	return spt, nil
}

// setup is groth16.Setup (replaced in tests: a real 2 KiB setup takes
// about a minute on 2 cores, BENCHMARKS.md).
var setup = groth16.Setup

// run makes the setup and writes it; it returns the file's path.
func run(ctx context.Context, o options, w io.Writer) (string, error) {
	spt, err := plan(&o)
	if err != nil {
		return "", err
	}
	path, name, circuit, err := target(o, spt)
	if err != nil {
		return "", err
	}
	if st, err := os.Stat(path); err == nil && !o.force {
		return "", cli.Usagef("%s exists (%.1f GB); -force replaces it", path, float64(st.Size())/1e9)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return "", err
	}
	_ = os.Remove(path + ".tmp") // a stale one from an interrupted run
	fmt.Fprintf(w, "backend: %s (%s)\n", o.backend, o.backendWhy)
	fmt.Fprintf(w, "TEST-ONLY setup for %v (%s sectors) on %s: local toxic waste, never valid on chain\n", name, o.sectorSize, o.backend)

	var opts []groth16.SetupOption
	if o.backend == "cuda" {
		opts = append(opts, groth16.WithSetupEngine(cuda.Engine{Device: o.device}))
	}
	var recorded, challenges atomic.Int64
	progress := func(done, total int) { recorded.Store(int64(done)); challenges.Store(int64(total)) }
	switch c := circuit.(type) {
	case *stacked.Circuit:
		c.Progress = progress
	case *update.Circuit:
		c.Progress = progress
	case *post.Circuit:
		c.Progress = progress
	}
	start := time.Now()
	t0 := start
	done := ticker(w, 15*time.Second, func(d time.Duration) string {
		switch n, total := recorded.Load(), challenges.Load(); {
		case total == 0:
			return fmt.Sprintf("  setup: %.0f s, recording the circuit (one core)", d.Seconds())
		case n < total:
			return fmt.Sprintf("  setup: %.0f s, recording the circuit (one core): %d of %d challenges", d.Seconds(), n, total)
		}
		return fmt.Sprintf("  setup: %.0f s, circuit recorded; QAP at τ and the fixed-base multiplications (%s)", d.Seconds(), o.backend)
	})
	pk, err := setup(ctx, circuit, rand.Reader, opts...)
	done()
	if err != nil {
		return "", err
	}
	c := pk.Counts()
	fmt.Fprintf(w, "setup: %.1f s (h %d, l %d, a %d, b %d points; %.1f GiB in memory)\n",
		time.Since(t0).Seconds(), c.H, c.L, c.A, c.B, float64(groth16.KeyBytes(c))/(1<<30))

	if _, err := os.Stat(path); err == nil {
		// Removed before writing: a rename over it would need room for both.
		if err := os.Remove(path); err != nil {
			return "", err
		}
		fmt.Fprintf(w, "removed the existing %s\n", path)
	}
	t0 = time.Now()
	var mu sync.Mutex
	last := t0
	err = groth16.WriteParamsContext(ctx, path, pk, func(written, total int64) {
		mu.Lock()
		defer mu.Unlock()
		switch now := time.Now(); {
		case written == total:
			fmt.Fprintf(w, "  write: %.1f GB encoded and written in %.1f s; syncing\n", float64(total)/1e9, now.Sub(t0).Seconds())
		case now.Sub(last) >= 5*time.Second:
			last = now
			fmt.Fprintf(w, "  write: %.1f of %.1f GB (%.0f %%), %.0f s\n", float64(written)/1e9, float64(total)/1e9,
				100*float64(written)/float64(total), now.Sub(t0).Seconds())
		}
	})
	if err != nil {
		return "", err
	}
	st, err := os.Stat(path)
	if err != nil {
		return "", err
	}
	write := time.Since(t0)
	fmt.Fprintf(w, "write: %.1f s (%.2f GB/s, synced)\n", write.Seconds(), float64(st.Size())/1e9/max(write.Seconds(), 1e-9))
	fmt.Fprintf(w, "file: %s\nsize: %d bytes (%.1f GB)\ntotal: %.1f s\n", path, st.Size(), float64(st.Size())/1e9, time.Since(start).Seconds())
	return path, nil
}

// target is where the setup goes, the proof type's name and its blank
// circuit (nil witness: the shape of every real one): PoRep's of spt's
// size, or with -update the update circuit of that size.
func target(o options, spt abi.RegisteredSealProof) (path, name string, circuit synth.Circuit, err error) {
	if o.post != "" {
		pt, err := spt.RegisteredWinningPoStProof()
		if o.post == "window" { // the V1_1 type, live since network version 19
			if pt, err = spt.RegisteredWindowPoStProof(); err == nil {
				pt, err = pt.ToV1_1PostProof()
			}
		}
		if err != nil {
			return "", "", nil, err
		}
		pp, err := post.ParamsFor(pt)
		if err != nil {
			return "", "", nil, err
		}
		return gpuc2.PoStTestParamsPath(o.cache, pt), post.ProofName(pt), &post.Circuit{Params: pp}, nil
	}
	if !o.update {
		params, err := porep.CircuitParams(spt)
		if err != nil {
			return "", "", nil, err
		}
		return gpuc2.TestParamsPath(o.cache, spt), porep.ProofName(spt), &stacked.Circuit{Params: params}, nil
	}
	upt, err := update.ProofForSectorSize(o.sectorSize)
	if err != nil {
		return "", "", nil, err
	}
	up, err := update.ParamsFor(upt)
	if err != nil {
		return "", "", nil, err
	}
	return gpuc2.UpdateTestParamsPath(o.cache, upt), "update " + update.ProofName(upt), &update.Circuit{Params: up}, nil
}

// ticker calls msg every period on w, until done is called.
func ticker(w io.Writer, period time.Duration, msg func(elapsed time.Duration) string) (done func()) {
	start := time.Now()
	stop := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		t := time.NewTicker(period)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
				fmt.Fprintln(w, msg(time.Since(start)))
			}
		}
	}()
	var once sync.Once
	return func() { once.Do(func() { close(stop); <-finished }) }
}
