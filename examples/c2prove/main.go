// Command c2prove is gpuc2's main job: it proves and verifies a Groth16
// proof on this machine.
//
// The PoRep circuit (C1 input) is not implemented yet: today c2prove proves
// the built-in demo circuit (a chain of squarings, linear rows and bit checks
// of about -rows rows) with a local test setup, so the whole Groth16 path —
// synthesis, setup in bellperson's format, proof, verification — runs
// end to end. It prints timings and, last, "proof=<hex> bytes=192 verified=true".
package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"time"

	"github.com/gpuc2/gpuc2/groth16"
	"github.com/gpuc2/gpuc2/internal/testcircuit"
	"github.com/gpuc2/gpuc2/internal/trace"
)

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

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "c2prove:", err)
		os.Exit(1)
	}
}

func run() error {
	rows := flag.Int("rows", 1<<16-16, "rows of the demo circuit (with the input rows it fills a 2^16 domain)")
	c1 := flag.String("c1", "", "C1 output to prove (not supported yet)")
	traceFile := flag.String("trace", "", "write a Chrome trace (open in Perfetto) of the run to this file")
	flag.Parse()
	if *c1 != "" {
		return errors.New("proving a C1 output needs the PoRep circuit, which is not implemented yet; run without -c1 for the demo circuit")
	}
	if *rows < 1 {
		return fmt.Errorf("-rows must be positive, got %d", *rows)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()

	var tracer *trace.Tracer
	if *traceFile != "" {
		tracer = trace.New()
	}
	track := trace.Track{Process: "cpu", Thread: "prover 0"}

	circuit := &testcircuit.Chain{N: *rows, Seed: 1, Inputs: 4}
	fmt.Printf("circuit: demo chain of %d rows (the PoRep circuit is not implemented yet)\n", *rows)

	start := time.Now()
	span := tracer.Begin(track, "test setup")
	pk, err := groth16.Setup(ctx, circuit, rand.Reader)
	span.End()
	if err != nil {
		return err
	}
	c := pk.Counts()
	fmt.Printf("test setup: %v (h=%d l=%d a=%d b=%d; local toxic waste, for testing only)\n",
		time.Since(start).Round(time.Millisecond), c.H, c.L, c.A, c.B)

	var t groth16.Timings
	span = tracer.Begin(track, "prove")
	proof, err := groth16.Prove(ctx, &groth16.CPUProver{}, pk, circuit, groth16.WithTimings(&t),
		groth16.WithPhases(func(name string, start, end time.Time) { tracer.Add(track, name, start, end) }))
	span.End()
	if err != nil {
		return err
	}
	fmt.Printf("prove (cpu): %v = synthesis %v + H %v + MSMs h %v, l %v, a %v, b_g1 %v, b_g2 %v\n",
		(t.Synthesis + t.Total).Round(time.Millisecond), t.Synthesis.Round(time.Millisecond), t.H.Round(time.Millisecond),
		t.MSMH.Round(time.Millisecond), t.MSML.Round(time.Millisecond), t.MSMA.Round(time.Millisecond),
		t.MSMBG1.Round(time.Millisecond), t.MSMBG2.Round(time.Millisecond))

	start = time.Now()
	span = tracer.Begin(track, "verify")
	ok, err := groth16.Verify(pk.VerifyingKey(), proof, circuit.PublicInputs())
	span.End()
	if err != nil {
		return err
	}
	if tracer != nil {
		if err := writeTrace(*traceFile, tracer); err != nil {
			return err
		}
	}
	fmt.Printf("verify: %v\n", time.Since(start).Round(time.Millisecond))
	b, err := proof.MarshalBinary()
	if err != nil {
		return err
	}
	fmt.Printf("proof=%s bytes=%d verified=%t\n", hex.EncodeToString(b), len(b), ok)
	if !ok {
		return errors.New("the proof does not verify")
	}
	return nil
}
