// Command circuitinfo synthesizes one PoRep partition circuit
// (rust-fil-proofs v19's StackedCircuit), or with -update one SnapDeals
// update partition circuit (storage-proofs-update's
// EmptySectorUpdateCircuit), in counting mode and prints its shape on one
// line:
//
//	go run ./examples/circuitinfo -sector-size 32GiB
//	constraints=130278541 inputs=328 aux=130169893 rows=130278869 nnz_a=309405051 …
//	go run ./examples/circuitinfo -update -sector-size 32GiB
//	constraints=81049499 inputs=5 aux=80978488 rows=81049504 …
//
// constraints are the circuit's own rows; rows and the nnz and density
// figures are over the QAP rows, i.e. with bellperson's one extra row per
// input (ONE included) appended; domain is the FFT domain (the next power of
// two ≥ rows). By default the blank circuit is synthesized (all values zero,
// the same shape as a real partition). With -check the circuit gets a
// synthetic witness (stackedtest: consistent, but from no real sector) and
// the command fails unless it is satisfied (with -update: a synthetic
// update, partition 0, up to 8 MiB).
//
// Counting keeps every aux value (4 GiB for a 32/64 GiB partition) beside
// the synthesis buffers: peak RSS 14.2 GiB at 32 GiB (`/usr/bin/time -v
// circuitinfo -sector-size 32GiB`, 2-core dev machine, 2026-12-01).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/bits"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/gpuc2/gpuc2/examples/internal/cli"
	"github.com/gpuc2/gpuc2/synth"
	"github.com/gpuc2/gpuc2/synth/stacked"
	"github.com/gpuc2/gpuc2/synth/stacked/stackedtest"
	"github.com/gpuc2/gpuc2/synth/update"
)

func main() {
	o, err := parseFlags(os.Args[1:], os.Stderr)
	if err == nil {
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
		err = run(ctx, o, os.Stdout)
		stop()
	}
	cli.Exit("circuitinfo", err) // 2 after a usage error: nothing was done
}

type options struct {
	check bool
	seed  uint64
	quiet bool

	size    string
	update  bool
	params  stacked.Params // of size, resolved by parseFlags
	uparams update.Params  // of size, with -update
}

// parseFlags parses and checks circuitinfo's command line; usage and flag
// errors go to output.
func parseFlags(args []string, output io.Writer) (options, error) {
	var o options
	fs := flag.NewFlagSet("circuitinfo", flag.ContinueOnError)
	fs.SetOutput(output)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), "usage: circuitinfo [flags]\n\nSynthesizes one PoRep partition circuit in counting mode and prints its shape on one line.\n\n")
		fs.PrintDefaults()
	}
	fs.StringVar(&o.size, "sector-size", "2KiB", "sector size: 2KiB, 8MiB, 512MiB, 32GiB, 64GiB (or bytes)")
	fs.BoolVar(&o.check, "check", false, "synthesize a synthetic witness and require it to satisfy the circuit")
	fs.Uint64Var(&o.seed, "seed", 1, "seed of the synthetic witness (with -check)")
	fs.BoolVar(&o.quiet, "q", false, "no progress on stderr")
	fs.BoolVar(&o.update, "update", false, "the SnapDeals update circuit (EmptySectorUpdate) instead of PoRep's")
	if err := cli.Parse(fs, args); err != nil {
		return o, err
	}
	size, err := parseSize(o.size)
	if err != nil {
		return o, cli.Usagef("-sector-size: %w", err)
	}
	if o.update {
		if o.uparams, err = update.ParamsForSectorSize(size); err != nil {
			return o, cli.Usagef("-sector-size: %w", err)
		}
		return o, nil
	}
	if o.params, err = stacked.ParamsForSectorSize(size); err != nil {
		return o, cli.Usagef("-sector-size: %w", err)
	}
	return o, nil
}

// circuit returns the circuit o asks for and where to hook its progress.
func circuit(o options) (synth.Circuit, *func(done, total int), error) {
	if o.update {
		c := &update.Circuit{Params: o.uparams}
		if o.check {
			s, err := update.NewSynthetic(o.uparams, o.seed)
			if err != nil {
				return nil, nil, err
			}
			if c.Witness, err = s.Witness(0); err != nil {
				return nil, nil, err
			}
		}
		return c, &c.Progress, nil
	}
	c := &stacked.Circuit{Params: o.params, Workers: 1}
	if o.check {
		var err error
		if c.Witness, err = stackedtest.Partition(o.params, o.seed); err != nil {
			return nil, nil, err
		}
	}
	return c, &c.Progress, nil
}

// run synthesizes and writes the shape line to out.
func run(ctx context.Context, o options, out io.Writer) error {
	c, progress, err := circuit(o)
	if err != nil {
		return err
	}
	start := time.Now()
	var open atomic.Bool // a progress line is drawn, without its newline
	if !o.quiet {
		tty, last := cli.Terminal(os.Stderr), start
		*progress = func(done, total int) {
			now := time.Now()
			switch {
			case tty: // redrawn in place
				fmt.Fprintf(os.Stderr, "\rsynthesizing: challenge %d/%d, %.0fs", done, total, now.Sub(start).Seconds())
				open.Store(done < total)
				if done == total {
					fmt.Fprintln(os.Stderr)
				}
			case done == total || now.Sub(last) >= 10*time.Second: // plain lines
				last = now
				fmt.Fprintf(os.Stderr, "synthesizing: challenge %d/%d, %.0fs\n", done, total, now.Sub(start).Seconds())
			}
		}
	}
	ch := synth.NewChecker()
	if err := c.Synthesize(ctx, ch); err != nil {
		if open.Load() {
			fmt.Fprintln(os.Stderr) // the error starts on a line of its own
		}
		return err
	}
	if o.check {
		if err := ch.Err(); err != nil {
			return fmt.Errorf("synthetic witness (seed %d): %w", o.seed, err)
		}
		fmt.Fprintln(os.Stderr, "synthetic witness satisfies the circuit")
	}
	constraints := ch.Stats().Constraints
	synth.AppendInputRows(ch, ch.Stats().Inputs)
	st := ch.Stats()
	fmt.Fprintf(out, "constraints=%d inputs=%d aux=%d rows=%d nnz_a=%d nnz_b=%d nnz_c=%d a_aux_density=%d b_aux_density=%d b_input_density=%d domain=2^%d\n",
		constraints, st.Inputs, st.Aux, st.Constraints, st.NNZA, st.NNZB, st.NNZC,
		st.AAuxDensity, st.BAuxDensity, st.BInputDensity, bits.Len(uint(st.Constraints-1)))
	if !o.quiet {
		fmt.Fprintf(os.Stderr, "%s in %.1fs\n", o.size, time.Since(start).Seconds())
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
