package main

import (
	"bytes"
	"errors"
	"flag"
	"io"
	"strings"
	"testing"

	"github.com/gpuc2/gpuc2/examples/internal/cli"
	"github.com/gpuc2/gpuc2/msm/cuda"
	"github.com/gpuc2/gpuc2/native"
)

// The CPU path runs everywhere; bad flags are refused with an error. Where
// a GPU is present, the tuned GPU MSM must agree with the CPU.
func TestRun(t *testing.T) {
	if err := run(6, "g1", "both", 1, "bits", cuda.Engine{}); err != nil {
		t.Fatal(err)
	}
	if err := run(5, "g2", "cpu", 1, "random", cuda.Engine{}); err != nil {
		t.Fatal(err)
	}
	tuned := cuda.Engine{Options: []native.MSMOption{native.WithWindow(5), native.WithoutSplit()}}
	if err := run(6, "g1", "both", 1, "bits", tuned); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []struct {
		log         int
		group, back string
		runs        int
		kind        string
	}{{0, "g1", "cpu", 1, "random"}, {6, "g3", "cpu", 1, "random"}, {6, "g1", "tpu", 1, "random"}, {6, "g1", "cpu", 1, "ternary"}, {6, "g1", "cpu", 0, "random"}} {
		if err := run(bad.log, bad.group, bad.back, bad.runs, bad.kind, cuda.Engine{}); err == nil {
			t.Errorf("%+v accepted", bad)
		}
	}
}

// Flags are checked before any work: bad values and stray arguments are
// usage errors (exit 2), -backend cuda without the library included; -h
// prints the usage.
func TestFlags(t *testing.T) {
	o, err := parseFlags([]string{"-log", "6", "-group", "g2", "-backend", "cpu", "-runs", "2", "-scalars", "bits", "-window", "8"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if want := (options{logN: 6, group: "g2", backend: "cpu", runs: 2, kind: "bits", window: 8}); o != want {
		t.Errorf("%+v, want %+v", o, want)
	}
	bad := [][]string{{"-log", "0"}, {"-log", "29"}, {"-runs", "0"}, {"-group", "g3"}, {"-backend", "gpu"},
		{"-scalars", "ternary"}, {"-window", "3"}, {"-window", "21"}, {"-device", "-1"}, {"extra"}, {"-bogus"}}
	if !native.Available() {
		bad = append(bad, []string{"-backend", "cuda"})
	}
	for _, args := range bad {
		if _, err := parseFlags(args, io.Discard); cli.Code(err) != 2 {
			t.Errorf("%q: %v, want a usage error", args, err)
		}
	}
	if _, err := parseFlags([]string{"-backend", "cuda"}, io.Discard); err != nil && !strings.Contains(err.Error(), "make -C native") {
		t.Errorf("-backend cuda without the library does not say how to build it: %v", err)
	}
	var usage bytes.Buffer
	if _, err := parseFlags([]string{"-h"}, &usage); !errors.Is(err, flag.ErrHelp) || !strings.Contains(usage.String(), "-window") {
		t.Errorf("-h: %v, %q", err, usage.String())
	}
}
