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
	"os"
	"slices"
	"time"

	bls12381 "github.com/consensys/gnark-crypto/ecc/bls12-381"

	"github.com/gpuc2/gpuc2/internal/nativetest"
	"github.com/gpuc2/gpuc2/msm"
	"github.com/gpuc2/gpuc2/native"
)

func main() {
	logN := flag.Int("log", 20, "MSM size 2^log (1…28)")
	group := flag.String("group", "g1", "g1 or g2")
	backend := flag.String("backend", "both", "cpu, cuda or both")
	runs := flag.Int("runs", 3, "timed runs per backend (after one untimed warm-up on the GPU)")
	kind := flag.String("scalars", "random", "random or bits")
	device := flag.Int("device", 0, "CUDA device ordinal")
	window := flag.Int("window", 0, fmt.Sprintf("force the GPU's Pippenger window (%d…%d; 0: the library's choice)", native.MSMWindowMin, native.MSMWindowMax))
	trace := flag.Bool("trace", false, "print the GPU MSM's phase times to stderr (adds stream synchronizations)")
	noSplit := flag.Bool("no-split", false, "GPU: Pippenger over every scalar, without summing the 0/1 scalars apart")
	flag.Parse()
	var opts []native.MSMOption
	if *window != 0 {
		opts = append(opts, native.WithWindow(*window))
	}
	if *trace {
		opts = append(opts, native.WithTrace())
	}
	if *noSplit {
		opts = append(opts, native.WithoutSplit())
	}
	if err := run(*logN, *group, *backend, *runs, *kind, msm.CUDA{Device: *device, Options: opts}); err != nil {
		fmt.Fprintln(os.Stderr, "msmbench:", err)
		os.Exit(1)
	}
}

func run(logN int, group, backend string, runs int, kind string, gpu msm.CUDA) error {
	if logN < 1 || logN > 28 || runs < 1 {
		return fmt.Errorf("-log %d, -runs %d: want 1…28 and ≥ 1", logN, runs)
	}
	if group != "g1" && group != "g2" {
		return fmt.Errorf("-group %q: want g1 or g2", group)
	}
	n := 1 << logN
	scalars := nativetest.Scalars(n)
	switch kind {
	case "random":
	case "bits":
		for i := range scalars {
			switch {
			case i%40 == 7:
			case scalars[i][0]&1 == 0:
				scalars[i].SetZero()
			default:
				scalars[i].SetOne()
			}
		}
	default:
		return fmt.Errorf("-scalars %q: want random or bits", kind)
	}
	engines := map[string]msm.Engine{"cpu": msm.CPU{}, "cuda": gpu}
	var order []string
	switch backend {
	case "cpu", "cuda":
		order = []string{backend}
	case "both":
		order = []string{"cpu", "cuda"}
	default:
		return fmt.Errorf("-backend %q: want cpu, cuda or both", backend)
	}
	if slices.Contains(order, "cuda") && !native.Available() {
		if backend == "cuda" {
			return fmt.Errorf("cuda: %w", native.Load())
		}
		fmt.Println("cuda: not available, skipped:", native.Load())
		order = []string{"cpu"}
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
