// Command circuitinfo synthesizes one PoRep partition circuit
// (rust-fil-proofs v19's StackedCircuit) in counting mode and prints its
// shape on one line:
//
//	go run ./examples/circuitinfo -sector-size 32GiB
//	constraints=130278541 inputs=328 aux=130169893 rows=130278869 nnz_a=309405051 …
//
// constraints are the circuit's own rows; rows and the nnz and density
// figures are over the QAP rows, i.e. with bellperson's one extra row per
// input (ONE included) appended; domain is the FFT domain (the next power of
// two ≥ rows). By default the blank circuit is synthesized (all values zero,
// the same shape as a real partition). With -check the circuit gets a
// synthetic witness (stackedtest: consistent, but from no real sector) and
// the command fails unless it is satisfied.
//
// Counting keeps every aux value: about 4 GiB for a 32/64 GiB partition.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"math/bits"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"time"

	"github.com/gpuc2/gpuc2/synth"
	"github.com/gpuc2/gpuc2/synth/stacked"
	"github.com/gpuc2/gpuc2/synth/stacked/stackedtest"
)

func main() {
	size := flag.String("sector-size", "2KiB", "sector size: 2KiB, 8MiB, 512MiB, 32GiB, 64GiB (or bytes)")
	check := flag.Bool("check", false, "synthesize a synthetic witness and require it to satisfy the circuit")
	seed := flag.Uint64("seed", 1, "seed of the synthetic witness (with -check)")
	quiet := flag.Bool("q", false, "no progress on stderr")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, *size, *check, *seed, *quiet); err != nil {
		fmt.Fprintln(os.Stderr, "circuitinfo:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, sizeArg string, check bool, seed uint64, quiet bool) error {
	size, err := parseSize(sizeArg)
	if err != nil {
		return err
	}
	p, err := stacked.ParamsForSectorSize(size)
	if err != nil {
		return err
	}
	c := &stacked.Circuit{Params: p, Workers: 1}
	if check {
		if c.Witness, err = stackedtest.Partition(p, seed); err != nil {
			return err
		}
	}
	start := time.Now()
	if !quiet {
		c.Progress = func(done, total int) {
			fmt.Fprintf(os.Stderr, "\rsynthesizing: challenge %d/%d, %.0fs", done, total, time.Since(start).Seconds())
			if done == total {
				fmt.Fprintln(os.Stderr)
			}
		}
	}
	ch := synth.NewChecker()
	if err := c.Synthesize(ctx, ch); err != nil {
		return err
	}
	if check {
		if err := ch.Err(); err != nil {
			return fmt.Errorf("synthetic witness (seed %d): %w", seed, err)
		}
		fmt.Fprintln(os.Stderr, "synthetic witness satisfies the circuit")
	}
	constraints := ch.Stats().Constraints
	synth.AppendInputRows(ch, ch.Stats().Inputs)
	st := ch.Stats()
	fmt.Printf("constraints=%d inputs=%d aux=%d rows=%d nnz_a=%d nnz_b=%d nnz_c=%d a_aux_density=%d b_aux_density=%d b_input_density=%d domain=2^%d\n",
		constraints, st.Inputs, st.Aux, st.Constraints, st.NNZA, st.NNZB, st.NNZC,
		st.AAuxDensity, st.BAuxDensity, st.BInputDensity, bits.Len(uint(st.Constraints-1)))
	if !quiet {
		fmt.Fprintf(os.Stderr, "%s in %.1fs\n", sizeArg, time.Since(start).Seconds())
	}
	return nil
}

var errSize = errors.New("bad sector size")

// parseSize reads "2KiB", "32GiB", … or a number of bytes.
func parseSize(s string) (uint64, error) {
	units := []struct {
		suffix string
		shift  uint
	}{{"KiB", 10}, {"MiB", 20}, {"GiB", 30}}
	for _, u := range units {
		if n, ok := strings.CutSuffix(s, u.suffix); ok {
			v, err := strconv.ParseUint(n, 10, 32)
			if err != nil {
				return 0, fmt.Errorf("%w %q", errSize, s)
			}
			return v << u.shift, nil
		}
	}
	v, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%w %q", errSize, s)
	}
	return v, nil
}
