package main

import (
	"testing"

	"github.com/gpuc2/gpuc2/msm"
	"github.com/gpuc2/gpuc2/native"
)

// The CPU path runs everywhere; bad flags are refused with an error. Where
// a GPU is present, the tuned GPU MSM must agree with the CPU.
func TestRun(t *testing.T) {
	if err := run(6, "g1", "both", 1, "bits", msm.CUDA{}); err != nil {
		t.Fatal(err)
	}
	if err := run(5, "g2", "cpu", 1, "random", msm.CUDA{}); err != nil {
		t.Fatal(err)
	}
	tuned := msm.CUDA{Options: []native.MSMOption{native.WithWindow(5), native.WithoutSplit()}}
	if err := run(6, "g1", "both", 1, "bits", tuned); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []struct {
		log         int
		group, back string
		runs        int
		kind        string
	}{{0, "g1", "cpu", 1, "random"}, {6, "g3", "cpu", 1, "random"}, {6, "g1", "tpu", 1, "random"}, {6, "g1", "cpu", 1, "ternary"}, {6, "g1", "cpu", 0, "random"}} {
		if err := run(bad.log, bad.group, bad.back, bad.runs, bad.kind, msm.CUDA{}); err == nil {
			t.Errorf("%+v accepted", bad)
		}
	}
}
