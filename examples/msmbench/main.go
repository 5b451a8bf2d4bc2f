// Command msmbench times multi-scalar multiplications on the CPU
// (gnark-crypto) and on the GPU (the native library), the operation that
// dominates a Groth16 proof:
//
//	go run ./examples/msmbench -log 24 -group g1 -backend both -runs 3
//	go run ./examples/msmbench -log 27 -scalars bits   # Filecoin-like 0/1 witness
//
// Points are 2^16 random points repeated (generating millions of distinct
// points takes minutes); scalars are random, or mostly 0/1 with one wide
// scalar in 40 (-scalars bits). GPU times are wall times of the synchronous
// call, the upload from ordinary (pageable) memory included. -window, -trace
// and -no-split tune the GPU's MSM (native.WithWindow, WithTrace,
// WithoutSplit):
//
//	go run ./examples/msmbench -log 24 -backend cuda -window 18 -trace
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"time"

	bls12381 "github.com/consensys/gnark-crypto/ecc/bls12-381"

	"github.com/gpuc2/gpuc2/examples/internal/cli"
	"github.com/gpuc2/gpuc2/internal/nativetest"
	"github.com/gpuc2/gpuc2/msm"
	"github.com/gpuc2/gpuc2/msm/cuda"
	"github.com/gpuc2/gpuc2/native"
)

func main() {
	o, err := parseFlags(os.Args[1:], os.Stderr)
	if err == nil {
		err = run(o.logN, o.group, o.backend, o.runs, o.kind, cuda.Engine{Device: o.device, Options: o.msmOptions()})
	}
	cli.Exit("msmbench", err) // 2 after a usage error: nothing was done
}

type options struct {
	logN, runs, device, window int
	group, backend, kind       string
	trace, noSplit             bool
}

// parseFlags parses and checks msmbench's command line (check); usage and
// flag errors go to output.
func parseFlags(args []string, output io.Writer) (options, error) {
	var o options
	fs := flag.NewFlagSet("msmbench", flag.ContinueOnError)
	fs.SetOutput(output)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), "usage: msmbench [flags]\n\nTimes multi-scalar multiplications on the CPU and on the GPU.\n\n")
		fs.PrintDefaults()
	}
	fs.IntVar(&o.logN, "log", 20, "MSM size 2^log (1…28)")
	fs.StringVar(&o.group, "group", "g1", "g1 or g2")
	fs.StringVar(&o.backend, "backend", "both", "cpu, cuda or both (both: the GPU is skipped, saying why, without the native library)")
	fs.IntVar(&o.runs, "runs", 3, "timed runs per backend (after one untimed warm-up on the GPU)")
	fs.StringVar(&o.kind, "scalars", "random", "random or bits")
	fs.IntVar(&o.device, "device", 0, "CUDA device ordinal")
	fs.IntVar(&o.window, "window", 0, fmt.Sprintf("force the GPU's Pippenger window (%d…%d; 0: the library's choice)", native.MSMWindowMin, native.MSMWindowMax))
	fs.BoolVar(&o.trace, "trace", false, "print the GPU MSM's phase times to stderr (adds stream synchronizations)")
	fs.BoolVar(&o.noSplit, "no-split", false, "GPU: Pippenger over every scalar, without summing the 0/1 scalars apart")
	if err := cli.Parse(fs, args); err != nil {
		return o, err
	}
	if o.window != 0 && (o.window < native.MSMWindowMin || o.window > native.MSMWindowMax) {
		return o, cli.Usagef("-window %d: want 0 or %d…%d", o.window, native.MSMWindowMin, native.MSMWindowMax)
	}
	if o.device < 0 {
		return o, cli.Usagef("-device must not be negative, not %d", o.device)
	}
	if err := check(o.logN, o.group, o.backend, o.runs, o.kind); err != nil {
		return o, err
	}
	if o.backend != "cpu" && native.Available() {
		return o, cli.Devices("device", o.device)
	}
	return o, nil
}

func (o options) msmOptions() []native.MSMOption {
	var opts []native.MSMOption
	if o.window != 0 {
		opts = append(opts, native.WithWindow(o.window))
	}
	if o.trace {
		opts = append(opts, native.WithTrace())
	}
	if o.noSplit {
		opts = append(opts, native.WithoutSplit())
	}
	return opts
}

// check checks run's arguments before any work: usage errors, -backend
// cuda without the native library included.
func check(logN int, group, backend string, runs int, kind string) error {
	switch {
	case logN < 1 || logN > 28 || runs < 1:
		return cli.Usagef("-log %d, -runs %d: want 1…28 and ≥ 1", logN, runs)
	case group != "g1" && group != "g2":
		return cli.Usagef("-group %q: want g1 or g2", group)
	case kind != "random" && kind != "bits":
		return cli.Usagef("-scalars %q: want random or bits", kind)
	}
	switch backend {
	case "cpu", "both":
	case "cuda":
		_, _, err := cli.Backend("backend", backend)
		return err
	default:
		return cli.Usagef("-backend %q: want cpu, cuda or both", backend)
	}
	return nil
}

func run(logN int, group, backend string, runs int, kind string, gpu cuda.Engine) error {
	if err := check(logN, group, backend, runs, kind); err != nil {
		return err
	}
	n := 1 << logN
	scalars := nativetest.Scalars(n)
	if kind == "bits" {
		for i := range scalars {
			switch {
			case i%40 == 7:
			case scalars[i][0]&1 == 0:
				scalars[i].SetZero()
			default:
				scalars[i].SetOne()
			}
		}
	}
	engines := map[string]msm.Engine{"cpu": msm.CPU{}, "cuda": gpu}
	order := []string{backend}
	if backend == "both" {
		order = []string{"cpu", "cuda"}
		if !native.Available() { // check refused cuda alone without it
			fmt.Println("cuda: not available, skipped:", native.Load())
			order = []string{"cpu"}
		}
	}
	var g1 []bls12381.G1Affine
	var g2 []bls12381.G2Affine
	if group == "g1" {
		g1 = nativetest.G1(n, min(n, 1<<16))
	} else {
		g2 = nativetest.G2(n, min(n, 1<<14))
	}
	ctx := context.Background()
	var first []byte
	for _, name := range order {
		e := engines[name]
		once := func() ([]byte, error) {
			if group == "g1" {
				r, err := e.G1(ctx, g1, scalars, nil)
				var a bls12381.G1Affine
				a.FromJacobian(&r)
				b := a.Bytes()
				return b[:], err
			}
			r, err := e.G2(ctx, g2, scalars, nil)
			var a bls12381.G2Affine
			a.FromJacobian(&r)
			b := a.Bytes()
			return b[:], err
		}
		if name == "cuda" { // the first call loads the library and warms the pool
			if _, err := once(); err != nil {
				return err
			}
		}
		var times []time.Duration
		for range runs {
			t := time.Now()
			res, err := once()
			if err != nil {
				return err
			}
			times = append(times, time.Since(t))
			if first == nil {
				first = res
			} else if !slices.Equal(first, res) {
				return errors.New("the backends disagree")
			}
		}
		slices.Sort(times)
		fmt.Printf("%s %s MSM 2^%d (%s scalars): median %v over %d runs\n", name, group, logN, kind,
			times[len(times)/2].Round(time.Microsecond), runs)
	}
	if len(order) == 2 {
		fmt.Println("results equal: true")
	}
	return nil
}
